"""ndgrad.fft: torch.fft's discrete Fourier transforms, composed as torch composes them from three
differentiable kernels (ndgrad._fft_c2c / _fft_r2c / _fft_c2r: FftC2CBackward0, FftR2CBackward0,
FftC2RBackward0) plus the resizing (slice / zero padding), conj and dtype casts torch records.

`norm`: "backward" (default: the forward transforms unscaled, the inverse ones by 1/n), "ortho"
(both by 1/sqrt(n)) or "forward" (the forward ones by 1/n, the inverse ones unscaled).
"""
import numpy as np

from . import _dtype
from . import _docs
from .ops.creation import tensor
from .ops.fft import _fft_c2c, _fft_c2r, _fft_r2c
from .ops.padding import constant_pad_nd

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _normalization(norm, forward):
    """The kernels' normalization code (0 none, 1 1/sqrt(n), 2 1/n) for a transform in `forward`
    direction (forward: fft, rfft, hfft; backward: ifft, irfft, ihfft)."""
    modes = ("backward", "ortho", "forward") if forward else ("forward", "ortho", "backward")
    if norm is None:
        norm = "backward"
    if norm not in modes:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return modes.index(norm)


def _float_input(x, complex_=False):
    """Integers and bools become the default float dtype (complex when `complex_`), as in torch."""
    dt = x.dtype
    if complex_ and not dt.is_complex:
        target = _dtype.complex128 if dt == _dtype.float64 else _dtype.complex64
        return x.to(target)
    if not dt.is_floating_point and not dt.is_complex:
        return x.to(_dtype.get_default_dtype())
    return x


