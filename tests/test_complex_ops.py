"""Complex128 behaviour of single ops that the OpInfo runner's complex mode found wrong.

Each scenario runs on ndgrad and, where torch is installed, on torch, and the results must agree.
"""
import cmath

import pytest

import ndgrad

from parity import both


def test_complex_logsumexp_gives_the_principal_log():
    def scenario(T):
        x = T.tensor([[1 + 2j, -3 + 1j], [0.5 - 4j, 2 + 3j], [-1 - 3j, 0.25 + 3.1j]], dtype=T.complex128)
        return [T.logsumexp(x, 1), T.logsumexp(x, (0, 1)), T.logsumexp(x, 0, keepdim=True)]
    rows, whole, _ = both(scenario)
    assert abs(rows[1] - cmath.log(cmath.exp(0.5 - 4j) + cmath.exp(2 + 3j))) < 1e-12
    assert all(-cmath.pi < v.imag <= cmath.pi for v in list(rows) + [complex(whole)])


def test_ldexp_of_a_complex_tensor_has_conjugated_gradients():
    def scenario(T):
        x = T.tensor([1 + 2j, -0.5 + 1j], dtype=T.complex128, requires_grad=True)
        e = T.tensor([2.0, -1.0], dtype=T.float64)
        y = T.ldexp(x, e)
        (y * T.tensor([1 - 1j, 2 + 0.5j], dtype=T.complex128)).real.sum().backward()
        return [y, x.grad]
    y, gx = both(scenario)
    assert list(y) == [4 + 8j, -0.25 + 0.5j]
    assert list(gx) == [4 + 4j, 1 - 0.25j]


def test_cfloat_and_cdouble_take_a_memory_format():
    def scenario(T):
        x = T.arange(24, dtype=T.float64).reshape(1, 2, 3, 4)
        c = x.cdouble(memory_format=T.channels_last)
        f = x.cfloat(memory_format=T.contiguous_format)
        return [c, c.stride(), f.dtype == T.complex64, f.is_contiguous()]
    out = both(scenario)
    assert out[1] == [24, 1, 8, 2] and out[2:] == [True, True]


def test_complex_logcumsumexp_values_gradients_and_infinities():
    inf, nan = float("inf"), float("nan")

    def scenario(T):
        x = T.tensor([[1 + 2j, -3 + 1j, complex(-inf, 0), 0.5 - 4j], [2 + 3j, -1 - 3j, 0.25 + 3.1j, 50 + 1j]],
                     dtype=T.complex128, requires_grad=True)
        y = T.logcumsumexp(x, 1)
        (y * T.tensor([1 - 1j, 2 + 0.5j, 0.3j, -1 + 0j], dtype=T.complex128)).real.sum().backward()
        edges = [T.logcumsumexp(T.tensor(v, dtype=T.complex128), 0) for v in
                 ([nan + 0j, 1j], [complex(-inf, 1), complex(-inf, 2)], [complex(inf, 1), complex(inf, 2)])]
        return [y, x.grad.resolve_conj()] + edges   # (torch leaves the conj bit on this grad)
    out = both(scenario)
    assert abs(out[0][0][1] - cmath.log(cmath.exp(1 + 2j) + cmath.exp(-3 + 1j))) < 1e-12
    assert ndgrad.autograd.gradcheck(lambda a: ndgrad.logcumsumexp(a, 0),
                                     (ndgrad.tensor([1 + 2j, -3 + 1j, 0.5 - 4j], dtype=ndgrad.complex128,
                                                    requires_grad=True),))


def test_chalf_names_the_missing_complex32_dtype():
    with pytest.raises(NotImplementedError, match="complex32"):
        ndgrad.ones(2).chalf()


@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("shape, kwargs", [((4,), {}), ((5,), {}), ((4,), {"n": 6}), ((2, 3), {"dim": 0}),
                                           ((3, 4), {"norm": "ortho"})])
def test_fft_of_a_real_input_has_torchs_signed_zeros(name, shape, kwargs):
    # the spectrum of a real signal is completed by conjugate symmetry, as torch does: +0. imaginary
    # parts where a full complex transform gives -0. (and -0. for the inverse, its conjugate)
    import numpy as np

    def scenario(T):
        x = T.arange(float(np.prod(shape)), dtype=T.float64).reshape(shape) ** 1.5
        out = getattr(T.fft, name)(x, **kwargs).resolve_conj()
        return [out, np.signbit(out.imag.resolve_neg().numpy()).astype(int)]   # the signs compared too
    out, signs = both(scenario)
    if shape == (4,) and not kwargs:   # real DC and Nyquist terms: +0. (fft), -0. (ifft)
        assert out[0].imag == out[2].imag == 0.0
        assert signs[0] == signs[2] == (name == "ifft")


def test_fft_and_ifft_of_a_real_input_values():
    out = both(lambda T: [T.fft.fft(T.tensor([1.0, 2.0, 3.0, 4.0])),
                          T.fft.ifft(T.tensor([1.0, 2.0, 3.0, 4.0])).resolve_conj()])
    assert out[0].tolist() == [10 + 0j, -2 + 2j, -2 + 0j, -2 - 2j]
    assert [str(z) for z in out[0]] == ["(10+0j)", "(-2+2j)", "(-2+0j)", "(-2-2j)"]
    assert [str(z) for z in out[1]] == ["(2.5-0j)", "(-0.5-0.5j)", "(-0.5-0j)", "(-0.5+0.5j)"]
