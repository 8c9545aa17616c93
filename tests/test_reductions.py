"""Reductions beyond the op registry: argument forms, named-tuple results, errors, the gradient
rules at ties and zeros, and multi-output nodes end to end."""
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both, same_error
from ndgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the comparisons with torch skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def leaf(data):
    return ndgrad.tensor(data, dtype=ndgrad.float64, requires_grad=True)


# ---- argument errors ----------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda x: x.sum(2), lambda x: x.sum((0, -3)), lambda x: x.mean(2), lambda x: x.max(2), lambda x: x.amax(2),
    lambda x: x.argmax(-3), lambda x: x.var(2), lambda x: x.logsumexp(2), lambda x: x.cumsum(2),
    lambda x: x.prod(2), lambda x: x.norm(2, 2), lambda x: x.median(2),
])
def test_dim_out_of_range_is_index_error(call):
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got"):
        call(ndgrad.ones(2, 3))


def test_repeated_dim_is_rejected():
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        ndgrad.ones(2, 3).sum((0, -2))


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_max_of_empty_tensor_needs_a_dim(name):
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): Expected reduction dim to be specified for input.numel"):
        getattr(ndgrad.ones(0, 2), name)()


@pytest.mark.parametrize("shape, dims", [((0,), 0), ((0, 2), (0, 1))])
def test_amin_over_all_dims_given_of_an_empty_tensor_names_the_empty_dim(shape, dims):
    # dims that cover the whole tensor are still given: torch's empty-dim error (found by test_fuzz)
    with pytest.raises(IndexError, match=r"^amin\(\): Expected reduction dim 0 to have non-zero size."):
        ndgrad.ones(*shape).amin(dims)


@pytest.mark.parametrize("name", ["max", "min", "amax", "median", "argmax"])
def test_max_over_empty_dim_is_index_error(name):
    with pytest.raises(IndexError, match=rf"^{name}\(\): Expected reduction dim 0 to have non-zero size."):
        getattr(ndgrad.ones(0, 2), name)(0)


def test_max_over_empty_tensor_along_nonempty_dim_is_empty():
    values, indices = ndgrad.ones(0, 2).max(1)
    assert values.shape == (0,) and indices.shape == (0,) and indices.dtype == ndgrad.int64


def test_mean_of_integers_needs_a_float_dtype():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype.*Got: Long"):
        ndgrad.tensor([1, 2]).mean()
    assert ndgrad.tensor([1, 2]).mean(dtype=ndgrad.float64).item() == 1.5


def test_var_of_integers_is_rejected():
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex dtypes"):
        ndgrad.tensor([1, 2]).var()


def test_var_without_degrees_of_freedom_warns_and_is_nan():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        v = ndgrad.ones(1).var()
    assert np.isnan(v.item())


def test_keepdim_needs_a_dim():
    with pytest.raises(TypeError):
        ndgrad.ones(2).sum(keepdim=True)
    with pytest.raises(TypeError):
        ndgrad.ones(2).max(keepdim=True)


def test_norm_orders_without_a_vector_norm():
    assert ndgrad.ones(2, 2).norm("nuc").item() == pytest.approx(2.0)   # nuclear norm: singular values 2, 0
    with pytest.raises(RuntimeError, match="Order abc not supported"):
        ndgrad.ones(2, 2).norm("abc")
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        ndgrad.tensor([1, 2]).norm()


def test_kthvalue_k_out_of_range():
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range for dimension 1"):
        ndgrad.ones(2, 3).kthvalue(4)


def test_inf_norm_of_empty_tensor_has_no_identity():
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        ndgrad.ones(0).norm(float("inf"))


# ---- results ------------------------------------------------------------------------------
def test_max_dim_returns_values_and_indices():
    x = leaf([[0.1, 0.7, -0.3], [0.9, 0.2, 0.4]])
    out = x.max(1)
    values, indices = out
    assert isinstance(out, tuple) and out.values is values and out.indices is indices
    assert values.tolist() == [0.7, 0.9] and indices.tolist() == [1, 0]
    assert values.grad_fn.name() == "MaxBackward0"
    assert indices.dtype == ndgrad.int64 and not indices.requires_grad and indices.grad_fn is None
    assert repr(out).startswith("torch.return_types.max(\nvalues=tensor(")


