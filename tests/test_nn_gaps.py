"""torch.nn names real programs stop on, run against torch: nn.init's deprecated aliases, the nn.utils
helpers (gradient-norm pieces, hook-based spectral_norm, conv/linear + batch-norm fusion, skip_init,
stateless, weight memory formats), the parametrizations orthogonal and spectral_norm with parametrize's
cache and transfer, FractionalMaxPool2d/3d, CrossMapLRN2d, SyncBatchNorm and torch.histogramdd."""
import os
import warnings

import numpy as np
import pytest

import ndgrad
from parity import LIBS, both, err, lists, same_error


def _warnings(fn):
    """fn()'s result and the [category name, message] of each warning it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [[w.category.__name__, str(w.message)] for w in caught]


# ---- nn.init: the deprecated names ---------------------------------------------------------------
@pytest.mark.parametrize("name,args", [("uniform", (-1.0, 2.0)), ("normal", (0.5, 2.0)), ("constant", (0.25,)),
                                       ("xavier_uniform", ()), ("xavier_normal", (2.0,)),
                                       ("kaiming_uniform", (0.1,)), ("kaiming_normal", ()), ("orthogonal", ()),
                                       ("sparse", (0.5,)), ("dirac", ())])
def test_init_deprecated_alias_warns_and_draws_as_the_underscore_form(name, args):
    def scenario(T):
        T.manual_seed(3)
        shape = (3, 2, 3) if name == "dirac" else (4, 3)
        old, caught = _warnings(lambda: getattr(T.nn.init, name)(T.empty(*shape), *args))
        T.manual_seed(3)
        new = getattr(T.nn.init, name + "_")(T.empty(*shape), *args)
        assert T.equal(old, new)
        assert getattr(T.nn.init, name).__name__ == name
        return [old, caught]
    _, caught = both(scenario, rtol=1e-5, atol=1e-7)   # orthogonal's QR rounds differently in float32
    assert caught == [["FutureWarning", f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."]]


def test_init_alias_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ndgrad.nn.init.constant(ndgrad.empty(2), 1.0)
    assert os.path.basename(caught[0].filename) == os.path.basename(__file__)


# ---- nn.utils: gradient norms ----------------------------------------------------------------------
def _params_with_grads(T):
    a, b = T.nn.Parameter(T.ones(2, 2, dtype=T.float64)), T.nn.Parameter(T.ones(3, dtype=T.float64))
    a.grad = T.tensor([[3.0, -4.0], [0.0, 12.0]], dtype=T.float64)
    b.grad = T.tensor([1.0, 2.0, -2.0], dtype=T.float64)
    return a, b


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf")])
def test_get_total_norm_and_clip_grads_with_norm(norm_type):
    def scenario(T):
        a, b = _params_with_grads(T)
        total = T.nn.utils.get_total_norm([a.grad, b.grad], norm_type)
        T.nn.utils.clip_grads_with_norm_([a, b], 2.0, total)
        return [total, a.grad, b.grad, T.nn.utils.get_total_norm([]), T.nn.utils.get_total_norm(b.grad, norm_type)]
    total, ga, *_ = both(scenario)
    expected = {2.0: float(np.sqrt(9 + 16 + 144 + 1 + 4 + 4)), 1: 24.0, float("inf"): 12.0}[norm_type]
    assert total == pytest.approx(expected)
    np.testing.assert_allclose(ga, np.array([[3.0, -4.0], [0.0, 12.0]]) * 2.0 / (expected + 1e-6))


def test_get_total_norm_nonfinite_error_and_clip_grad_norm_alias():
    same_error(lambda T: T.nn.utils.get_total_norm([T.tensor([float("nan")])], error_if_nonfinite=True))

    def scenario(T):
        a, b = _params_with_grads(T)
        total, caught = _warnings(lambda: T.nn.utils.clip_grad_norm((p for p in (a, b)), 1.0))
        return [total, a.grad, b.grad, caught]
    *_, caught = both(scenario)
    assert caught == [["FutureWarning", "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                                        "`torch.nn.utils.clip_grad_norm_`."]]


# ---- nn.utils.spectral_norm: the hook-based one ------------------------------------------------------
def test_spectral_norm_hook_names_power_iteration_and_removal():
    def scenario(T):
        T.manual_seed(0)
        m = T.nn.utils.spectral_norm(T.nn.Conv2d(3, 4, 3), n_power_iterations=2)
        keys = list(m.state_dict())
        x = T.randn(2, 3, 5, 5)
        y = m(x)
        y.sum().backward()
        u1 = m.weight_u.clone()
        m(x)   # training: the vectors advance
        u2 = m.weight_u.clone()
        m.eval()
        y_eval = m(x)
        u3 = m.weight_u.clone()
        T.nn.utils.remove_spectral_norm(m)
        return [keys, y, m.weight_orig.grad if hasattr(m, "weight_orig") else m.weight, u1, u2, u3, y_eval,
                list(m.state_dict()), [n for n, _ in m.named_parameters()]]
    out = both(scenario, rtol=1e-5, atol=1e-6)
    assert out[0] == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert not np.allclose(out[3], out[4]) and np.array_equal(out[4], out[5])
    assert out[7] == ["bias", "weight"] and out[8] == ["bias", "weight"]


def test_spectral_norm_transposed_conv_dim_and_errors():
    def scenario(T):
        T.manual_seed(1)
        m = T.nn.utils.spectral_norm(T.nn.ConvTranspose1d(3, 4, 2))
        y = m(T.randn(1, 3, 4))
        twice = err(lambda: T.nn.utils.spectral_norm(m))
        missing = err(lambda: T.nn.utils.remove_spectral_norm(T.nn.Linear(2, 2)))
        lazy = err(lambda: T.nn.utils.spectral_norm(T.nn.LazyLinear(3)))
        return [list(m.weight_u.shape), list(m.weight_v.shape), y, twice, missing[0], missing[1][:30], lazy]
    out = both(scenario, rtol=1e-5)
    assert out[6] == ["ValueError", "The module passed to `SpectralNorm` can't have uninitialized parameters. Make "
                                    "sure to run the dummy forward before applying spectral normalization"]
    assert out[:2] == [[4], [6]]
    assert out[3] == ["RuntimeError", "Cannot register two spectral_norm hooks on the same parameter weight"]
    assert out[4:6] == ["ValueError", "spectral_norm of 'weight' not "]


# ---- nn.utils: fusion, skip_init, stateless, memory formats ------------------------------------------------
def test_fuse_conv_bn_and_linear_bn():
    def scenario(T):
        T.manual_seed(0)
        conv, bn = T.nn.Conv2d(2, 3, 2), T.nn.BatchNorm2d(3)
        bn(conv(T.randn(4, 2, 5, 5)))
        conv.eval(), bn.eval()
        fused = T.nn.utils.fuse_conv_bn_eval(conv, bn)
        x = T.randn(1, 2, 4, 4)
        close = bool((fused(x) - bn(conv(x))).abs().max() < 1e-5)
        ct, bn2 = T.nn.ConvTranspose2d(2, 3, 2, bias=False).eval(), T.nn.BatchNorm2d(3, affine=False).eval()
        ft = T.nn.utils.fuse_conv_bn_eval(ct, bn2, transpose=True)
        lin, bn1 = T.nn.Linear(3, 4), T.nn.BatchNorm1d(4)
        bn1(lin(T.randn(5, 3)))
        lin.eval(), bn1.eval()
        fl = T.nn.utils.fuse_linear_bn_eval(lin, bn1)
        w, b = T.nn.utils.fuse_conv_bn_weights(conv.weight, None, bn.running_mean, bn.running_var, 1e-5, None, None)
        lw, lb = T.nn.utils.fuse_linear_bn_weights(lin.weight, None, bn1.running_mean, bn1.running_var, 1e-5,
                                                   bn1.weight, bn1.bias)
        errors = [err(lambda: T.nn.utils.fuse_linear_bn_eval(lin, T.nn.BatchNorm1d(3).eval())),
                  err(lambda: T.nn.utils.fuse_conv_bn_eval(conv.train(), bn))]
        return [close, fused.weight, fused.bias, ft.weight, ft.bias, fl.weight, fl.bias, w, b, lw, lb,
                type(w).__name__, [w.requires_grad, b.requires_grad], fused is conv, errors]
    out = both(scenario, rtol=1e-5, atol=1e-7)
    assert out[0] is True and out[11] == "Parameter" and out[12] == [True, False] and out[13] is False
    assert out[14] == [["AssertionError", "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
                                          "got linear.out_features=4 and bn.num_features=3"],
                       ["AssertionError", "Fusion only for eval!"]]


def test_skip_init_draws_nothing_and_checks_its_class():
    def scenario(T):
        T.manual_seed(1)
        m = T.nn.utils.skip_init(T.nn.Linear, 5, 2, bias=False)
        after = T.randn(3)
        return [after, list(m.state_dict()), list(m.weight.shape), m.weight.requires_grad,
                type(m.weight).__name__, err(lambda: T.nn.utils.skip_init(int))]
    out = both(scenario)
    ndgrad.manual_seed(1)
    np.testing.assert_array_equal(out[0], ndgrad.randn(3).numpy())
    assert out[1:5] == [["weight"], [2, 5], True, "Parameter"]
    assert out[5] == ["RuntimeError", "Expected a Module; got <class 'int'>"]


def test_stateless_functional_call_is_deprecated_func_functional_call():
    def scenario(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 2)
        out, caught = _warnings(lambda: T.nn.utils.stateless.functional_call(
            lin, {"weight": T.ones(2, 3)}, (T.ones(1, 3),)))
        return [out, lin.bias, caught]
    out, bias, caught = both(scenario)
    assert caught[0][0] == "FutureWarning" and "Please use `torch.func.functional_call`" in caught[0][1]
    np.testing.assert_allclose(out, [3.0 + bias], rtol=1e-6)   # the given weight of ones, the module's bias


def test_convert_conv_weight_memory_formats_recurse():
    def scenario(T):
        m = T.nn.Sequential(T.nn.Conv2d(2, 3, 3), T.nn.Sequential(T.nn.ConvTranspose2d(3, 2, 2)), T.nn.Conv3d(1, 2, 2))
        T.nn.utils.convert_conv2d_weight_memory_format(m, T.channels_last)
        s2 = [list(m[0].weight.stride()), list(m[1][0].weight.stride()), list(m[2].weight.stride())]
        T.nn.utils.convert_conv3d_weight_memory_format(m, T.channels_last_3d)
        return [s2, list(m[2].weight.stride()), type(m[0].weight).__name__, m[0].weight.requires_grad]
    out = both(scenario)
    assert out == [[[18, 1, 6, 2], [8, 1, 4, 2], [8, 8, 4, 2, 1]], [8, 1, 4, 2, 1], "Parameter", True]


# ---- parametrizations.orthogonal / spectral_norm, parametrize's helpers --------------------------------------
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5)])
def test_orthogonal_parametrization(orthogonal_map, shape):
    def scenario(T):
        T.manual_seed(0)
        m = T.nn.utils.parametrizations.orthogonal(T.nn.Linear(shape[1], shape[0]), orthogonal_map=orthogonal_map)
        w = m.weight
        (w * T.arange(float(w.numel())).reshape(w.shape)).sum().backward()
        gram = w @ w.T if shape[0] <= shape[1] else w.T @ w
        return [w, m.parametrizations.weight.original.grad, gram, list(m.state_dict()), type(m).__name__]
    w, grad, gram, keys, name = both(scenario, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-5)
    assert keys == ["bias", "parametrizations.weight.original", "parametrizations.weight.0.base"]
    assert name == "ParametrizedLinear"


def test_orthogonal_without_trivialization_assignment_and_errors():
    def scenario(T):
        T.manual_seed(2)
        h = T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 4), orthogonal_map="householder",
                                                      use_trivialization=False)
        q = T.linalg.qr(T.randn(4, 3))[0]
        h.weight = q
        e = T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 4), orthogonal_map="matrix_exp",
                                                      use_trivialization=False)
        square = T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3))
        target = T.linalg.qr(T.randn(3, 3))[0]
        square.weight = target
        return [h.weight, q, list(h.state_dict()), e.weight, err(lambda: setattr(e, "weight", q)),
                square.weight, target,
                err(lambda: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), orthogonal_map="x")),
                err(lambda: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), "bias")),
                err(lambda: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), "nope"))]
    out = both(scenario, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out[0], out[1], atol=1e-5)
    np.testing.assert_allclose(out[5], out[6], atol=1e-5)
    assert out[2] == ["bias", "parametrizations.weight.original"]
    assert out[4] == ["NotImplementedError", "It is not possible to assign to the matrix exponential or the Cayley "
                                             "parametrizations when use_trivialization=False."]
    assert out[7][1] == 'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: x'
    assert out[8][1] == "Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."
    assert out[9][0] == "ValueError" and out[9][1].endswith("has no parameter or buffer with name 'nope'")


def test_spectral_norm_parametrization_numbers_and_names():
    def scenario(T):
        T.manual_seed(0)
        m = T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(5, 4))
        keys = list(m.state_dict())
        u0 = m.parametrizations.weight[0]._u.clone()   # after the 15 initial steps and the registration's one
        x = T.randn(3, 5)
        y = m(x)
        y.sum().backward()
        m.eval()
        y_eval = m(x)
        t = T.nn.utils.parametrizations.spectral_norm(T.nn.ConvTranspose2d(2, 3, 2))
        v = T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(3, 3), name="bias")
        return [keys, u0, y, m.parametrizations.weight.original.grad, y_eval, t.weight,
                list(t.parametrizations.weight[0]._u.shape), v.bias, T.linalg.vector_norm(v.bias),
                err(lambda: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), dim=2)),
                err(lambda: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), n_power_iterations=0))]
    out = both(scenario, rtol=1e-5, atol=1e-6)
    assert out[0] == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
                      "parametrizations.weight.0._v"]
    assert out[6] == [3] and out[8] == pytest.approx(1.0)
    assert out[9] == ["IndexError", "Dimension out of range (expected to be in range of [-2, 1] but got 2)"]
    assert out[10] == ["ValueError", "Expected n_power_iterations to be positive, but got n_power_iterations=0"]


def test_parametrize_cached_type_before_and_transfer():
    def scenario(T):
        P = T.nn.utils.parametrize
        T.manual_seed(0)
        m = T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(3, 2))
        m.eval()
        with P.cached():
            with P.cached():
                inside = m.weight is m.weight
            still = m.weight is m.weight
        outside = m.weight is m.weight
        b = P.transfer_parametrizations_and_params(m, T.nn.Linear(3, 2))
        c = P.transfer_parametrizations_and_params(m, T.nn.Linear(3, 2), "weight")
        plain = T.nn.Linear(1, 1)
        return [inside, still, outside, P.type_before_parametrizations(m).__name__, type(m).__name__,
                P.type_before_parametrizations(plain).__name__, list(b.state_dict()),
                b.parametrizations.weight.original is m.parametrizations.weight.original, b.weight, m.weight,
                list(c.state_dict()), P.transfer_parametrizations_and_params(plain, plain) is plain]
    out = both(scenario, rtol=1e-6)
    assert out[:6] == [True, True, False, "Linear", "ParametrizedLinear", "Linear"]
    assert out[6] == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
                      "parametrizations.weight.0._v"] and out[7] is True and out[11] is True


def test_register_parametrization_keeps_the_original_tensor_and_checks_the_result():
    def scenario(T):
        P = T.nn.utils.parametrize
        lin = T.nn.Linear(2, 3)
        weight = lin.weight
        P.register_parametrization(lin, "weight", T.nn.Identity())

        class Flat(T.nn.Module):
            def forward(self, x):
                return x.flatten()

        class Double(T.nn.Module):
            def forward(self, x):
                return x.double()
        return [lin.parametrizations.weight.original is weight,
                err(lambda: P.register_parametrization(T.nn.Linear(2, 3), "weight", Flat())),
                err(lambda: P.register_parametrization(T.nn.Linear(2, 3), "weight", Double())),
                list(P.register_parametrization(T.nn.Linear(2, 3), "weight", Flat(), unsafe=True).weight.shape)]
    out = both(scenario)
    assert out[0] is True and out[3] == [6]
    assert out[1] == ["ValueError", "Registering a parametrization may not change the shape of the tensor, unless "
                                    "`unsafe` flag is enabled.\nunparametrized shape: torch.Size([3, 2])\n"
                                    "parametrized shape: torch.Size([6])"]
    assert out[2][1].startswith("Registering a parametrization may not change the dtype of the tensor")


# ---- modules: FractionalMaxPool2d/3d, CrossMapLRN2d, SyncBatchNorm ------------------------------------------
def test_fractional_max_pool_modules():
    def scenario(T):
        T.manual_seed(0)
        p2 = T.nn.FractionalMaxPool2d(2, output_size=(3, 4), return_indices=True)
        x = T.randn(2, 3, 8, 9, requires_grad=True)
        out, idx = p2(x)
        out.sum().backward()
        p3 = T.nn.FractionalMaxPool3d((2, 2, 1), output_ratio=(0.5, 0.6, 0.7))
        y3 = p3(T.randn(1, 2, 6, 7, 8))
        samples = T.rand(1, 2, 2)
        fixed = T.nn.FractionalMaxPool2d(3, output_size=3, _random_samples=samples)
        z = T.randn(1, 2, 9, 9)
        errors = [err(lambda: cls(**kw)) for cls in (T.nn.FractionalMaxPool2d, T.nn.FractionalMaxPool3d)
                  for kw in (dict(kernel_size=2), dict(kernel_size=2, output_size=2, output_ratio=0.5),
                             dict(kernel_size=2, output_ratio=1.5))]
        return [out, idx, x.grad, y3, [p3.kernel_size, p3.output_ratio, p3.output_size], fixed(z), fixed(z),
                list(fixed.state_dict()), list(p2.state_dict()), repr(p2), out.grad_fn.name(), errors,
                err(lambda: T.nn.FractionalMaxPool3d(0, output_size=2))]
    out = both(scenario)
    assert list(np.shape(out[0])) == [2, 3, 3, 4] and list(np.shape(out[3])) == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(out[5], out[6])   # fixed samples: the same windows every call
    assert out[7] == ["_random_samples"] and out[8] == [] and out[9] == "FractionalMaxPool2d()"
    assert out[10] == "FractionalMaxPool2DBackward0"
    assert out[11][0] == ["ValueError", "FractionalMaxPool2d requires specifying either an output size, or a "
                                        "pooling ratio"]
    assert out[11][1] == ["ValueError", "only one of output_size and output_ratio may be specified"]
    assert out[11][2] == ["ValueError", "output_ratio must be between 0 and 1 (got 1.5)"]
    assert out[12] == ["ValueError", "kernel_size must be greater than 0, but got 0"]


@pytest.mark.parametrize("size", [2, 3, 4, 5, 7])
def test_cross_map_lrn2d_is_torchs_legacy_computation(size):
    def scenario(T):
        T.manual_seed(0)
        x = T.randn(2, 5, 3, 3, dtype=T.float64, requires_grad=True)
        m = T.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.6, k=1.5)
        y = m(x)
        weights = T.arange(90.0, dtype=T.float64).reshape(2, 5, 3, 3)
        g, = T.autograd.grad((y * weights).sum(), x)
        lrn = T.nn.functional.local_response_norm(x, size, 0.5, 0.6, 1.5)
        return [y, g, y.grad_fn.name(), repr(m), bool(T.allclose(y, lrn))]
    y, g, name, rep, same_as_lrn = both(scenario, rtol=1e-12)
    assert name == "CrossMapLRN2dBackward" and rep == f"CrossMapLRN2d({size}, alpha=0.5, beta=0.6, k=1.5)"
    assert not same_as_lrn   # the legacy window is not LocalResponseNorm's


def test_cross_map_lrn2d_values_and_rank_error():
    def scenario(T):
        return [T.nn.CrossMapLRN2d(3, alpha=1.0)(T.ones(1, 4, 1, 1)).flatten(),
                err(lambda: T.nn.CrossMapLRN2d(3)(T.randn(2, 3, 3)))]
    y, e = both(scenario, rtol=1e-6)
    # the legacy window sums channels {0,1}, {0,1,2}, {0,1,2,3}, {0,2,3}: k + alpha / size * sum ** -beta
    np.testing.assert_allclose(y, [(1 + 2 / 3) ** -0.75, 2 ** -0.75, (1 + 4 / 3) ** -0.75, 2 ** -0.75],
                               rtol=1e-6)
    assert e == ["ValueError", "CrossMapLRN2d: Expected input to be 4D, got 3D instead."]


def test_sync_batch_norm_on_the_cpu_is_batch_norm():
    def scenario(T):
        T.manual_seed(0)
        b = T.nn.SyncBatchNorm(3, momentum=None)
        ref = T.nn.BatchNorm3d(3, momentum=None)
        x = T.randn(4, 3, 2, 2, 2, requires_grad=True)
        y = b(x)
        g, = T.autograd.grad((y * y.detach()).sum(), x)
        same = bool(T.equal(y, ref(x)))
        b.eval()
        return [repr(b), list(b.state_dict()), y, g, y.grad_fn.name(), b.running_mean, b.running_var,
                b.num_batches_tracked, same, b(x), err(lambda: b(T.randn(4))),
                err(lambda: b(T.randn(4, 0, 2)))]
    out = both(scenario, rtol=1e-5, atol=1e-6)
    assert out[0] == "SyncBatchNorm(3, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)"
    assert out[1] == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert out[4] == "NativeBatchNormBackward0" and out[7] == 1 and out[8] is True
    assert out[10] == ["ValueError", "expected at least 2D input (got 1D input)"]
    assert out[11] == ["ValueError", "SyncBatchNorm number of input channels should be non-zero"]


def test_convert_sync_batchnorm_shares_parameters_and_statistics():
    def scenario(T):
        m = T.nn.Sequential(T.nn.Conv2d(2, 3, 1), T.nn.BatchNorm2d(3, affine=False),
                            T.nn.Sequential(T.nn.BatchNorm1d(4, track_running_stats=False, bias=False).eval()))
        c = T.nn.SyncBatchNorm.convert_sync_batchnorm(m)
        return [repr(c), c[1].running_mean is m[1].running_mean, c[0] is m[0], c[2][0].training,
                c[2][0].weight is m[2][0].weight, list(c.state_dict())]
    out = both(scenario)
    assert "SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=False, track_running_stats=False)" in out[0]
    assert out[1:5] == [True, True, False, True]


def test_sync_batch_norm_refuses_cpu_inputs_once_a_process_group_exists():
    pytest.importorskip("mpi4py")
    dist = ndgrad.distributed
    if dist.is_initialized():
        pytest.skip("a process group is already initialized in this process")
    dist.init_process_group()
    try:
        b = ndgrad.nn.SyncBatchNorm(2)
        with pytest.raises(ValueError, match="^SyncBatchNorm expected input tensor to be on GPU or XPU or "
                                             "privateuseone$"):
            b(ndgrad.randn(3, 2))
        assert b.eval()(ndgrad.randn(3, 2)).shape == (3, 2)   # evaluation never synchronizes
    finally:
        dist.destroy_process_group()


# ---- torch.histogramdd --------------------------------------------------------------------------------------
def test_histogramdd_values_edges_and_errors():
    def scenario(T):
        x = T.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
        r = T.histogramdd(x, bins=[3, 3], weight=T.tensor([1.0, 2.0, 4.0, 8.0]))
        d = T.histogramdd(x, bins=2, range=[0.0, 1.0, 0.0, 1.0], density=True)
        e = T.histogramdd(x.double(), bins=[T.tensor([0.0, 1.0, 2.0], dtype=T.float64),
                                            T.tensor([0.0, 2.0], dtype=T.float64)])
        one = T.histogramdd(T.tensor([[1.0, 1.0]]), 2)
        batched = T.histogramdd(T.randn(2, 3, 3), [2, 1, 3])
        errors = [err(lambda: T.histogramdd(T.tensor([1.0, 1.0]), 2)), err(lambda: T.histogramdd(x, [2, 2, 2])),
                  err(lambda: T.histogramdd(x, 2, range=[0.0, 1.0])), err(lambda: T.histogramdd(x, 0)),
                  err(lambda: T.histogramdd(x.long(), 2)), err(lambda: T.histogramdd(x, 2, weight=T.ones(3))),
                  err(lambda: T.histogramdd(x, 2, range=[1.0, 0.0, 0.0, 1.0])),
                  err(lambda: T.histogramdd(x.double(), [T.tensor([0.0, 1.0]), T.tensor([0.0, 2.0])]))]
        return [r.hist, list(r.bin_edges), d.hist, list(d.bin_edges), e.hist, one.hist, list(one.bin_edges),
                list(batched.hist.shape), type(r).__name__, errors]
    out = both(scenario)
    assert lists(out[0]) == [[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [4.0, 0.0, 8.0]]
    assert lists(out[4]) == [[1.0], [3.0]] and lists(out[6]) == [[0.5, 1.0, 1.5], [0.5, 1.0, 1.5]]
    assert out[7] == [2, 1, 3] and out[8] == "histogramdd"
    assert out[9][0] == ["RuntimeError", "torch.histogramdd: input tensor should have at least 2 dimensions"]
    assert out[9][4] == ["NotImplementedError", "\"histogramdd\" not implemented for 'Long'"]
