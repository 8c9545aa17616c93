"""Scaled dot-product attention: torch's CPU flash-attention op and its backward, and the user-facing
scaled_dot_product_attention, which picks that op or composes the math path as torch does.
"""
import math

import numpy as np

from .. import _dtype
from ..backends.cuda import _sdp_enabled as _sdp_switches   # torch.nn.attention.sdpa_kernel sets them
from ._registry import op
from ..autograd.grad_mode import no_grad
from . import activation, creation, linalg, pointwise
from .dropout import dropout


# ---- scaled dot-product attention ---------------------------------------------------------
def _attention_scores(query, key, is_causal, attn_mask, scale):
    """(the scaled, masked attention scores, the scale); the key heads repeated for GQA."""
    s = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    scores = query @ np.swapaxes(key, -1, -2)   # a fresh array, scaled and masked in place
    scores = _in_place(np.multiply, scores, s)
    if attn_mask is not None:
        scores = _in_place(np.add, scores, attn_mask)
    if is_causal:
        L, S = scores.shape[-2:]
        np.copyto(scores, -np.inf, where=~np.tri(L, S, dtype=bool))
    return scores, s


def _in_place(ufunc, a, b):
    """ufunc(a, b), into `a` (an array of ours) when the result has its shape and dtype."""
    if np.result_type(a, b) == a.dtype and np.broadcast_shapes(a.shape, np.shape(b)) == a.shape:
        return ufunc(a, b, out=a)
    return ufunc(a, b)


def _attention_probs(query, key, is_causal, attn_mask, scale):
    """(softmax probabilities, logsumexp) of the attention scores; the key heads repeated for GQA."""
    scores, s = _attention_scores(query, key, is_causal, attn_mask, scale)
    m = scores.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    e = np.exp(_in_place(np.subtract, scores, m), out=scores)
    total = e.sum(-1, keepdims=True)
    # the probabilities as exp(s - max) / sum, not exp(s - logsumexp): the rounding of a float32
    # logsumexp would scale every probability of the row (torch's kernel divides too)
    return _in_place(np.divide, e, total), (np.log(total) + m)[..., 0], s


def _repeat_heads(x, heads):
    return x if x.shape[1] == heads else np.repeat(x, heads // x.shape[1], axis=1)


@op("_scaled_dot_product_flash_attention_for_cpu", public="_scaled_dot_product_flash_attention_for_cpu")
def _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False, *,
                                                attn_mask=None, scale=None):
    if dropout_p > 0:
        raise NotImplementedError("_scaled_dot_product_flash_attention_for_cpu: dropout is not supported by "
                                  "ndgrad's kernel; use F.scaled_dot_product_attention (its math path)")
    heads = query.shape[1]
    p, lse, _ = _attention_probs(query, _repeat_heads(key, heads), is_causal, attn_mask, scale)
    p = np.nan_to_num(p, copy=False)   # fully masked rows give zeros
    return p @ _repeat_heads(value, heads), lse


@op("_scaled_dot_product_flash_attention_for_cpu_backward",
    public="_scaled_dot_product_flash_attention_for_cpu_backward")
def _scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                                                         is_causal, *, attn_mask=None, scale=None):
    heads = query.shape[1]
    k, v = _repeat_heads(key, heads), _repeat_heads(value, heads)
    # the probabilities from the forward's logsumexp: the scores again, but not their max and sum
    p, s = _attention_scores(query, k, is_causal, attn_mask, scale)
    p = _in_place(np.subtract, p, logsumexp[..., None])
    p = np.nan_to_num(np.exp(p, out=p), copy=False)
    grad_v = np.swapaxes(p, -1, -2) @ grad_out
    ds = grad_out @ np.swapaxes(v, -1, -2)   # d loss / d p, then in place d loss / d scores
    ds = _in_place(np.subtract, ds, (grad_out * out).sum(-1, keepdims=True))
    ds = _in_place(np.multiply, ds, p)
    ds = _in_place(np.multiply, ds, s)
    grad_q, grad_k = ds @ k, np.swapaxes(ds, -1, -2) @ query

    def fold(g, like):   # GQA: sum the gradients of the repeated heads
        b, h = like.shape[:2]
        return g.reshape((b, h, -1) + g.shape[2:]).sum(2) if g.shape[1] != h else g
    return grad_q, fold(grad_k, key), fold(grad_v, value)


