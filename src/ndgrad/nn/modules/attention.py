"""MultiheadAttention and multi_head_attention_forward, which follows torch's composition (packed
in-projection, heads folded into the batch, bmm + softmax when the weights are returned,
scaled_dot_product_attention otherwise), so the same weights give torch's outputs and gradients."""
import math

from ... import _dtype
from ...ops.creation import empty, zeros, zeros_like
from ...ops.linalg import baddbmm, bmm
from ...ops.shape import cat
from .. import functional as F, init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module


def _float_mask(mask, name, dtype):
    """A boolean mask (True = not allowed) becomes an additive one (-inf where True)."""
    if mask is None:
        return None
    if mask.dtype == _dtype.bool_:
        return zeros_like(mask, dtype=dtype).masked_fill_(mask, float("-inf"))
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _in_projection(query, key, value, w, b, q_w=None, k_w=None, v_w=None):
    """q, k, v projections: one linear and a split for self-attention, as torch packs them."""
    if q_w is not None:   # separate weights (kdim/vdim differ from embed_dim)
        bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
        return F.linear(query, q_w, bq), F.linear(key, k_w, bk), F.linear(value, v_w, bv)
    e = query.shape[-1]
    if key is value:
        if query is key:
            proj = F.linear(query, w, b)
            proj = proj.unflatten(-1, (3, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = F.linear(key, w_kv, b_kv)
        kv = kv.unflatten(-1, (2, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return F.linear(query, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention with the weights given explicitly: the computation of
    :class:`~ndgrad.nn.MultiheadAttention`'s forward.

    The query, key and value are projected (`in_proj_weight`, or the three separate weights), split
    into `num_heads` heads, attended with scaled dot products (masks added, dropout on the weights
    while `training`) and projected back by `out_proj_weight`.

    Args:
        query (Tensor): ``(L, N, E)``, or ``(L, E)`` unbatched.
        key, value (Tensor): ``(S, N, E)``, or ``(S, E)`` unbatched.
        embed_dim_to_check (int): the expected embedding size ``E``.
        num_heads (int): the number of heads (dividing ``E``).
        in_proj_weight, in_proj_bias (Tensor): the stacked input projections, ``(3E, E)`` and ``(3E)``.
        bias_k, bias_v (Tensor or None): biases appended to the key and value sequences.
        add_zero_attn (bool): append a batch of zeros to the key and value sequences.
        dropout_p (float): the dropout probability on the attention weights.
        out_proj_weight, out_proj_bias (Tensor): the output projection.
        training (bool, optional): apply dropout. Default: True.
        key_padding_mask (Tensor, optional): ``(N, S)``, boolean (True where a key is
            ignored) or added to the scores.
        need_weights (bool, optional): also return the attention weights. Default: True.
        attn_mask (Tensor, optional): ``(L, S)`` or ``(N * num_heads, L, S)``, boolean or additive.
        use_separate_proj_weight (bool, optional): use `q_proj_weight`, `k_proj_weight` and
            `v_proj_weight` instead of `in_proj_weight`. Default: False.
        static_k, static_v: not supported by ndgrad (must be None).
        average_attn_weights (bool, optional): average the weights over the heads. Default: True.
        is_causal (bool, optional): a hint that `attn_mask` is the causal mask. Default: False.

    Returns:
        tuple: the output ``(L, N, E)`` and the attention weights (``(N, L, S)``, or per head
        ``(N, num_heads, L, S)``; None without `need_weights`).

    Example::

        >>> _ = torch.manual_seed(0)
        >>> mha = torch.nn.MultiheadAttention(4, 2)
        >>> q = torch.ones(3, 1, 4)
        >>> out, weights = torch.nn.functional.multi_head_attention_forward(
        ...     q, q, q, 4, 2, mha.in_proj_weight, mha.in_proj_bias, None, None, False, 0.0,
        ...     mha.out_proj.weight, mha.out_proj.bias)
        >>> out.shape, weights.shape
        (torch.Size([3, 1, 4]), torch.Size([1, 3, 3]))
        >>> torch.allclose(out, mha(q, q, q)[0])
        True
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k/static_v are not supported by ndgrad")
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    key_padding_mask = _float_mask(key_padding_mask, "key_padding_mask", query.dtype)
    attn_mask = _float_mask(attn_mask, "attn_mask", query.dtype)

    if use_separate_proj_weight:
        q, k, v = _in_projection(query, key, value, None, in_proj_bias, q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                               f"{(bsz * num_heads, tgt_len, src_len)}.")
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))

    # heads folded into the batch: (N * heads, L, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k = cat([k, zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype)], 1)
        v = cat([v, zeros(bsz * num_heads, 1, head_dim, dtype=v.dtype)], 1)
        attn_mask = None if attn_mask is None else F.pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        padding = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
        padding = padding.reshape(bsz * num_heads, 1, src_len)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores_q = q * math.sqrt(1.0 / float(head_dim))
        scores = (baddbmm(attn_mask, scores_q, k.transpose(-2, -1)) if attn_mask is not None
                  else bmm(scores_q, k.transpose(-2, -1)))
        weights = F.softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        out = bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = attn_mask.view(bsz, num_heads, -1, src_len) if attn_mask.shape[0] != 1 \
            else attn_mask.unsqueeze(0)
    q, k, v = (t.view(bsz, num_heads, -1, head_dim) for t in (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
    return (out if batched else out.squeeze(1)), None


class MultiheadAttention(Module):
    """Multi-head attention: the query, key and value are projected into `num_heads` heads, each head
    computes ``softmax(q k^T / sqrt(head_dim) + mask) v``, and the heads are concatenated and projected.

    Args:
        embed_dim (int): the model's size ``E`` (the query's features); divisible by `num_heads`.
        num_heads (int): the number of heads, each of size ``E / num_heads``.
        dropout (float): dropout on the attention weights, in training. Default: ``0.0``.
        bias (bool): add biases to the input and output projections. Default: ``True``.
        add_bias_kv (bool): append a learned bias step to the keys and values. Default: ``False``.
        add_zero_attn (bool): append a step of zeros to the keys and values. Default: ``False``.
        kdim (int, optional): the key's features (default: `embed_dim`).
        vdim (int, optional): the value's features (default: `embed_dim`).
        batch_first (bool): inputs and outputs are `(N, L, E)` rather than `(L, N, E)`. Default: ``False``.

    Shape:
        query: `(L, N, E)`, `(N, L, E)` with `batch_first`, or `(L, E)` unbatched.
        key: `(S, N, kdim)` (or batch first, or unbatched).
        value: `(S, N, vdim)` (or batch first, or unbatched).
        key_padding_mask: `(N, S)`: True (or -inf) marks a key to ignore.
        attn_mask: `(L, S)` or `(N * num_heads, L, S)`: True (or -inf) forbids a position.
        output: the attention output, shaped as `query`, and the weights `(N, L, S)` averaged over
            the heads (`(N, num_heads, L, S)` with ``average_attn_weights=False``), or None with
            ``need_weights=False``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        >>> x = torch.randn(3, 5, 8)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        (torch.Size([3, 5, 8]), torch.Size([3, 5, 5]))
        >>> torch.allclose(weights.sum(-1), torch.ones(3, 5))
        True
    """
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        dt = dtype if dtype is not None else _dtype.get_default_dtype()
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty(embed_dim, embed_dim, dtype=dt))
            self.k_proj_weight = Parameter(empty(embed_dim, self.kdim, dtype=dt))
            self.v_proj_weight = Parameter(empty(embed_dim, self.vdim, dtype=dt))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, dtype=dt))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, embed_dim, dtype=dt))
            self.bias_v = Parameter(empty(1, 1, embed_dim, dtype=dt))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batch_first = self.batch_first and query.dim() == 3
        if batch_first:   # keep `query is key is value`: the in-projection packs self-attention
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if batch_first:
            out = out.transpose(1, 0)
        return out, weights


__all__ = ["MultiheadAttention"]
