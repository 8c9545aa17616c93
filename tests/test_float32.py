"""float32 programs: result dtypes exactly as torch's, values float32-accurate (the precision bugs
found by tests/opinfo_runner.py's float32 mode)."""
import numpy as np
import pytest

from parity import both

_F32 = np.float32


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.float32(2.5), np.int64(3), np.float16(0.5), np.int32(2)],
                         ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_numpy_scalars_are_python_numbers(scalar, dtype):
    # torch reads a NumPy scalar as the Python number it holds, weakly typed: float32 * np.float64(2.5) is
    # float32 (NumPy alone would give float64), int64 * np.float32(2.5) the default float
    def scenario(T):
        x = T.tensor([1.0, -2.0, 3.0]).to(getattr(T, dtype))
        y = x.clone()
        y.add_(scalar) if dtype != "int64" or isinstance(scalar, np.integer) else None
        return [x * scalar, scalar * x, T.add(x, scalar), x - scalar, scalar - x, x / scalar, T.mul(x, scalar),
                x.abs() ** scalar, T.clamp(x, max=scalar), y]
    out = both(scenario)
    want = dtype if dtype != "int64" or isinstance(scalar, np.integer) else "float32"
    assert [str(o.dtype) for o in out[:5] + out[6:7]] == [want] * 6   # (x / scalar: a float)


def test_numpy_bool_is_read_as_a_float():
    def scenario(T):
        x, b = T.tensor([1.0, 2.0]), T.tensor([True, False])
        return [x * np.bool_(True), np.bool_(True) + x, b * np.bool_(True), T.tensor([1, 2]) + np.bool_(True)]
    assert [str(o.dtype) for o in both(scenario)] == ["float32"] * 4


def test_numpy_scalar_gradient_dtype():
    def scenario(T):
        x = T.tensor([0.5, 1.5], requires_grad=True)
        y = (x * np.float64(3.0) + np.float64(1.0)) ** np.float64(2.0)
        g, = T.autograd.grad(y.sum(), x)
        return [y, g]
    y, g = both(scenario, rtol=1.3e-6, atol=1e-5)
    assert y.dtype == g.dtype == _F32
    np.testing.assert_allclose(g, 6 * (3 * np.array([0.5, 1.5]) + 1), rtol=1e-6)


def test_attention_probabilities_sum_to_one_in_float32():
    # large scores (logsumexp ~ 50): probabilities as exp(s - logsumexp) in float32 are all scaled by
    # that logsumexp's rounding (3.6e-6 here); divided by the row's sum (torch's kernel) they are not
    def scenario(T):
        q = T.tensor(np.random.default_rng(0).standard_normal((1, 2, 16, 8)).astype(_F32) * 6)
        return T.nn.functional.scaled_dot_product_attention(q, q, T.ones(1, 2, 16, 8))
    out = both(scenario, rtol=0, atol=1e-6)
    assert out.dtype == _F32
    assert np.abs(out - 1).max() <= 4 * np.finfo(_F32).eps
