"""The engine's array path (derivatives/array_formulas.py, GeneratedNode._apply_arrays): a plain
backward runs the yaml formulas on NumPy arrays. It must give bitwise the Tensor path's numbers, and
hand every node something observes (hooks, retain_grad, create_graph, anomaly mode, custom
Functions, saved-tensor hooks, in-place checks) back to the Tensor path."""
import warnings

import numpy as np
import pytest

import ndgrad
from ndgrad.derivatives import ENTRIES
from ndgrad.derivatives.loader import array_forms
from op_db import S, all_ops
from parity import both, same_error

OPS = [o for o in all_ops() if o.check_grad]
DTYPES = ["float64", "float32", "complex128"]


def _same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and \
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def _inputs(info, dtype):
    """The sample's inputs with its float64 tensors in `dtype` (None if the op refuses them)."""
    out = []
    for spec, a in zip(info.inputs, info.arrays()):
        if isinstance(spec, S):
            if spec.dtype == "float64":
                a = a.astype(dtype)
            out.append(ndgrad.tensor(a.copy()).requires_grad_(spec.requires_grad))
        elif hasattr(spec, "array"):
            out.append(ndgrad.tensor(a.copy()))
        else:
            out.append(a)
    return out


def _outputs(info, inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = info.call(ndgrad, *inputs)
        except Exception:  # noqa: BLE001 - a dtype this op refuses: not a sample for that dtype
            return None
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, ndgrad.Tensor) and o.grad_fn is not None and o.layout == ndgrad.strided
            and not o.is_nested]


def _grads_for(node, out, rng):
    """Random gradients (arrays) for each output of `node`, from its output metadata (several
    outputs) or the output tensor `out` (one)."""
    metas = node._out_meta or [(tuple(out.shape), out._array.dtype)]
    grads = []
    for shape, dt in metas:
        if dt.kind not in "fc":   # (an integer output, max's indices: no gradient, as in backward)
            grads.append(None)
            continue
        a = rng.standard_normal(shape)
        if dt.kind == "c":
            a = a + 1j * rng.standard_normal(shape)
        grads.append(np.asarray(a, dtype=dt))
    return grads


def test_every_array_formula_matches_its_tensor_formula_bit_for_bit():
    """Drives the op registry: the node of every sample's output (three dtypes) whose entry has array
    formulas is run both ways on the same gradients; where the array path accepts, the results are
    bitwise the Tensor path's (as arrays: same dtype, shape, bytes)."""
    rng = np.random.default_rng(0)
    ran, compared, mismatches = set(), 0, []
    for info in OPS:
        for dtype in DTYPES:
            inputs = _inputs(info, dtype)
            outs = _outputs(info, inputs)
            if not outs:
                continue
            for out in outs:   # the op's own nodes: their outputs' shapes are known
                node = out.grad_fn
                if node._apply_arrays is None or node._saved is None:
                    continue
                grads = _grads_for(node, out, rng)
                if grads is None:
                    continue
                mask = [f is not None for f, _ in node.next_functions]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    arrays = node._apply_arrays(list(grads), mask)
                    if arrays is None:
                        continue
                    with ndgrad.no_grad():
                        try:
                            tensors = node._apply([None if g is None else ndgrad.Tensor._make(g, False, None, 0)
                                                   for g in grads], mask, False)
                        except Exception as e:  # noqa: BLE001
                            mismatches.append((info.name, dtype, node.name(), f"Tensor path raised {e!r}"))
                            continue
                compared += 1
                ran.add(node.name())
                for a, t in zip(arrays, tensors):
                    if (a is None) != (t is None):
                        mismatches.append((info.name, dtype, node.name(), "None differs"))
                    elif a is not None and not _same_bits(a, t.resolve_conj().resolve_neg()._array):
                        mismatches.append((info.name, dtype, node.name(), "values differ"))
    assert not mismatches, mismatches[:20]
    # the path is exercised broadly (not silently falling back everywhere)
    assert compared > 300 and len(ran) > 60, (compared, sorted(ran))
    for name in ("MulBackward0", "TanhBackward0", "SumBackward0", "MmBackward0", "AddmmBackward0", "TBackward0",
                 "ReluBackward0", "ExpandBackward0", "ViewBackward0", "AddBackward0", "DivBackward0",
                 # formulas.py helpers compiled for the array path (loader.helper_form)
                 "PowBackward0", "WhereBackward0", "MeanBackward1", "ClampBackward1", "RsubBackward1",
                 "VarBackward0", "StdBackward0", "SiluBackward0", "SplitBackward0", "UnbindBackward0",
                 "MaxBackward0", "CumsumBackward0", "FlipBackward0", "IndexBackward0", "ToCopyBackward0",
                 "ConstantPadNdBackward0", "RepeatBackward0", "EmbeddingBackward0", "LogsumexpBackward0"):
        assert name in ran, name


