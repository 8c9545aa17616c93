"""The FFT kernels behind `ndgrad.fft` (_fft_r2c, _fft_c2r, _fft_c2c): scipy/NumPy transforms over
the given dims, registered under torch's op names so the recorded nodes match.
"""
import warnings

import numpy as np

from ._registry import op, register
from .creation import ones
from .padding import constant_pad_nd, pad
from .shape import _unfold_backward, view_as_complex, view_as_real
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
    half = fft().rfftn(input, axes=dim, norm=_NORM_FORWARD[normalization])
    return half if onesided else _conjugate_symmetric_fill(half, dim, input.shape[dim[-1]])


def _conjugate_symmetric_fill(half, dim, n):
    """The whole spectrum of a real signal from its onesided half, the missing entries X[k] taken as
    conj(X[-k]) as torch fills them (a full complex transform would give -0. imaginary parts where
    torch has +0.)."""
    last = dim[-1]
    mirrored = half.take(np.arange(n - half.shape[last], 0, -1), axis=last)
    for d in dim[:-1]:
        m = half.shape[d]
        mirrored = mirrored.take(-np.arange(m) % m, axis=d)
    return np.concatenate([half, mirrored.conj()], axis=last)


@op("_fft_c2r", public="_fft_c2r")
def _fft_c2r(input, dim, normalization, last_dim_size):
    """Backward DFT of a Hermitian signal given by its onesided half; the last dim has last_dim_size
    points (the imaginary parts of its zero and Nyquist entries are ignored)."""
    s = [input.shape[d] for d in dim[:-1]] + [last_dim_size]
    return fft().irfftn(input, s=s, axes=dim, norm=_NORM_BACKWARD[normalization])


