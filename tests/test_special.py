"""torch.special, dist / renorm, segment_reduce, the gamma sampler and fake quantization beyond the
single-op registry entries (tests/op_db/special.py): errors, backward ops without a derivative,
in-place observer state, sampling statistics."""
import numpy as np
import pytest

import ndgrad
from parity import both, parity, same_error, torch

F64 = dict(dtype="float64")


def _f64(T, values, requires_grad=True):
    return T.tensor(values, dtype=T.float64, requires_grad=requires_grad)


# ---- ndgrad.special ---------------------------------------------------------------------------
def test_special_namespace_has_torch_names():
    missing = [n for n in ndgrad.special.__all__ if not callable(getattr(ndgrad.special, n, None))]
    assert not missing
    if torch is not None:
        assert set(ndgrad.special.__all__) <= set(torch.special.__all__)


@pytest.mark.parametrize("name", ["bessel_j0", "modified_bessel_k1", "airy_ai"])
def test_bessel_functions_have_no_gradient(name):
    x = _f64(ndgrad, [0.5, 1.5])
    y = getattr(ndgrad.special, name)(x)
    assert not y.requires_grad and y.grad_fn is None


def test_polynomial_degree_is_truncated_and_negative_degree_gives_zero():
    parity(lambda T: T.special.legendre_polynomial_p(0.3, T.tensor([2.5, -1.0, 4.0])), rtol=1e-5)


def test_ndtr_values_and_gradient():
    def scenario(T):
        x = _f64(T, [-1.5, 0.0, 0.3, 2.0])
        y = T.special.ndtr(x)
        return y, T.autograd.grad(y.sum(), x)[0]
    parity(scenario)


def test_zeta_gradient_with_respect_to_exponent_is_not_implemented():
    same_error(lambda T: T.special.zeta(_f64(T, [2.0, 3.0]), 1.5).sum().backward(), NotImplementedError)


def test_i1_double_backward_records_bessel_nodes():
    def scenario(T):
        x = _f64(T, [0.0, -0.4, 1.2])
        g, = T.autograd.grad(T.special.i1(x).sum(), x, create_graph=True)
        gg, = T.autograd.grad(g.sum(), x)
        return g, gg
    parity(scenario)


# ---- dist and renorm --------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: T.renorm(T.ones(3), 2, 0, 1.0),
    lambda T: T.renorm(T.ones(3, 1), 0, 0, 1.0),
    lambda T: T.renorm(T.ones(3, 1), 2, 0, -1.0),
    lambda T: T.dist(T.ones(3), T.ones(2)),
    lambda T: T.dist(T.tensor([1, 2]), T.tensor([1, 2])),
    lambda T: T.renorm(T.tensor([[1, 2]]), 2, 0, 1.0),
], ids=["renorm_1d", "renorm_p0", "renorm_negative_maxnorm", "dist_shapes", "dist_int", "renorm_int"])
def test_dist_renorm_errors(call):
    same_error(call)


def test_renorm_leaves_slices_within_maxnorm_unchanged():
    def scenario(T):
        x = _f64(T, [[3.0, 4.0], [0.3, 0.4]])
        y = T.renorm(x, 2, 0, 1.0)
        return y, T.autograd.grad((y * y).sum(), x)[0]
    y, g = both(scenario)
    np.testing.assert_allclose(y[1], [0.3, 0.4])


# ---- segment_reduce ---------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [dict(), dict(lengths=[1, -1, 2]), dict(lengths=[1, 1]), dict(indices=[0, 0, 1])],
                         ids=["no_lengths", "negative", "short", "indices"])
def test_segment_reduce_errors(kwargs):
    def call(T):
        kw = {k: T.tensor(v) for k, v in kwargs.items()}
        return T.segment_reduce(T.ones(3, dtype=T.float64), "sum", **kw)
    same_error(call)


def test_segment_reduce_unknown_reduction():
    same_error(lambda T: T.segment_reduce(T.ones(3), "median", lengths=T.tensor([3])))


def test_segment_reduce_unsafe_ignores_trailing_elements():
    parity(lambda T: T.segment_reduce(T.arange(5.0), "sum", lengths=T.tensor([1, 2]), unsafe=True))


def test_segment_reduce_empty_segments_take_initial_or_identity():
    def scenario(T):
        x = T.tensor([1.0, 2.0, 3.0])
        lengths = T.tensor([0, 3, 0])
        return [T.segment_reduce(x, r, lengths=lengths, initial=i) for r in ("sum", "prod", "max", "min")
                for i in (None, 0.5)]
    parity(scenario)


def test_segment_reduce_has_no_double_backward():
    for T in [ndgrad] + ([torch] if torch is not None else []):
        x = _f64(T, [0.2, -0.5, 0.7])
        g, = T.autograd.grad(T.segment_reduce(x, "prod", lengths=T.tensor([1, 2])).sum(), x, create_graph=True)
        assert g.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::_segment_reduce_backward is not implemented"):
            g.sum().backward()


