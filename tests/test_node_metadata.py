"""What a node tells of itself: Node._input_metadata (the metadata of each output's gradient) and
the saved values' torch names (_saved_<arg>_sym_sizes and the other metadata a formula reads,
float and Scalar arguments read back as torch's types)."""
import numpy as np
import pytest

import ndgrad
from parity import both, same_error


def _meta(fn):
    return [[list(m.shape), str(m.dtype), str(m.device), m.is_nested_tensor, m.is_cpp_nested_tensor]
            for m in fn._input_metadata]


# --- Node._input_metadata --------------------------------------------------------------------------
def test_one_output_node_has_its_outputs_metadata():
    def s(T):
        x = T.rand(2, 3, requires_grad=True)
        return _meta((x * 2).grad_fn) + _meta(x.double().sum().grad_fn) + _meta((x + 1j).grad_fn)
    assert both(s) == [[[2, 3], "torch.float32", "cpu", False, False], [[], "torch.float64", "cpu", False, False],
                       [[2, 3], "torch.complex64", "cpu", False, False]]


def test_several_outputs_one_entry_per_differentiable_output():
    def s(T):
        b = T.rand(3, 4, requires_grad=True)
        var = T.var_mean(b, dim=0)[0]
        values = b.max(1)[0]                  # the indices take no gradient: no entry
        evals = T.linalg.eigh(b[:, :3] @ b[:, :3].mT)[0]
        return [_meta(var.grad_fn), _meta(values.grad_fn), _meta(evals.grad_fn)]
    assert both(s) == [[[[4], "torch.float32", "cpu", False, False]] * 2, [[[3], "torch.float32", "cpu", False, False]],
                       [[[3], "torch.float32", "cpu", False, False], [[3, 3], "torch.float32", "cpu", False, False]]]


def test_node_reached_through_next_functions_knows_its_output():
    # the tensor between the two nodes is gone: the consumer's record of its input tells
    def s(T):
        x = T.rand(2, 3, requires_grad=True)
        y = (x.t() * 2).sum()
        mul = y.grad_fn.next_functions[0][0]
        t = mul.next_functions[0][0]
        return [mul.name(), _meta(mul), t.name(), _meta(t), _meta(t.next_functions[0][0])]
    assert both(s) == ["MulBackward0", [[[3, 2], "torch.float32", "cpu", False, False]], "TBackward0",
                       [[[3, 2], "torch.float32", "cpu", False, False]], [[[2, 3], "torch.float32", "cpu", False, False]]]