def _dims(x, s, dim, default_all=True):
    """(dims, sizes) of an n-dimensional transform: dims normalized and unique; sizes the signal
    lengths (the input's where s is None or -1)."""
    ndim = x.ndim
    if dim is None:
        if s is None:
            dims = list(range(ndim)) if default_all else []
        else:
            dims = list(range(ndim - len(s), ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    out = []
    for d in dims:
        if ndim == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        if not -ndim <= d < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        out.append(d % ndim)
    if len(set(out)) != len(out):
        raise RuntimeError("FFT dims must be unique")
    if s is not None and len(s) > ndim:
        raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
    sizes = [x.shape[d] if s is None or s[i] == -1 else s[i] for i, d in enumerate(out)]
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return out, sizes


def _resize(x, dims, sizes):
    """x sliced or zero-padded (at the end) to `sizes` along `dims`."""
    for d, n in zip(dims, sizes):
        have = x.shape[d]
        if n < have:
            x = x.narrow(d, 0, n)
        elif n > have:
            x = constant_pad_nd(x, [0, 0] * (x.ndim - 1 - d) + [0, n - have])
    return x


def _check_real(x, name):
    if x.is_complex():
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype.title}")



# ---- the generic transforms --------------------------------------------------------------------
def _c2c(x, s, dim, norm, forward, one_d):
    """fft/ifft family. A real input takes the real-to-complex kernel in the 1-D API (conjugated for
    the inverse) and is cast to complex in the n-D API, as torch does."""
    x = _float_input(x)
    dims, sizes = _dims(x, s, dim)
    code = _normalization(norm, forward)
    if one_d and not x.is_complex():
        out = _fft_r2c(_resize(x, dims, sizes), dims, code, False)
        return out if forward else out.conj()
    x = _resize(_float_input(x, complex_=True), dims, sizes)
    return _fft_c2c(x, dims, code, forward)


def _r2c(x, s, dim, norm, name, forward):
    """rfft family (forward) and ihfft family (backward, conjugated): the onesided half of the
    spectrum of a real signal; the last dim is the halved one."""
    _check_real(x, name)
    x = _float_input(x)
    dims, sizes = _dims(x, s, dim)
    x = _resize(x, dims, sizes)
    code = _normalization(norm, forward)
    if forward:
        return _fft_r2c(x, dims, code, True)
    # ihfft: conj of the forward onesided spectrum; other dims then take the inverse transform
    half = _fft_r2c(x, dims[-1:], code, True)
    if len(dims) == 1:
        return half.conj()
    return _fft_c2c(half.conj_physical(), dims[:-1], code, False)


def _c2r(x, s, dim, norm, forward):
    """irfft family (backward) and hfft family (forward, of the conjugate): a real signal from its
    onesided spectrum; the last dim has s[-1] points (default 2 * (size - 1))."""
    x = _float_input(x, complex_=True)
    dims, sizes = _dims(x, s, dim)
    last = dims[-1]
    n = sizes[-1] if s is not None and s[-1] != -1 else 2 * (x.shape[last] - 1)
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    x = _resize(x, dims, sizes[:-1] + [n // 2 + 1])
    code = _normalization(norm, forward)
    if forward:   # hfft: conj of the forward transform over the other dims, then a real backward one
        if len(dims) > 1:
            x = _fft_c2c(x, dims[:-1], code, True)
        x = x.conj()
        return _fft_c2r(x, dims[-1:], code, n)
    return _fft_c2r(x, dims, code, n)


def _one(n, dim):
    return None if n is None else [n], dim


# ---- torch.fft's functions ---------------------------------------------------------------------
def fft(input, n=None, dim=-1, norm=None):
    """The one-dimensional discrete Fourier transform of `input` (complex output).

    Args:
        input (Tensor): the input.
        n (int, optional): the signal length: `input` is trimmed or zero-padded to it along `dim`.
        dim (int, optional): the dimension to transform (default: the last).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the complex spectrum, of size `n` along `dim`.

    Example::

        >>> torch.fft.fft(torch.tensor([1.0, 2.0, 3.0, 4.0]))   # a real input: its Hermitian spectrum
        tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    return _c2c(input, *_one(n, dim), norm, True, True)


def ifft(input, n=None, dim=-1, norm=None):
    """The one-dimensional inverse discrete Fourier transform of `input`.

    Args:
        input (Tensor): the input.
        n (int, optional): the signal length: `input` is trimmed or zero-padded to it along `dim`.
        dim (int, optional): the dimension to transform (default: the last).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the complex signal.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.complex64)
        >>> torch.fft.ifft(torch.fft.fft(x))
        tensor([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j])
    """
    return _c2c(input, *_one(n, dim), norm, False, True)


def rfft(input, n=None, dim=-1, norm=None):
    """The one-dimensional Fourier transform of a real `input`, keeping only the n // 2 + 1
    non-negative frequencies (the others are their complex conjugates).

    Args:
        input (Tensor): the input (real).
        n (int, optional): the signal length: `input` is trimmed or zero-padded to it along `dim`.
        dim (int, optional): the dimension to transform (default: the last).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the onesided complex spectrum.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 3.0, 4.0])
        >>> torch.fft.rfft(x)
        tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    return _r2c(input, *_one(n, dim), norm, "rfft", True)


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`rfft`: the real signal whose onesided spectrum is `input`.

    Args:
        input (Tensor): the input.
        n (int, optional): the length of the real output along `dim` (default: 2 * (input.size(dim) - 1)).
        dim (int, optional): the dimension to transform (default: the last).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the real signal.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 3.0, 4.0])
        >>> torch.fft.irfft(torch.fft.rfft(x), n=4)
        tensor([1., 2., 3., 4.])
    """
    return _c2r(input, *_one(n, dim), norm, False)


def hfft(input, n=None, dim=-1, norm=None):
    """The one-dimensional Fourier transform of a Hermitian-symmetric signal given by its onesided
    half `input`; the result is real.

    Args:
        input (Tensor): the input.
        n (int, optional): the length of the real output along `dim` (default: 2 * (input.size(dim) - 1)).
        dim (int, optional): the dimension to transform (default: the last).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the real spectrum.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 3.0])
        >>> torch.fft.hfft(x)
        tensor([ 8., -2.,  0., -2.])
    """
    return _c2r(input, *_one(n, dim), norm, True)


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`hfft`: the onesided half of the inverse transform of a real `input`.

    Args:
        input (Tensor): the input (real).
        n (int, optional): the signal length: `input` is trimmed or zero-padded to it along `dim`.
        dim (int, optional): the dimension to transform (default: the last).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the onesided complex result.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 3.0, 4.0])
        >>> torch.fft.ihfft(x)
        tensor([ 2.5000-0.0000j, -0.5000-0.5000j, -0.5000-0.0000j])
    """
    return _r2c(input, *_one(n, dim), norm, "ihfft", False)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional discrete Fourier transform of `input` (over the last two dimensions by default).

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the two dimensions to transform (default: the last two).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the complex spectrum.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.fft2(x)
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
    """
    return _c2c(input, s, dim, norm, True, False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional inverse discrete Fourier transform of `input`.

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the two dimensions to transform (default: the last two).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the complex signal.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.ifft2(torch.fft.fft2(x)).real
        tensor([[1., 2.],
                [3., 4.]])
    """
    return _c2c(input, s, dim, norm, False, False)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional Fourier transform of a real `input`, onesided in the last dimension.

    Args:
        input (Tensor): the input (real).
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the two dimensions to transform (default: the last two).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the onesided complex spectrum.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.rfft2(x)
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
    """
    return _r2c(input, s, dim, norm, "rfftn", True)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of :func:`rfft2`: the real signal whose two-dimensional onesided spectrum is `input`.

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the real output size in each of `dim` (default: the input's,
            the last one 2 * (size - 1)).
        dim (sequence of int, optional): the two dimensions to transform (default: the last two).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the real signal.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.irfft2(torch.fft.rfft2(x), s=(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
    return _c2r(input, s, dim, norm, False)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """The two-dimensional Fourier transform of a Hermitian-symmetric signal given by its onesided
    half `input`; the result is real.

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the real output size in each of `dim` (default: the input's,
            the last one 2 * (size - 1)).
        dim (sequence of int, optional): the two dimensions to transform (default: the last two).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the real spectrum.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.hfft2(x)
        tensor([[10., -2.],
                [-4.,  0.]])
    """
    return _c2r(input, s, dim, norm, True)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of :func:`hfft2` for a real `input`: onesided in the last dimension.

    Args:
        input (Tensor): the input (real).
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the two dimensions to transform (default: the last two).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the onesided complex result.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.ihfft2(x)
        tensor([[ 2.5000-0.j, -0.5000-0.j],
                [-1.0000+0.j,  0.0000+0.j]])
    """
    return _r2c(input, s, dim, norm, "ihfftn", False)


