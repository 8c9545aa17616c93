"""Registry entries for ops whose derivative-table entry no other family's sample reached (see
op_db/__init__.py for the format): complex construction, conjugation and FFT kernels, the lazy
negative view, stable sort, topk, nextafter, in-place as_strided, the dual-number ops under func.jvp.

Complex results go through `view_as_real`, so that gradcheck, forward AD and torch parity see real
inputs and outputs while the complex op's own node and forward formula are the ones checked.
"""
from . import OpInfo, S

POS = dict(low=0.5, high=1.5)


def _z(T, a, b):
    return T.complex(a, b)


OPS = [
    OpInfo("complex_view_as_real", lambda T, a, b: T.view_as_real(T.complex(a, b)), [S(2, 3), S(2, 3)],
           grad_fn="ViewAsRealBackward0"),
    OpInfo("polar_view_as_real", lambda T, r, th: T.view_as_real(T.polar(r, th)), [S(2, 3, **POS), S(2, 3)],
           grad_fn="ViewAsRealBackward0"),
    OpInfo("view_as_complex_exp", lambda T, x: T.view_as_real(T.view_as_complex(x).exp()), [S(3, 2)],
           grad_fn="ViewAsRealBackward0"),
    OpInfo("conj_physical_of_complex", lambda T, a, b: T.view_as_real(_z(T, a, b).conj_physical()),
           [S(2, 3), S(2, 3)], grad_fn="ViewAsRealBackward0"),
    OpInfo("conj_of_complex", lambda T, a, b: T.view_as_real(_z(T, a, b).conj().exp()), [S(2, 3), S(2, 3)],
           grad_fn="ViewAsRealBackward0"),
    OpInfo("fft_c2c_forward", lambda T, a, b: T.view_as_real(T.fft.fft(_z(T, a, b))), [S(2, 3), S(2, 3)],
           grad_fn="ViewAsRealBackward0"),
    OpInfo("fft_c2c_inverse_dim0", lambda T, a, b: T.view_as_real(T.fft.ifft(_z(T, a, b), dim=0)),
           [S(2, 3), S(2, 3)], grad_fn="ViewAsRealBackward0"),
    OpInfo("fft_c2r_irfft", lambda T, a, b: T.fft.irfft(_z(T, a, b)), [S(2, 3), S(2, 3)], grad_fn="FftC2RBackward0"),
    OpInfo("to_complex_dtype", lambda T, x: T.view_as_real(x.to(T.complex128)), [S(2, 3)],
           grad_fn="ViewAsRealBackward0"),
    OpInfo("_neg_view_mul", lambda T, x, y: T._neg_view(x) * y, [S(2, 3), S(2, 3)], grad_fn="MulBackward0"),
    OpInfo("as_strided_inplace", lambda T, x: x.clone().as_strided_((2, 2), (1, 2)), [S(2, 3)],
           grad_fn="AsStridedBackward1"),
    OpInfo("sort_stable_descending", lambda T, x: T.sort(x, stable=True, dim=1, descending=True), [S(2, 3)],
           grad_fn="SortBackward1"),
    OpInfo("topk", lambda T, x: T.topk(x, 2, dim=1), [S(2, 3)], grad_fn="TopkBackward0"),
    OpInfo("nextafter_grad", lambda T, x, y: T.nextafter(x, y), [S(2, 3), S(3)], grad_fn="NextafterBackward0"),
    # func.jvp makes its inputs dual (_make_dual) and reads the primal back (_fw_primal): the tangent's
    # gradient runs their backward formulas; under the forward-AD test it nests a second dual level,
    # which ndgrad supports (their `result:` formulas) and torch 2.13 refuses (forward_ad_support's TORCH_FAILED)
    OpInfo("func_jvp_tangent", lambda T, x, t: T.func.jvp(T.sin, (x,), (t,))[1], [S(2, 3), S(2, 3)],
           grad_fn="MulBackward0"),
    # the primal output: torch returns it through an alias (AliasBackward0), ndgrad through _fw_primal
    # (torch::autograd::Identity, the node torch gives unpack_dual's primal): names differ, no parity
    OpInfo("func_jvp_primal", lambda T, x, t: T.func.jvp(T.sin, (x,), (t,))[0], [S(2, 3), S(2, 3)],
           torch_parity=False),
]