@pytest.mark.parametrize("how", ["backward", "grad"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_whole_backward_equals_the_tensor_path(dtype, how):
    """Every sample's backward (or autograd.grad), as the engine runs it (arrays between nodes, sums
    of gradients, sum_to, AccumulateGrad or captured edges), equals bit for bit the same backward in
    anomaly mode, which runs every node on Tensors."""
    rng = np.random.default_rng(1)
    checked, mismatches = 0, []
    for info in OPS:
        results = []
        for anomaly in (False, True):
            ndgrad.manual_seed(info.seed)   # (random ops: the same forward twice)
            inputs = _inputs(info, dtype)
            outs = _outputs(info, inputs)
            if not outs:
                break
            if not results:
                seeds = [(rng.standard_normal(o.shape) + (1j * rng.standard_normal(o.shape)
                                                           if o._array.dtype.kind == "c" else 0)).astype(o._array.dtype)
                         for o in outs]
            pairs = [(o, ndgrad.tensor(s)) for o, s in zip(outs, seeds) if s.dtype.kind in "fc"]
            if not pairs:
                break
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    with ndgrad.autograd.detect_anomaly(check_nan=False) if anomaly else _nothing():
                        if how == "backward":
                            ndgrad.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
                            grads = [t.grad if isinstance(t, ndgrad.Tensor) else None for t in inputs]
                        else:
                            leaves = [t for t in inputs if isinstance(t, ndgrad.Tensor) and t.requires_grad]
                            grads = ndgrad.autograd.grad([o for o, _ in pairs], leaves, [g for _, g in pairs],
                                                         allow_unused=True)
                except Exception as e:  # noqa: BLE001 - both paths must raise the same
                    results.append(repr(e))
                    continue
            results.append([None if g is None else g.resolve_conj().resolve_neg()._array for g in grads])
        if len(results) != 2:
            continue
        a, b = results
        checked += 1
        if isinstance(a, str) or isinstance(b, str):
            if a != b:
                mismatches.append((info.name, a, b))
            continue
        if any((x is None) != (y is None) or x is not None and not _same_bits(x, y) for x, y in zip(a, b)):
            mismatches.append(info.name)
    assert not mismatches, mismatches
    assert checked > 200


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_entries_with_array_formulas():
    """The common ops' entries have array forms; an entry whose formula uses a name without one
    (a Tensor-only helper) keeps its Tensor formulas alone."""
    for name in ("add.Tensor", "mul.Tensor", "sub.Tensor", "div.Tensor", "tanh", "sigmoid", "exp", "relu",
                 "threshold_backward", "sum", "sum.dim_IntList", "mm", "addmm", "t", "view", "expand",
                 "transpose.int", "neg"):
        assert array_forms(ENTRIES[name].node_cls), name
        assert ENTRIES[name].node_cls._apply_arrays is not None, name
    assert not array_forms(ENTRIES["cat"].node_cls)
    assert ENTRIES["cat"].node_cls._apply_arrays is None
    assert not array_forms(ENTRIES["linalg_qr"].node_cls)   # (a helper without an array form)


# ---- what the array path hands back to the Tensor path --------------------------------------

def _chain(T, dtype=None):
    x = T.tensor([0.5, -1.0, 2.0], dtype=dtype or T.float64, requires_grad=True)
    return x, T.tanh(x * 1.5)


def test_tensor_hook_on_an_intermediate_sees_a_tensor_and_changes_the_gradient():
    def scenario(T):
        x, y = _chain(T)
        seen = []
        y.register_hook(lambda g: seen.append(type(g).__name__) or g * 2)
        (y * y).sum().backward()
        assert seen == ["Tensor"]
        return x.grad
    both(scenario)


def test_retain_grad_gives_the_intermediate_gradient():
    def scenario(T):
        x, y = _chain(T)
        m = x * 3.0
        m.retain_grad()
        z = T.sin(m) * y
        z.sum().backward()
        return [m.grad, x.grad]
    out = both(scenario)
    assert out[0] is not None


def test_node_hooks_get_tensors():
    def scenario(T):
        x, y = _chain(T)
        got = []
        y.grad_fn.register_prehook(lambda go: got.append(type(go[0]).__name__))
        y.grad_fn.register_hook(lambda gi, go: got.append(type(gi[0]).__name__))
        y.sum().backward()
        assert got == ["Tensor", "Tensor"]
        return x.grad
    both(scenario)


def test_create_graph_gives_a_differentiable_gradient():
    def scenario(T):
        x, y = _chain(T)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        assert g.grad_fn is not None
        g.sum().backward()
        return x.grad
    both(scenario)


def test_anomaly_mode_reports_the_failing_node():
    def call(T):
        x = T.tensor([1.0, 0.0], requires_grad=True)
        with T.autograd.detect_anomaly():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                (x.sqrt() * 0.0).sum().backward()
    msg = same_error(call)
    assert "SqrtBackward0" in msg


def test_custom_function_in_the_middle_gets_tensors():
    def scenario(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                assert isinstance(g, T.Tensor)
                return g * 2

        x, y = _chain(T)
        T.tanh(Double.apply(y) * 0.5).sum().backward()
        return x.grad
    both(scenario)


def test_retain_graph_runs_twice_and_a_freed_graph_raises():
    def scenario(T):
        x, y = _chain(T)
        s = y.sum()
        s.backward(retain_graph=True)
        first = x.grad.clone()
        s.backward()
        return [first, x.grad]
    first, second = both(scenario)
    assert np.array_equal(second, 2 * first)

    def call(T):
        x, y = _chain(T)
        s = y.sum()
        s.backward()
        s.backward()
    assert "second time" in same_error(call)


def test_saved_tensor_modified_in_place_raises_torchs_error():
    def call(T):
        x = T.tensor([0.5, 1.0], requires_grad=True)
        y = x.tanh()
        y.mul_(2)
        y.sum().backward()
    assert "modified by an inplace operation" in same_error(call)


def test_saved_tensor_hooks_see_the_unpack():
    def scenario(T):
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        unpacked = []
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: unpacked.append(1) or t):
            y = T.tanh(x * x)
        y.sum().backward()
        assert len(unpacked) >= 2
        return x.grad
    both(scenario)


def test_mixed_dtypes_promote_as_torch():
    def scenario(T):
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float32, requires_grad=True)
        w = T.tensor(1.1, dtype=T.float64, requires_grad=True)   # a 0-d float64 does not lift float32
        y = T.tanh(x * w) * T.tensor(3, dtype=T.int64)
        y.sum().backward()
        assert x.grad.dtype == T.float32 and w.grad.dtype == T.float64
        return [x.grad, w.grad]
    both(scenario, rtol=1e-6)


def test_broadcasting_non_contiguous_and_empty():
    def scenario(T):
        a = T.linspace(-2.0, 2.0, 12, dtype=T.float64).reshape(4, 3).requires_grad_()
        b = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        e = T.zeros(0, 3, dtype=T.float64, requires_grad=True)
        y = (a * b).t()                                  # a transposed (non-contiguous) gradient flows back
        z = T.tanh(y).mm(T.ones(4, 2, dtype=T.float64)) + 1
        (z.sum() + (e * b).sum()).backward()
        return [a.grad, b.grad, e.grad]
    out = both(scenario)
    assert out[2].shape == (0, 3)


def test_a_gradient_kept_as_grad_is_not_shared():
    """AccumulateGrad keeps the engine's gradient as .grad where nothing else holds it; an array
    reaching two leaves (add passes one gradient to both inputs) is copied, so the two .grad differ."""
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    w = ndgrad.tensor([3.0, 4.0], requires_grad=True)
    (x + w).sum().backward()
    assert x.grad._array is not w.grad._array
    x.grad.add_(1)
    assert w.grad.tolist() == [1.0, 1.0]


def test_a_broadcast_bias_gradient_summed_by_the_engine_is_kept_without_a_copy(monkeypatch):
    """The engine sums a broadcast input's gradient to its shape (a bias's); nothing else holds that sum,
    so AccumulateGrad keeps it as .grad: no copy, for the weight's gradient nor the bias's."""
    from ndgrad.autograd import node as node_module
    copies = []
    real = node_module.dense_like

    def counting(array, like, copy=False):
        copies.append(copy)
        return real(array, like, copy=copy)
    monkeypatch.setattr(node_module, "dense_like", counting)
    w = ndgrad.ones(3, 2, requires_grad=True)
    b = ndgrad.zeros(2, requires_grad=True)
    (ndgrad.ones(4, 3) @ w + b).sum().backward()
    assert b.grad.tolist() == [4.0, 4.0] and w.grad.tolist() == [[4.0, 4.0]] * 3
    assert copies and not any(copies)


def test_user_gradient_is_not_modified_nor_aliased():
    x = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    g = ndgrad.tensor([5.0, 6.0])
    y = x * 1.0 + 0.0
    y.backward(g)
    x.grad.mul_(2)
    assert g.tolist() == [5.0, 6.0]


def test_a_scaled_sum_runs_on_arrays():
    """maybe_multiply(grad, alpha) with alpha != 1 (add's other, addmm's alpha) has its array form."""
    def scenario(T):
        a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        b = T.tensor([3.0, -1.0], dtype=T.float64, requires_grad=True)
        T.add(a, b, alpha=2.5).sum().backward()
        return [a.grad, b.grad]
    ga, gb = both(scenario)
    assert ga.tolist() == [1.0, 1.0] and gb.tolist() == [2.5, 2.5]
    a = ndgrad.tensor([1.0, 2.0], dtype=ndgrad.float64, requires_grad=True)
    b = ndgrad.tensor([3.0, -1.0], dtype=ndgrad.float64, requires_grad=True)
    node = ndgrad.add(a, b, alpha=2.5).grad_fn
    out = node._apply_arrays([np.array([1.0, 4.0])], [True, True])
    assert out is not None and out[1].tolist() == [2.5, 10.0]


def test_a_saved_parameter_runs_on_arrays():
    """A module's weight is an nn.Parameter: the nodes that save it (a convolution's) still run their
    array formulas, with torch's gradients."""
    def scenario(T):
        conv = T.nn.Conv2d(2, 3, 3, padding=1)
        with T.no_grad():
            conv.weight.copy_(T.arange(54, dtype=T.float32).reshape(3, 2, 3, 3) / 50)
            conv.bias.fill_(0.5)
        x = T.arange(32, dtype=T.float32).reshape(1, 2, 4, 4).requires_grad_()
        conv(x).pow(2).sum().backward()
        return [x.grad, conv.weight.grad, conv.bias.grad]
    gx, gw, gb = both(scenario, rtol=1e-5, atol=1e-5)
    assert gx.shape == (1, 2, 4, 4) and gw.shape == (3, 2, 3, 3) and gb.shape == (3,)
    conv = ndgrad.nn.Conv2d(2, 3, 3, padding=1)
    node = conv(ndgrad.ones(1, 2, 4, 4)).grad_fn
    assert type(node).__name__ == "ConvolutionBackward0"
    out = node._apply_arrays([np.ones((1, 3, 4, 4), np.float32)], [False, True, True])
    assert out is not None and out[1].shape == (3, 2, 3, 3)


def test_a_broadcast_gradient_is_summed_on_the_array_path(monkeypatch):
    """addmm's bias gradient arrives broadcast (batch x features): the engine sums it to the bias's
    shape on arrays, the reduction the Tensor path runs, without going through Tensors."""
    def scenario(T):
        x = T.linspace(-1, 1, 12, dtype=T.float64).reshape(4, 3)
        w = T.linspace(0, 1, 6, dtype=T.float64).reshape(2, 3).requires_grad_()
        b = T.tensor([0.5, -0.5], dtype=T.float64, requires_grad=True)
        (T.nn.functional.linear(x, w, b) ** 2).sum().backward()
        return [w.grad, b.grad]
    expected = both(scenario)
    from ndgrad.autograd import engine

    def refuse(*args):
        raise AssertionError("fit_to_input ran: the gradient went through the Tensor path")
    monkeypatch.setattr(engine, "fit_to_input", refuse)
    got = scenario(ndgrad)
    assert all(_same_bits(g.numpy(), e) for g, e in zip(got, expected))
