"""The FFT kernels behind `ndgrad.fft` (_fft_r2c, _fft_c2r, _fft_c2c): scipy/NumPy transforms over
the given dims, registered under torch's op names so the recorded nodes match.
"""

from ._registry import op
from ..backends.numpy_backend import fft


# ---- FFT kernels (ndgrad.fft composes them) ---------------------------------------------------
# normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the product of the transformed sizes; the
# scipy `norm` that gives it for a forward (e^-i) and for a backward (e^+i) transform
_NORM_FORWARD = ("backward", "ortho", "forward")
_NORM_BACKWARD = ("forward", "ortho", "backward")


@op("_fft_c2c", public="_fft_c2c")
def _fft_c2c(input, dim, normalization, forward):
    """Complex-to-complex DFT over dims, e^-i (forward) or e^+i."""
    if forward:
        return fft().fftn(input, axes=dim, norm=_NORM_FORWARD[normalization])
    return fft().ifftn(input, axes=dim, norm=_NORM_BACKWARD[normalization])


@op("_fft_r2c", public="_fft_r2c")
def _fft_r2c(input, dim, normalization, onesided):
    """Real-to-complex forward DFT over dims; onesided keeps n//2 + 1 entries of the last dim."""
    if onesided:
        return fft().rfftn(input, axes=dim, norm=_NORM_FORWARD[normalization])
    return fft().fftn(input, axes=dim, norm=_NORM_FORWARD[normalization])


@op("_fft_c2r", public="_fft_c2r")
def _fft_c2r(input, dim, normalization, last_dim_size):
    """Backward DFT of a Hermitian signal given by its onesided half; the last dim has last_dim_size
    points (the imaginary parts of its zero and Nyquist entries are ignored)."""
    s = [input.shape[d] for d in dim[:-1]] + [last_dim_size]
    return fft().irfftn(input, s=s, axes=dim, norm=_NORM_BACKWARD[normalization])