def test_views_copy_slices_and_custom_functions():
    def s(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x.sum()

            @staticmethod
            def backward(ctx, a, b):
                return a

        x = T.rand(4, requires_grad=True)
        c = x.clone()
        c[1:3] = 0
        out = F.apply(x)
        return [_meta(x[::2].grad_fn), _meta(c.grad_fn), _meta(out[0].grad_fn)]
    assert both(s) == [[[[2], "torch.float32", "cpu", False, False]], [[[4], "torch.float32", "cpu", False, False]],
                       [[[4], "torch.float32", "cpu", False, False], [[], "torch.float32", "cpu", False, False]]]


def test_metadata_outlives_the_backward_and_is_torchs_type():
    x = ndgrad.rand(2, requires_grad=True)
    y = (x * 2).sum()
    fn = y.grad_fn
    y.backward()
    m, = fn._input_metadata
    assert type(m) is ndgrad._C._autograd._InputMetadata and m.shape == [] and m.dtype == ndgrad.float32
    assert repr(m).startswith("<torch._C._autograd._InputMetadata object at 0x")
    assert isinstance(ndgrad.autograd.graph.Node.__dict__["_input_metadata"], property)


def test_nested_jagged_tensor_keeps_its_ragged_size():
    def s(T):
        nt = T.nested.nested_tensor([T.randn(3, 2), T.randn(2, 2)], layout=T.jagged, requires_grad=True)
        m, = nt.clone().grad_fn._input_metadata
        return [isinstance(m.shape[1], T.SymInt), m.shape == list(nt.shape), m.is_nested_tensor,
                m.is_cpp_nested_tensor, str(m.dtype), isinstance(3, T.SymInt)]
    assert both(s) == [True, True, True, False, "torch.float32", False]
    with pytest.raises(TypeError):
        ndgrad.SymInt()


# --- saved metadata under torch's names --------------------------------------------------------------
def _saved(fn):
    return {n: getattr(fn, n) for n in dir(fn) if n.startswith("_saved_") and n not in ("_saved_names",
                                                                                       "_saved_tensor_idx")
            and not n.startswith("_saved_arrays") and not callable(getattr(fn, n))
            and not isinstance(getattr(fn, n), (ndgrad.Tensor, type(None)) + (() if _torch is None else (_torch.Tensor,)))}


try:
    import torch as _torch
except ImportError:
    _torch = None


@pytest.mark.parametrize("call", ["index", "mean", "sum_dim", "expand", "select", "narrow", "view", "addbmm",
                                  "unfold", "conv_bias", "conv_no_bias", "channel_shuffle", "adaptive_pool_grad",
                                  "mm", "addmm"])
def test_metadata_a_formula_reads_is_saved_under_torchs_name(call):
    def s(T):
        a = T.ones(2, 3, requires_grad=True)
        img = T.ones(1, 1, 3, 3, requires_grad=True)
        out = {"index": lambda: a[:, T.tensor([0, 2])], "mean": lambda: a.mean(), "sum_dim": lambda: a.sum(0),
               "expand": lambda: a[:1].expand(4, 3), "select": lambda: a[1], "narrow": lambda: a[:, 1:],
               "view": lambda: a.view(6), "addbmm": lambda: T.addbmm(a[:, :2], a.view(1, 2, 3), a.view(1, 3, 2)),
               "unfold": lambda: T.nn.functional.unfold(img, 2),
               "conv_bias": lambda: T.nn.functional.conv2d(img, T.ones(2, 1, 2, 2), T.zeros(2)),
               "conv_no_bias": lambda: T.nn.functional.conv2d(img, T.ones(2, 1, 2, 2)),
               "channel_shuffle": lambda: T.nn.functional.channel_shuffle(T.ones(1, 4, 2, requires_grad=True), 2),
               "adaptive_pool_grad": lambda: T.autograd.grad(T.nn.functional.adaptive_avg_pool2d(img, 2).sum(), img,
                                                             create_graph=True)[0],
               "mm": lambda: a.t() @ a, "addmm": lambda: T.addmm(T.zeros(3), a.t(), a, alpha=2)}[call]()
        fn = out.grad_fn
        return sorted([n, v, type(v) is int or type(v) is tuple and all(type(d) is int for d in v)]
                      for n, v in _saved(fn).items() if "sym" in n)
    got = both(s)
    assert all(ints for _, _, ints in got)   # as ints
    # each saves some (channel_shuffle's formula reads the gradient's size: nothing of self is saved)
    assert bool(got) == (call != "channel_shuffle")


def test_saved_sizes_are_plain_ints_and_survive_backward():
    def s(T):
        a = T.ones(2, 2, requires_grad=True)
        out = a[:, T.tensor([0, 1])]
        sizes = out.grad_fn._saved_self_sym_sizes
        m = a.mean()
        m.backward()
        return [sizes, type(sizes).__name__, type(sizes[0]) is int, m.grad_fn._saved_self_sym_sizes,
                m.grad_fn._saved_self_sym_numel]
    assert both(s) == [[2, 2], "tuple", True, [2, 2], 4]


def test_saved_sizes_read_without_the_saved_tensors_version_check():
    def s(T):
        a = T.ones(2, 3, requires_grad=True)
        idx = T.tensor([0, 2])
        fn = a[:, idx].grad_fn
        idx.add_(0)   # a saved tensor modified in place: unpacking it would raise, its neighbour's sizes do not
        return fn._saved_self_sym_sizes
    assert both(s) == [2, 3]


def test_an_argument_read_for_its_sizes_only_is_not_exposed_whole():
    def s(T):
        fn = T.ones(2, 3, requires_grad=True).sum().grad_fn
        return [hasattr(fn, "_saved_self"), hasattr(fn, "_raw_saved_self"), hasattr(fn, "_saved_self_sym_sizes")]
    assert both(s) == [False, False, True]


def test_absent_optional_tensor_sizes_read_as_torchs_zero():
    def s(T):
        img = T.ones(1, 1, 3, 3, requires_grad=True)
        return [T.nn.Conv2d(1, 1, 3)(img).grad_fn._saved_bias_sym_sizes_opt,
                T.nn.Conv2d(1, 1, 3, bias=False)(img).grad_fn._saved_bias_sym_sizes_opt]
    assert both(s) == [[1], [0]]


@pytest.mark.parametrize("mode, size", [("linear", 3), ("nearest", 3), ("nearest-exact", 3), ("bilinear", 4),
                                        ("bicubic", 4), ("trilinear", 5)])
def test_upsample_nodes_save_torchs_arguments(mode, size):
    def s(T):
        x = T.ones(*(1, 1) + (4,) * (size - 2), requires_grad=True)
        by_scale = T.nn.functional.interpolate(x, scale_factor=0.5, mode=mode)
        by_size = T.nn.functional.interpolate(x, size=3, mode=mode)
        return [by_scale.grad_fn.name(), sorted(_saved(by_scale.grad_fn).items()),
                sorted(_saved(by_size.grad_fn).items()), sorted(n for n in dir(by_size.grad_fn) if "scale" in n)]
    got = both(s)
    assert ("_saved_align_corners" in dict(got[1])) == (mode not in ("nearest", "nearest-exact"))
    assert all(v == 0.5 and type(v) is float for n, v in got[1] if n.startswith("_saved_scales"))


def test_float_arguments_read_as_floats_and_scalars_as_numbers():
    def s(T):
        a = T.ones(3, 2, requires_grad=True)
        p = T.pdist(a, p=1).grad_fn._saved_p
        x = T.zeros(5, requires_grad=True)
        kinds = [type(T.threshold(x, threshold=t, value=v).grad_fn._saved_threshold).__name__
                 for t, v in [(1 + 0j, 1 + 0j), (T.tensor(1 + 0j, dtype=T.complex64), 1 + 0j), (1.0, 1.0), (1, 1),
                              (False, False)]]
        return [p, type(p).__name__, kinds]
    assert both(s) == [1.0, "float", ["complex", "complex", "float", "int", "bool"]]


@pytest.mark.parametrize("form", ["x.var()", "x.var(0)", "x.var(unbiased=False)", "x.var(True)", "x.var(dim=0)",
                                  "x.var(correction=None)", "x.var(correction=2)", "x.var(None)", "x.std()",
                                  "T.var_mean(x)[0]", "T.std_mean(x, 0)[0]", "T.var(x, 0, keepdim=True)"])
def test_var_and_std_save_the_correction_as_torch_reads_it(form):
    """The correction overload keeps None where no correction is given to it (x.var(): torch's default, 1);
    the unbiased forms save 0 or 1: the same value, gradient and saved correction as torch."""
    def s(T):
        x = T.tensor([0.5, -1.0, 2.0, 3.5], requires_grad=True)
        v = eval(form, {"T": T, "x": x})   # noqa: S307 - the forms above
        saved = repr(v.grad_fn._saved_correction)
        v.sum().backward()
        return [saved, v.detach(), x.grad]
    both(s)


def test_threshold_takes_a_complex_scalar_without_imaginary_part():
    def s(T):
        x = T.tensor([0.0, 2.0], requires_grad=True)
        y = T.threshold(x, 1 + 0j, 5 + 0j)
        y.sum().backward()
        return [y, x.grad]
    np.testing.assert_allclose(both(s), [[5.0, 2.0], [0.0, 1.0]])
    same_error(lambda T: T.threshold(T.zeros(2), 1 + 1j, 0.0))


def test_div_without_rounding_records_torchs_node_and_true_division():
    def s(T):
        a = T.tensor([1.0, -3.0], requires_grad=True)
        b = T.tensor([2.0, 4.0], requires_grad=True)
        y = T.div(a, b, rounding_mode=None)
        z = a.div(2.0, rounding_mode="trunc")
        modes = [y.grad_fn._saved_rounding_mode, z.grad_fn._saved_rounding_mode]
        (y.sum() + z.sum()).backward()
        ints = T.div(T.tensor([3]), T.tensor([2]), rounding_mode=None)
        return [y.grad_fn.name()] + modes + [y, a.grad, b.grad, ints, str(ints.dtype)]
    got = both(s)
    assert got[:3] == ["DivBackward2", None, "trunc"]
    np.testing.assert_allclose(got[4], [0.5, 0.25])


def test_as_strided_saves_torchs_storage_offset_and_differentiates_from_it():
    def s(T):
        base = T.arange(12.0).requires_grad_()
        v = base[2:]
        o = v.as_strided((3,), (2,), 5)
        plain = v.as_strided((2, 2), (1, 3))
        (o * T.tensor([1.0, 2.0, 3.0])).sum().backward(retain_graph=True)
        g = base.grad.clone()
        base.grad = None
        plain.sum().backward()
        return [o, o.grad_fn._saved_storage_offset, plain.grad_fn._saved_storage_offset, g, base.grad]
    got = both(s)
    assert got[1:3] == [5, None]
    np.testing.assert_allclose(got[3], [0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0])


def test_has_lapack():
    assert ndgrad._C.has_lapack is True


@pytest.mark.parametrize("which", ["weight", "input"])
def test_mm_keeps_a_column_major_operands_layout_in_its_gradient_as_torch(which):
    """A weight used transposed (a Linear's) gets a gradient laid out as the weight, not transposed; the
    same for a column-major first operand. Strides, values (complex: conjugates) and the saved metadata
    (an argument's strides only where it requires grad, as torch's)."""
    def s(T):
        out = []
        for dtype in (T.float64, T.complex128):
            g = T.Generator().manual_seed(0)
            x = T.randn(5, 30, generator=g, dtype=dtype, requires_grad=which == "input")
            w = T.randn(20, 30, generator=g, dtype=dtype, requires_grad=which == "weight")
            b = T.randn(20, generator=g, dtype=dtype)
            leaf = w if which == "weight" else x
            for y in (x @ w.t(), T.addmm(b, x, w.t(), alpha=3), T.nn.functional.linear(x, w, b),
                      (w @ x.t()).t() if which == "input" else x @ w.t()):
                (grad,) = T.autograd.grad(y.abs().sum(), leaf)
                out += [grad, grad.stride(), grad.is_contiguous(), y.grad_fn.name()]
            fn = (x.t().t() @ w.t()).grad_fn
            out += [fn._saved_self_sym_sizes, fn._saved_mat2_sym_sizes, (fn._saved_self is None, fn._saved_mat2 is None),
                    fn._saved_self_sym_strides, fn._saved_mat2_sym_strides]   # strides: () where no grad is needed
        return out
    got = both(s)
    assert all(c for c in got[2::4][:4])   # contiguous, as the leaf