def test_aminmax_fields():
    out = ndgrad.aminmax(ndgrad.tensor([[3.0, -1.0], [2.0, 5.0]]), dim=0)
    assert out.min.tolist() == [2.0, -1.0] and out.max.tolist() == [3.0, 5.0]


def test_var_mean_is_a_plain_pair():
    out = ndgrad.var_mean(leaf([1.0, 2.0, 4.0]))
    assert type(out) is tuple and len(out) == 2
    assert [t.grad_fn.name() for t in out] == ["VarMeanBackward0", "VarMeanBackward0"]


def test_sum_of_integers_accumulates_in_int64():
    assert ndgrad.tensor([200, 100], dtype=ndgrad.uint8).sum().dtype == ndgrad.int64
    assert ndgrad.tensor([True, True]).cumsum(0).dtype == ndgrad.int64


def test_median_is_the_lower_middle_value():
    assert ndgrad.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0


def test_mode_prefers_the_smallest_most_frequent_value_at_its_last_position():
    values, indices = ndgrad.tensor([[1.0, 3.0, 2.0, 3.0, 2.0, 0.0]]).mode(1)
    assert values.tolist() == [2.0] and indices.tolist() == [4]


def test_cummax_indices_follow_the_latest_tie():
    assert ndgrad.tensor([1.0, 3.0, 3.0, 2.0]).cummax(0).indices.tolist() == [0, 1, 2, 2]


def test_nanmedian_skips_nans():
    assert ndgrad.tensor([1.0, float("nan"), 3.0, 2.0]).nanmedian().item() == 2.0


# ---- gradient rules -----------------------------------------------------------------------
def test_amax_ties_share_the_gradient():
    x = leaf([1.0, 3.0, 3.0, 3.0])
    x.amax().backward()
    assert np.allclose(x.grad.numpy(), [0, 1 / 3, 1 / 3, 1 / 3])


def test_max_dim_ties_give_the_gradient_to_the_first_index():
    x = leaf([[1.0, 3.0, 3.0]])
    x.max(1).values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0]]


def test_prod_gradient_with_one_zero_is_the_product_of_the_others():
    x = leaf([2.0, 0.0, 3.0])
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]