def fftn(input, s=None, dim=None, norm=None):
    """The N-dimensional discrete Fourier transform of `input` (over all dimensions by default).

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the dimensions to transform (default: all, or the last len(s)).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the complex spectrum.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.fftn(x)
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
    """
    return _c2c(input, s, dim, norm, True, False)


def ifftn(input, s=None, dim=None, norm=None):
    """The N-dimensional inverse discrete Fourier transform of `input`.

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the dimensions to transform (default: all, or the last len(s)).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the complex signal.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.ifftn(x)
        tensor([[ 2.5000+0.j, -0.5000+0.j],
                [-1.0000+0.j,  0.0000+0.j]])
    """
    return _c2c(input, s, dim, norm, False, False)


def rfftn(input, s=None, dim=None, norm=None):
    """The N-dimensional Fourier transform of a real `input`, onesided in the last transformed dimension.

    Args:
        input (Tensor): the input (real).
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the dimensions to transform (default: all, or the last len(s)).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the onesided complex spectrum.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.rfftn(x)
        tensor([[10.+0.j, -2.+0.j],
                [-4.+0.j,  0.+0.j]])
    """
    return _r2c(input, s, dim, norm, "rfftn", True)


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of :func:`rfftn`: the real signal whose N-dimensional onesided spectrum is `input`.

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the real output size in each of `dim` (default: the input's,
            the last one 2 * (size - 1)).
        dim (sequence of int, optional): the dimensions to transform (default: all, or the last len(s)).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the real signal.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.irfftn(torch.fft.rfftn(x), s=(2, 2))
        tensor([[1., 2.],
                [3., 4.]])
    """
    return _c2r(input, s, dim, norm, False)


def hfftn(input, s=None, dim=None, norm=None):
    """The N-dimensional Fourier transform of a Hermitian-symmetric signal given by its onesided
    half `input` (halved in the last transformed dimension); the result is real.

    Args:
        input (Tensor): the input.
        s (sequence of int, optional): the real output size in each of `dim` (default: the input's,
            the last one 2 * (size - 1)).
        dim (sequence of int, optional): the dimensions to transform (default: all, or the last len(s)).
        norm (str, optional): the scaling of the forward transform: ``"backward"`` (default, none),
            ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (by 1/n).

    Returns:
        Tensor: the real spectrum.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.hfftn(x)
        tensor([[10., -2.],
                [-4.,  0.]])
    """
    return _c2r(input, s, dim, norm, True)


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of :func:`hfftn` for a real `input`: onesided in the last transformed dimension.

    Args:
        input (Tensor): the input (real).
        s (sequence of int, optional): the signal size in each of `dim`: trimmed or zero-padded to it.
        dim (sequence of int, optional): the dimensions to transform (default: all, or the last len(s)).
        norm (str, optional): the scaling, named by the forward transform's: ``"backward"`` (default,
            this one scales by 1/n), ``"ortho"`` (by 1/sqrt(n)) or ``"forward"`` (none).

    Returns:
        Tensor: the onesided complex result.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.fft.ihfftn(x)
        tensor([[ 2.5000-0.j, -0.5000-0.j],
                [-1.0000+0.j,  0.0000+0.j]])
    """
    return _r2c(input, s, dim, norm, "ihfftn", False)


