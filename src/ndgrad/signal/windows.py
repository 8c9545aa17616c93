"""torch.signal.windows: window functions (SciPy's definitions, as torch's are). `sym=False` gives
the periodic window for spectral analysis: the symmetric window of M + 1 points without its last."""
import numpy as np

from .. import _dtype
from ..ops import _registry

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
           "hann", "kaiser", "nuttall"]


def _window(name, M, sym, dtype, requires_grad, values):
    """The tensor of window `name`: values(n, N) on the points n = 0..N-1 of the symmetric window
    of N points (N = M, or M + 1 when periodic), the first M kept."""
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    dtype = dtype or _dtype.get_default_dtype()
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    if M <= 1:
        w = np.ones(M)
    else:
        N = M if sym else M + 1
        w = values(np.arange(N, dtype=np.float64), N)[:M]
    return _registry.OPS["tensor"](w, dtype=dtype, requires_grad=requires_grad)


def _positive(value, what):
    if value <= 0:
        raise ValueError(f"{what} must be positive, got: {value} instead.")


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    _positive(std, "Standard deviation")
    return _window("gaussian", M, sym, dtype, requires_grad,
                   lambda n, N: np.exp(-((n - (N - 1) / 2) ** 2) / (2 * std ** 2)))


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    _positive(tau, "Tau")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    return _window("exponential", M, sym, dtype, requires_grad,
                   lambda n, N: np.exp(-np.abs(n - ((N - 1) / 2 if center is None else center)) / tau))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("cosine", M, sym, dtype, requires_grad, lambda n, N: np.sin(np.pi * (n + 0.5) / N))


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if not isinstance(a, (list, tuple)):
        raise TypeError(f"Coefficients must be a list/tuple, got {type(a)}")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    return _window("general_cosine", M, sym, dtype, requires_grad,
                   lambda n, N: sum((-1) ** k * c * np.cos(2 * np.pi * k * n / (N - 1)) for k, c in enumerate(a)))


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, sym=sym, dtype=dtype, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("bartlett", M, sym, dtype, requires_grad, lambda n, N: 1 - np.abs(2 * n / (N - 1) - 1))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _window("kaiser", M, sym, dtype, requires_grad,
                   lambda n, N: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / (N - 1) - 1) ** 2, 0, None))) / np.i0(beta))