# ---- gamma sampling ---------------------------------------------------------------------------
def test_gamma_samples_follow_the_gamma_distribution():
    stats = pytest.importorskip("scipy.stats")
    ndgrad.manual_seed(0)
    a = ndgrad.tensor([0.05, 0.5, 2.0, 9.0], dtype=ndgrad.float64)
    x = ndgrad.distributions.Gamma(a, 2.0).sample((5000,)).numpy()
    for k, shape in enumerate([0.05, 0.5, 2.0, 9.0]):
        assert stats.kstest(x[:, k], "gamma", args=(shape, 0, 0.5)).pvalue > 1e-3


@pytest.mark.skipif(torch is None, reason="torch is not installed: this test only compares with torch")
def test_standard_gamma_grad_matches_torch():
    a = np.array([0.05, 0.5, 1.0, 3.0, 12.0, 40.0])
    x = np.array([1e-4, 0.3, 2.0, 1.5, 14.0, 38.0])
    ours = ndgrad._standard_gamma_grad(ndgrad.tensor(a), ndgrad.tensor(x)).numpy()
    if torch is not None:   # torch uses approximations good to about 1e-5 relative
        np.testing.assert_allclose(ours, torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy(),
                                   rtol=1e-4)


def test_standard_gamma_grad_has_no_derivative():
    a = _f64(ndgrad, [0.5, 2.0])
    ndgrad.manual_seed(0)
    y = ndgrad.distributions.Gamma(a, ndgrad.tensor(1.0, dtype=ndgrad.float64)).rsample()
    g, = ndgrad.autograd.grad(y.sum(), a, create_graph=True)
    assert [f.name() for f, _ in g.grad_fn.next_functions if f is not None] == ["StandardGammaGradBackward0"]
    with pytest.raises(NotImplementedError, match="the derivative for '_standard_gamma_grad' is not implemented."):
        g.sum().backward()


def test_gamma_rsample_clamps_without_recording():
    ndgrad.manual_seed(0)
    y = ndgrad.distributions.Gamma(_f64(ndgrad, [0.01, 0.01, 0.01]), 1.0).rsample()
    assert y.grad_fn.name() == "DivBackward0" and (y > 0).all()


# ---- fake quantization ------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: T.fake_quantize_per_tensor_affine(T.ones(3), 0.1, 0, 10, 5),
    lambda T: T.fake_quantize_per_tensor_affine(T.ones(3), 0.1, 300, 0, 127),
    lambda T: T.fake_quantize_per_channel_affine(T.ones(2, 3), T.tensor([0.1, 0.2], dtype=T.float64),
                                                 T.tensor([0, 0], dtype=T.int32), 0, 0, 9),
    lambda T: T.fake_quantize_per_channel_affine(T.ones(2, 3), T.tensor([0.1, 0.2]), T.tensor([0, 0]), 0, 0, 9),
    lambda T: T.fake_quantize_per_channel_affine(T.ones(2, 3), T.tensor([0.1, 0.2]),
                                                 T.tensor([0, 0], dtype=T.int32), 1, 0, 9),
    lambda T: T.fake_quantize_per_channel_affine(T.ones(2, 3), T.tensor([0.1, 0.2]),
                                                 T.tensor([0, 0], dtype=T.int32), -1, 0, 9),
], ids=["range", "zero_point", "scale_dtype", "zero_point_dtype", "channels", "negative_axis"])
def test_fake_quantize_errors(call):
    same_error(call)


def test_learnable_fake_quantize_has_no_double_backward():
    for T in [ndgrad] + ([torch] if torch is not None else []):
        x = T.tensor([0.23, -0.55, 9.0], requires_grad=True)
        s, z = T.tensor([0.1], requires_grad=True), T.tensor([0.0], requires_grad=True)
        gs = T.autograd.grad(T._fake_quantize_learnable_per_tensor_affine(x, s, z, -10, 10).sum(), [x, s, z],
                             create_graph=True)
        assert [g.grad_fn.name() for g in gs] == ["torch::autograd::NotImplemented"] * 3
        with pytest.raises(RuntimeError, match="aten::_fake_quantize_learnable_per_tensor_affine_backward is not"):
            gs[1].sum().backward()


def test_fused_observer_updates_its_state_in_place():
    def scenario(T):
        x = T.tensor([0.2, -0.5, 0.7], requires_grad=True)
        state = [T.tensor([float("inf")]), T.tensor([float("-inf")]), T.tensor([1.0]), T.tensor([0], dtype=T.int32)]
        outs = []
        for step in range(3):
            y = T.fused_moving_avg_obs_fake_quant(x * (step + 1), T.tensor([1]), T.tensor([1]), *state, 0.1, 0, 255, 0)
            outs += [y] + [t.clone() for t in state]
        return outs
    out = both(scenario, rtol=1e-6, atol=1e-7)
    assert out[1][0] == -0.5 and out[6][0] < -0.5     # running_min: first seen, then moving


def test_fused_fake_quant_off_passes_input_through():
    def scenario(T):
        x = T.tensor([0.2, -0.5, 0.7], requires_grad=True)
        state = [T.tensor([-1.0]), T.tensor([1.0]), T.tensor([0.5]), T.tensor([3], dtype=T.int32)]
        y = T.fused_moving_avg_obs_fake_quant(x, T.tensor([1]), T.tensor([0]), *state, 0.5, -128, 127, 0)
        return [y, T.autograd.grad(y.sum(), x)[0]] + state
    parity(scenario, rtol=1e-6, atol=1e-7)