def fftfreq(n, d=1.0, *, dtype=None, requires_grad=False, **kwargs):
    """The sample frequencies of an :func:`fft` of length `n`:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    Args:
        n (int): the signal length.
        d (float, optional): the sample spacing (default: 1); the frequencies are in cycles per unit of `d`.
        dtype (dtype, optional): the result's dtype (default: the default float dtype).
        requires_grad (bool, optional): whether autograd records operations on the result.

    Returns:
        Tensor: the `n` frequencies, the zero frequency first.

    Example::

        >>> torch.fft.fftfreq(5)
        tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
        >>> torch.fft.fftfreq(4, d=0.5)
        tensor([ 0.0000,  0.5000, -1.0000, -0.5000])
    """
    return tensor(np.fft.fftfreq(n, d), dtype=dtype or _dtype.get_default_dtype(), requires_grad=requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, requires_grad=False, **kwargs):
    """The n // 2 + 1 non-negative sample frequencies of an :func:`rfft` of length `n`.

    Args:
        n (int): the signal length.
        d (float, optional): the sample spacing (default: 1); the frequencies are in cycles per unit of `d`.
        dtype (dtype, optional): the result's dtype (default: the default float dtype).
        requires_grad (bool, optional): whether autograd records operations on the result.

    Returns:
        Tensor: ``[0, 1, ..., n // 2] / (d * n)``.

    Example::

        >>> torch.fft.rfftfreq(5)
        tensor([0.0000, 0.2000, 0.4000])
    """
    return tensor(np.fft.rfftfreq(n, d), dtype=dtype or _dtype.get_default_dtype(), requires_grad=requires_grad)


def _shift_dims(input, dim):
    if dim is None:
        return list(range(input.ndim))
    return [dim] if isinstance(dim, int) else list(dim)


def fftshift(input, dim=None):
    """Moves the zero frequency of a spectrum to the middle: a roll by half of each size (rounded down).

    Args:
        input (Tensor): a spectrum in the order :func:`fft` gives.
        dim (int or sequence of int, optional): the dimensions to shift (default: all).

    Returns:
        Tensor: `input` rolled, the frequencies in increasing order.

    Example::

        >>> f = torch.fft.fftfreq(5)
        >>> torch.fft.fftshift(f)
        tensor([-0.4000, -0.2000,  0.0000,  0.2000,  0.4000])
        >>> torch.fft.fftshift(torch.arange(4))
        tensor([2, 3, 0, 1])
    """
    dims = _shift_dims(input, dim)
    return input.roll([input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`: the zero frequency moved back from the middle to the start.

    Args:
        input (Tensor): a spectrum in the order :func:`fftshift` gives.
        dim (int or sequence of int, optional): the dimensions to shift (default: all).

    Returns:
        Tensor: `input` rolled back by half of each size (rounded up).

    Example::

        >>> f = torch.fft.fftshift(torch.fft.fftfreq(5))
        >>> f
        tensor([-0.4000, -0.2000,  0.0000,  0.2000,  0.4000])
        >>> torch.fft.ifftshift(f)
        tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    dims = _shift_dims(input, dim)
    return input.roll([(input.shape[d] + 1) // 2 for d in dims], dims)


_docs.attach(globals(), "fft")   # the docstrings of the names that come from ndgrad/ops