def _convert_mask(mask, dtype):
    """A boolean attention mask as additive float (-inf where attention is not allowed)."""
    if mask is None or mask.dtype != _dtype.bool_:
        return mask
    return pointwise.where(mask.logical_not(), creation.tensor(-math.inf, dtype=dtype), creation.tensor(0.0, dtype=dtype))


def _flash_cpu_applies(q, k, v, mask, dropout_p, enable_gqa):
    """torch's CPU backend choice: the fused flash kernel for plain 4-D inputs, else the math path."""
    if not (q.ndim == k.ndim == v.ndim == 4) or dropout_p > 0:
        return False
    if mask is not None and mask.requires_grad:
        return False
    if not (q.shape[0] == k.shape[0] == v.shape[0] and k.shape[1] == v.shape[1] and k.shape[2] == v.shape[2]):
        return False
    if not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return False
    return q.shape[1] == k.shape[1] or enable_gqa and q.shape[1] % k.shape[1] == 0


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead.")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must be at least 2-D "
                           f"(got {query.ndim}D, {key.ndim}D and {value.ndim}D)")
    if not enable_gqa and query.ndim >= 3 and key.ndim >= 3 and query.shape[-3] != key.shape[-3] \
            and 1 not in (query.shape[-3], key.shape[-3]):
        raise RuntimeError(f"scaled_dot_product_attention: query has {query.shape[-3]} heads but key has "
                           f"{key.shape[-3]}; pass enable_gqa=True for grouped-query attention")
    mask = _convert_mask(attn_mask, query.dtype)
    if _sdp_switches["flash"] and _flash_cpu_applies(query, key, value, mask, dropout_p, enable_gqa):
        return _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal,
                                                           attn_mask=mask, scale=scale)[0]
    if not _sdp_switches["math"]:   # torch.nn.attention.sdpa_kernel left no kernel that can run
        if not _sdp_switches["flash"]:
            raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                               "turning off both the math kernel and the fused kernels.")
        raise RuntimeError("No available kernel.  Aborting execution.")
    return _attention_math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa)


def _repeat_heads_interleaved(x, reps):
    """x.repeat_interleave(reps, -3), built as torch builds it (unsqueeze, expand, copy, view)."""
    shape = tuple(x.shape)
    grown = x.unsqueeze(-3).expand(shape[:-2] + (reps,) + shape[-2:]).clone()
    return grown.view(shape[:-3] + (shape[-3] * reps,) + shape[-2:])


def _attention_math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa):
    """torch's composite attention (the graph it records when the fused kernel does not apply)."""
    s = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    factor = math.sqrt(abs(s))
    query = query * (-factor if s < 0 else factor)
    if is_causal:
        if mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        L, S = query.shape[-2], key.shape[-2]
        mask = _convert_mask(creation.ones(L, S, dtype=_dtype.bool_).tril(), query.dtype)
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        reps = query.shape[-3] // key.shape[-3]
        key, value = _repeat_heads_interleaved(key, reps), _repeat_heads_interleaved(value, reps)
    attn = linalg.matmul(query, key.transpose(-2, -1) * factor)
    if mask is not None:
        attn = attn + mask
    with no_grad():
        blocked = (attn == -math.inf).all(-1, keepdim=True) if mask is not None else None
    if blocked is not None and blocked.any():   # torch's safe softmax: rows with nothing to attend give 0
        attn = activation.softmax(attn.masked_fill(blocked, 0.0), -1).masked_fill(blocked, 0.0)
    else:
        attn = activation.softmax(attn, -1)
    if dropout_p > 0:
        attn = dropout(attn, dropout_p, True)
    return linalg.matmul(attn, value)
