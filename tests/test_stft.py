"""Short-time Fourier transforms: istft inverts stft (values, gradients, recorded nodes, torch's errors)."""
import pytest

import ndgrad

from parity import both, same_error


def _signal(T):
    return T.linspace(-1, 1, 64, dtype=T.float64) ** 3


def _spec(T, **kw):
    w = T.hann_window(16, dtype=T.float64)
    return T.stft(_signal(T), 16, hop_length=4, window=w, return_complex=True, **kw), w


def test_istft_inverts_stft_for_each_framing():
    def scenario(T):
        x, w = _signal(T), T.hann_window(16, dtype=T.float64)
        w10 = T.hann_window(10, dtype=T.float64)
        out = []
        for kw in ({}, {"normalized": True}, {"win_length": 10, "window": w10}):
            k = {"window": w, **kw}
            out.append(T.istft(T.stft(x, 16, hop_length=4, return_complex=True, **k), 16, hop_length=4, **k))
        batch = T.stft(x.reshape(2, 32), 16, hop_length=4, window=w, return_complex=True)
        out.append(T.istft(batch, 16, hop_length=4, window=w))
        full = T.stft(x.to(T.complex128), 16, hop_length=4, window=w, return_complex=True)
        out.append(T.istft(full, 16, hop_length=4, window=w, onesided=False, return_complex=True).real)
        out.append(T.istft(T.stft(x, 16, return_complex=True), 16))   # default hop and rectangular window
        return out
    r = both(scenario)
    # (the reconstruction error is rounding: its last bits differ between FFT libraries and CPUs)
    x = _signal(ndgrad).numpy()
    assert max(abs(y - x).max() for y in r[:3]) < 1e-12 and r[3].shape == (2, 32)


def test_istft_length_trims_or_pads_with_zeros():
    def scenario(T):
        spec, w = _spec(T)
        return [T.istft(spec, 16, hop_length=4, window=w, length=n) for n in (50, 80)]
    short, long = both(scenario)
    assert short.shape == (50,) and long.shape == (80,) and (long[72:] == 0).all() and (long[64:72] != 0).all()


def test_istft_gradients_and_nodes_are_torchs():
    def scenario(T):
        spec, w = _spec(T)
        spec, w = spec.detach().requires_grad_(), w.requires_grad_()
        y = T.istft(spec, 16, hop_length=4, window=w)
        names, fn = [], y.grad_fn
        while fn.next_functions:
            names.append(fn.name())
            fn = fn.next_functions[0][0]
        y.pow(2).sum().backward()
        return [names, spec.grad, w.grad]
    names = both(scenario)[0]
    assert names[:5] == ["SqueezeBackward1", "DivBackward0", "SliceBackward0", "UnfoldBackwardBackward0",
                         "MulBackward0"]


@pytest.mark.parametrize("call", [
    lambda T: T.istft(T.view_as_real(_spec(T)[0]), 16),                     # not complex
    lambda T: T.istft(_spec(T)[0], 20, hop_length=4),                       # frequencies vs n_fft
    lambda T: T.istft(_spec(T)[0], 16, onesided=False),
    lambda T: T.istft(_spec(T)[0], 16, win_length=20),
    lambda T: T.istft(_spec(T)[0], 16, hop_length=0),
    lambda T: T.istft(_spec(T)[0], 16, window=T.ones(10, dtype=T.float64)),
    lambda T: T.istft(_spec(T)[0], 16, window=T.zeros(16, dtype=T.float64)),   # overlap-add vanishes
    lambda T: T.istft(_spec(T)[0], 16, return_complex=True),                 # onesided and complex
    lambda T: T.istft(_spec(T)[0].reshape(1, 1, 9, 17), 16),
], ids=["real", "onesided-size", "twosided-size", "win_length", "hop", "window-shape", "nola", "complex-onesided",
        "4d"])
def test_istft_refuses_what_torch_refuses(call):
    same_error(call)


def test_istft_of_a_1d_tensor_is_an_index_error():
    same_error(lambda T: T.istft(_spec(T)[0][0], 16), IndexError)


def test_istft_pads_past_the_signal_with_one_warning(monkeypatch):
    monkeypatch.setattr(ndgrad.ops.fft, "_istft_warned", [])
    spec, w = _spec(ndgrad)
    with pytest.warns(UserWarning, match="shorter than the length parameter"):
        ndgrad.istft(spec, 16, hop_length=4, window=w, length=80)
