"""Registry entries for scaled dot-product attention (ndgrad/ops/attention.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def F(T):
    return T.nn.functional


def _sdpa(**kw):
    return lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, **kw)


FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"


QKV = [S(1, 2, 3, 4), S(1, 2, 3, 4), S(1, 2, 3, 4)]


# torch has no double backward for the fused CPU kernel; the math path has one
ATTENTION = [
    OpInfo("sdpa", _sdpa(), QKV, grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_causal", _sdpa(is_causal=True), [S(1, 2, 3, 4), S(1, 2, 5, 4), S(1, 2, 5, 4)], grad_fn=FLASH,
           gradgrad=False),
    OpInfo("sdpa_scale", _sdpa(scale=0.3), QKV, grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_gqa", _sdpa(enable_gqa=True), [S(1, 4, 3, 4), S(1, 2, 3, 4), S(1, 2, 3, 4)], grad_fn=FLASH,
           gradgrad=False),
    OpInfo("sdpa_bool_mask", lambda T, q, k, v: F(T).scaled_dot_product_attention(
        q, k, v, attn_mask=T.tensor([[True, False, True], [True, True, False], [False, True, True]])), QKV,
        grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_float_mask", lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
           QKV + [S(3, 3, requires_grad=False)], grad_fn=FLASH, gradgrad=False),
    # a fully masked row: zeros out, zero gradients (the backward's probabilities from the logsumexp -inf)
    OpInfo("sdpa_bool_mask_empty_row", lambda T, q, k, v: F(T).scaled_dot_product_attention(
        q, k, v, attn_mask=T.tensor([[True, False, True], [False, False, False], [False, True, True]])), QKV,
        grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_math_mask_requires_grad",
           lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
           QKV + [S(1, 3)], grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_3d_causal", _sdpa(is_causal=True), [S(2, 3, 4), S(2, 3, 4), S(2, 3, 4)],
           grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_value_dim", _sdpa(scale=-0.5), [S(1, 2, 3, 4), S(1, 2, 3, 4), S(1, 2, 3, 2)],
           grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_gqa_3d", _sdpa(enable_gqa=True), [S(4, 3, 2), S(2, 3, 2), S(2, 3, 2)],
           grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_dropout", _sdpa(dropout_p=0.5), QKV, grad_fn="UnsafeViewBackward0", check_grad=False,
           torch_parity=False),
]

OPS = ATTENTION