def test_prod_gradient_with_two_zeros_is_zero():
    x = leaf([[2.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    x.prod(1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [6.0, 3.0, 2.0]]


def test_cumprod_gradient_through_zeros():
    x = leaf([2.0, 0.0, 3.0, 0.0])
    x.cumprod(0).sum().backward()
    # d/dx1 of 2*x1 + 2*x1*3 + 2*x1*3*x3 = 2 + 6; later elements only meet the zero
    assert x.grad.tolist() == [1.0, 8.0, 0.0, 0.0]


@pytest.mark.parametrize("op", [lambda x: x.cumprod(1), lambda x: x.prod(1), lambda x: x.prod()])
def test_zeros_keep_higher_derivatives_exact(op):
    x = leaf([[0.0, 0.5, -0.7, 0.0, 0.3], [0.4, 0.0, 0.8, 0.9, -0.6]])
    assert gradgradcheck(op, [x])


def test_norm_2_of_zero_vector_has_zero_gradient():
    x = leaf([0.0, 0.0])
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_norm_0_passes_no_gradient():
    x = leaf([0.5, 0.0])
    assert ndgrad.autograd.grad(x.norm(0), [x], allow_unused=True) == (None,)


def test_std_of_constant_has_zero_gradient():
    x = leaf([2.0, 2.0, 2.0])
    x.std().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_sum_dtype_gradient_comes_back_in_the_input_dtype():
    x = ndgrad.tensor([1.0, 2.0], dtype=ndgrad.float32, requires_grad=True)
    x.sum(dtype=ndgrad.float64).backward()
    assert x.grad.dtype == ndgrad.float32 and x.grad.tolist() == [1.0, 1.0]


# ---- multi-output nodes -------------------------------------------------------------------
def test_var_mean_backward_through_each_output_and_both():
    data = [[1.0, 2.0, 4.0], [0.0, 5.0, 2.0]]
    x = leaf(data)
    var, mean = ndgrad.var_mean(x, 1)
    (g_var,) = ndgrad.autograd.grad(var.sum(), [x], retain_graph=True)
    (g_mean,) = ndgrad.autograd.grad(mean.sum(), [x], retain_graph=True)
    (g_both,) = ndgrad.autograd.grad((var + mean).sum(), [x])
    a = np.array(data)
    assert np.allclose(g_var.numpy(), 2 * (a - a.mean(1, keepdims=True)) / 2)
    assert np.allclose(g_mean.numpy(), 1 / 3)
    assert np.allclose(g_both.numpy(), g_var.numpy() + g_mean.numpy())


@pytest.mark.parametrize("op", [
    lambda x: ndgrad.var_mean(x, 1, correction=0), lambda x: ndgrad.std_mean(x, 0), lambda x: x.aminmax(dim=1),
    lambda x: x.max(1), lambda x: x.median(0),
])
def test_multi_output_ops_pass_gradcheck_and_gradgradcheck(op):
    x = leaf([[0.3, -0.8, 0.5, 0.1], [0.9, 0.2, -0.4, 0.6], [-0.1, 0.7, 0.25, -0.6]])
    assert gradcheck(op, [x])
    assert gradgradcheck(op, [x])


@needs_torch
def test_cumprod_third_derivative_through_zeros_matches_torch():
    data = [0.5, 0.0, -0.7, 0.0, 0.3]

    def third(T):
        x = T.tensor(data, dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(x.cumprod(0).sum(), [x], create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), [x], create_graph=True)
        (ggg,) = T.autograd.grad((gg * gg).sum(), [x])
        return ggg.detach().numpy()
    assert np.allclose(third(ndgrad), third(torch))


@needs_torch
def test_var_correction_warning_matches_torch_values():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for corr in (0, 1, 2.5, 5):
            a = ndgrad.tensor([[1.0, 2.0, 4.0]]).var(1, correction=corr)
            b = torch.tensor([[1.0, 2.0, 4.0]]).var(1, correction=corr)
            assert np.allclose(a.numpy(), b.numpy(), equal_nan=True)


def test_logsumexp_of_complex_input_takes_the_conjugate_in_backward():
    from parity import both
    x0 = [[1 + 2j, -0.5 + 3j], [0.3 - 1j, 2 + 0.5j]]

    def scenario(T):
        x = T.tensor(x0, dtype=T.complex128, requires_grad=True)
        T.logsumexp(x, 1).abs().sum().backward()
        return x.grad
    grad = both(scenario, rtol=1e-12)
    # d|y|/dx = conj(softmax(x)) * y/|y| for y = logsumexp(x): first entry by hand
    x = np.array(x0)
    y = np.log(np.exp(x).sum(1))
    expected = np.conj(np.exp(x[0, 0] - y[0])) * y[0] / abs(y[0])
    assert abs(grad[0][0] - expected) < 1e-12


def test_renorm_of_complex_input_backward_uses_the_real_inner_product():
    from parity import both

    def scenario(T):
        x = T.tensor([[1 + 2j, -0.5 + 3j], [0.3 - 1j, 2 + 0.5j]], dtype=T.complex128, requires_grad=True)
        T.renorm(x, 2, 0, 1.5).abs().sum().backward()
        return x.grad
    grad = both(scenario, rtol=1e-10)
    assert abs(grad[0][0] - (0.0305 + 0.0611j)) < 1e-4   # as torch 2.13 gives


def test_full_max_backward_keeps_an_infinite_gradient_off_the_elements_not_chosen():
    # the gradient is filled into the chosen elements, not multiplied by a 0/1 mask (inf * 0 is nan)
    def scenario(T):
        x = T.tensor([[0.5, -1.0, 0.5, 0.25]], dtype=T.float64, requires_grad=True)
        scale = T.tensor(float("inf"), dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(x.max() * scale, [x], create_graph=True)
        return g, type(g.grad_fn).__name__
    g, name = both(scenario)
    assert g.tolist() == [[float("inf"), 0.0, float("inf"), 0.0]] and name == "MaskedFillBackward1"


@pytest.mark.parametrize("call", [lambda x: x.var(), lambda x: x.var(-1, keepdim=True),
                                  lambda x: x.var(correction=1.5)])
def test_var_with_no_degrees_of_freedom_left_has_a_constant_gradient(call):
    # torch: inf (nan where x is its mean) times the incoming gradient, with no path back to x
    def scenario(T):
        x = T.tensor(0.3, dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(call(x), [x], create_graph=True)
        return g, g.requires_grad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g, requires_grad = both(scenario)
    assert np.isnan(g) and requires_grad is False


def test_quantile_tangent_through_a_dual_q():
    """q's tangent moves the interpolation weight: d/dq of linear quantile is (n - 1) * (above - below)."""
    def scenario(T):
        fw = T.autograd.forward_ad
        x = T.tensor([-4.827, -7.5824, 1.5], dtype=T.float64)
        with fw.dual_level():
            q = fw.make_dual(T.tensor([0.2318, 0.75], dtype=T.float64), T.ones(2, dtype=T.float64))
            return fw.unpack_dual(T.quantile(x, q)).tangent
    tangent = both(scenario)
    s = np.sort([-4.827, -7.5824, 1.5])
    np.testing.assert_allclose(tangent, [2 * (s[1] - s[0]), 2 * (s[2] - s[1])])


# ---- aminmax takes one int dim; histc counts floating inputs only ------------------------------
@pytest.mark.parametrize("call, got", [
    (lambda T, x: T.aminmax(x, dim=(0, 1)), "tuple"),
    (lambda T, x: x.aminmax(dim=[0]), "list"),
])
def test_aminmax_dim_is_one_int(call, got):
    msg = same_error(lambda T: call(T, T.ones(2, 3)), TypeError)
    assert msg == f"aminmax(): argument 'dim' must be int, not {got}"
    lo, hi = both(lambda T: list(T.aminmax(T.tensor([[3.0, -1.0], [2.0, 5.0]]), dim=-1, keepdim=True)))
    np.testing.assert_array_equal(lo, [[-1.0], [2.0]])
    np.testing.assert_array_equal(hi, [[3.0], [5.0]])


@pytest.mark.parametrize("dtype, kernel, word", [
    ("int64", "histogram_cpu", "Long"), ("int32", "histogram_cpu", "Int"), ("uint8", "histogram_cpu", "Byte"),
    ("bool", "linspace_cpu", "Bool"),
])
def test_histc_refuses_non_floating_inputs(dtype, kernel, word):
    msg = same_error(lambda T: T.histc(T.tensor([1, 0, 1], dtype=getattr(T, dtype)), bins=4), NotImplementedError)
    assert msg == f"\"{kernel}\" not implemented for '{word}'"


def test_histc_errors_and_complex():
    c = lambda T: T.ones(3, dtype=T.complex64)   # noqa: E731
    # complex: the range search (aminmax) refuses first, the counting when the range is given
    assert same_error(lambda T: T.histc(c(T)), NotImplementedError) == \
        "\"aminmax_cpu\" not implemented for 'ComplexFloat'"
    assert same_error(lambda T: T.histc(c(T), 4, 0, 1), NotImplementedError) == \
        "\"histogram_cpu\" not implemented for 'ComplexFloat'"
    assert same_error(lambda T: T.histc(T.ones(3), bins=-1)) == \
        "torch.histogram(): bins must be > 0, but got -1 for dimension 0"
    assert same_error(lambda T: T.histc(T.ones(3), 3, 2, 1)) == "torch.histc: max must be larger than min"
    counts = both(lambda T: T.histc(T.tensor([1.0, 2.0, 1.0, 4.0], dtype=T.float64), bins=4, min=0, max=4))
    np.testing.assert_array_equal(counts, [0.0, 2.0, 1.0, 1.0])