# ---- short-time Fourier transform, composed of differentiable ops: the (centered, padded)
# signal cut into overlapping frames, each windowed and transformed
@register(method=True)
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """The short-time Fourier transform: the DFT of each frame of `n_fft` samples of `input`, frames
    `hop_length` apart, each multiplied by `window`.

    Args:
        input (Tensor): the signal, (L,) or (B, L).
        n_fft (int): the frame length.
        hop_length (int, optional): the frame step. Default: ``n_fft // 4``.
        win_length (int, optional): the window length (padded to `n_fft`). Default: `n_fft`.
        window (Tensor, optional): the window (default: all ones).
        center (bool): pad `input` by ``n_fft // 2`` on both sides first. Default: ``True``.
        pad_mode (str): the padding mode with `center`. Default: ``'reflect'``.
        normalized (bool): multiply by ``n_fft ** -0.5``. Default: ``False``.
        onesided (bool, optional): keep only the ``n_fft // 2 + 1`` non-negative frequencies
            (default: for real input).
        return_complex (bool, optional): return a complex tensor (``False``: its real view, deprecated in
            torch); it must be given for real input.

    Returns:
        Tensor: the spectrum, (freq, frames) or (B, freq, frames).

    Example::

        >>> x = torch.ones(8)
        >>> spec = torch.stft(x, n_fft=4, hop_length=2, window=torch.ones(4), return_complex=True)
        >>> spec.shape
        torch.Size([3, 5])
        >>> spec[:, 0]
        tensor([4.+0.j, 0.+0.j, 0.+0.j])
    """
    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_in:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D")
    if align_to_window is not None:
        raise NotImplementedError("stft: align_to_window is not supported by ndgrad")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not 0 < win <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    x = input if input.ndim == 2 else input.unsqueeze(0)
    if center:
        x = pad(x, (n_fft // 2, n_fft // 2), mode=pad_mode)
    if not 0 < n_fft <= x.shape[-1]:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {x.shape[-1]}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop)                  # (batch, frames, n_fft)
    if window is not None:
        left = (n_fft - win) // 2                      # a shorter window sits centred in the frame
        frames = frames * (pad(window, (left, n_fft - win - left)) if win < n_fft else window)
    norm = 1 if normalized else 0
    if complex_in:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        spec = _fft_c2c(frames if frames.is_complex() else frames.to(frames.dtype.to_complex()), [2], norm, True)
    else:
        spec = _fft_r2c(frames, [2], norm, onesided is not False)
    spec.transpose_(1, 2)   # in place, as torch does (TransposeBackward1, SqueezeBackward4)
    if input.ndim == 1:
        spec.squeeze_(0)
    if not return_complex and return_complex is not None:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.")
        return view_as_real(spec)
    return spec


# ---- inverse short-time Fourier transform: each frame's inverse DFT, windowed again, the frames
# overlapped and added, then divided by the overlap-added squared window (composed of ops, as torch's)
@register()
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse of :func:`stft` (given the same `n_fft`, `hop_length`, `win_length`, `window`, `center`
    and `normalized`): a signal whose short-time Fourier transform is `input`.

    Args:
        input (Tensor): the complex spectrum, (freq, frames) or (B, freq, frames), as `stft` returns it.
        n_fft (int): the frame length.
        hop_length (int, optional): the frame step. Default: ``n_fft // 4``.
        win_length (int, optional): the window length (padded to `n_fft`). Default: `n_fft`.
        window (Tensor, optional): the window (default: all ones); its overlap-added square must not
            vanish anywhere in the output.
        center (bool): `input` came from a centered (padded) signal. Default: ``True``.
        normalized (bool): `input` was normalized by ``n_fft ** -0.5``. Default: ``False``.
        onesided (bool, optional): `input` has only the ``n_fft // 2 + 1`` non-negative frequencies
            (default: unless it has `n_fft` of them).
        length (int, optional): the output length (trimmed, or zero-padded at the end).
        return_complex (bool): a complex output (then `onesided` must be False). Default: ``False``.

    Returns:
        Tensor: the signal, (L,) or (B, L).

    Example::

        >>> x = torch.arange(8.)
        >>> spec = torch.stft(x, 4, hop_length=1, window=torch.hann_window(4), return_complex=True)
        >>> y = torch.istft(spec, 4, hop_length=1, window=torch.hann_window(4))
        >>> y.shape, torch.allclose(y, x)
        (torch.Size([8]), True)
    """
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def where():   # torch's messages start with the call
        shape = ", ".join(map(str, input.shape))
        kind = "CPU" + input.type().rsplit(".", 1)[-1].replace("Tensor", "Type")
        win_text = "None" if window is None else f"{window.type()}{{[{', '.join(map(str, window.shape))}]}}"
        flag = lambda v: "None" if v is None else int(v)   # noqa: E731
        return (f"istft({kind}[{shape}], n_fft={n_fft}, hop_length={hop}, win_length={win}, window={win_text}, "
                f"center={int(center)}, normalized={int(normalized)}, onesided={flag(onesided)}, "
                f"length={'None' if length is None else length}, return_complex={int(return_complex)}) ")

    real = view_as_real(input.resolve_conj())
    n_frames, fft_size = real.size(-2), real.size(-3)
    if real.numel() == 0:
        raise RuntimeError(where() + ": istft input tensor cannot be empty")
    if real.ndim not in (3, 4):
        raise RuntimeError(where() + f": expected a tensor with 3 or 4 dimensions, but got {real.ndim}")
    one = fft_size != n_fft if onesided is None else onesided
    if one and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(where() + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not one and n_fft != fft_size:
        raise RuntimeError(where() + ": expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(where() + ": expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(where() + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(where() + ": Invalid window shape. window has to be 1D and length of `win_length`")
    w = window if window is not None else ones(win, dtype=real.dtype)
    if win != n_fft:   # a shorter window sits centred in the frame
        left = (n_fft - win) // 2
        w = constant_pad_nd(w, (left, n_fft - win - left), 0)
    frames = view_as_complex((real if real.ndim == 4 else real.unsqueeze(0)).transpose(1, 2))  # (B, frames, freq)
    norm = 1 if normalized else 2
    if return_complex:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _fft_c2c(frames, [2], norm, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one:
            frames = frames[..., :n_fft // 2 + 1]
        frames = _fft_c2r(frames, [2], norm, n_fft)
    total = n_fft + hop * (n_frames - 1)
    y = _unfold_backward(frames * w.view(1, 1, n_fft), [frames.shape[0], total], 1, n_fft, hop)
    envelope = _unfold_backward(w.pow(2).expand(1, n_frames, n_fft), [1, total], 1, n_fft, hop)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else -(n_fft // 2) if center else total
    y, envelope = y[:, start:end], envelope[:, start:end]
    lowest = envelope.abs().min().lt(1e-11)
    if lowest:
        raise RuntimeError(where() + f"window overlap add min: {int(lowest)}\n[ CPUBoolType{{}} ]")
    y = y / envelope
    if real.ndim == 3:
        y = y.squeeze(0)
    if end > total:
        if not _istft_warned:   # once per process, as torch's
            _istft_warned.append(True)
            warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with "
                          "zeros in the tail. Please check your center and hop_length settings.")
        y = constant_pad_nd(y, (0, end - total), 0)
    return y


_istft_warned = []
