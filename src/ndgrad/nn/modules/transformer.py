"""Transformer layers: TransformerEncoder/Decoder(Layer) and Transformer, built from
MultiheadAttention, Linear, Dropout and LayerNorm as torch builds them."""
import copy
import warnings

from ... import _dtype
from ...autograd.grad_mode import is_grad_enabled
from ...ops.creation import arange, zeros
from .. import functional as F, init
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _activation(activation):
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerEncoderLayer(Module):
    """One layer of a Transformer encoder: self-attention then a feed-forward block (two linear
    layers), each with a residual connection, dropout and layer normalization.

    Args:
        d_model (int): the model's size ``E``.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the hidden size of the feed-forward block. Default: ``2048``.
        dropout (float): the dropout probability. Default: ``0.1``.
        activation (str or callable): of the feed-forward block: ``'relu'``, ``'gelu'`` or a function.
            Default: `F.relu`.
        layer_norm_eps (float): the `eps` of the layer norms. Default: ``1e-5``.
        batch_first (bool): inputs and outputs are `(N, L, E)` rather than `(L, N, E)`. Default: ``False``.
        norm_first (bool): apply the layer norms before each block (pre-norm) rather than after the
            residual additions. Default: ``False``.
        bias (bool): biases in the linear layers and layer norms. Default: ``True``.

    Shape:
        src: `(S, N, E)`, `(N, S, E)` with `batch_first`, or `(S, E)` unbatched.
        src_mask: `(S, S)` attention mask; src_key_padding_mask: `(N, S)`.
        output: the shape of `src`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> layer = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
        >>> layer(torch.randn(3, 5, 8)).shape
        torch.Size([3, 5, 8])
    """
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        self.activation_relu_or_gelu = self.activation in (F.relu, F.gelu)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """One layer of a Transformer decoder: self-attention over the target, attention over the
    encoder's output (the memory), then a feed-forward block, each with a residual connection, dropout and
    layer normalization.

    Args:
        d_model (int): the model's size ``E``.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the hidden size of the feed-forward block. Default: ``2048``.
        dropout (float): the dropout probability. Default: ``0.1``.
        activation (str or callable): of the feed-forward block: ``'relu'``, ``'gelu'`` or a function.
            Default: `F.relu`.
        layer_norm_eps (float): the `eps` of the layer norms. Default: ``1e-5``.
        batch_first (bool): inputs and outputs are `(N, L, E)` rather than `(L, N, E)`. Default: ``False``.
        norm_first (bool): apply the layer norms before each block (pre-norm) rather than after the
            residual additions. Default: ``False``.
        bias (bool): biases in the linear layers and layer norms. Default: ``True``.

    Shape:
        tgt: `(T, N, E)`, `(N, T, E)` with `batch_first`, or `(T, E)` unbatched.
        memory: `(S, N, E)` (or batch first, or unbatched).
        tgt_mask: `(T, T)`; memory_mask: `(T, S)`; the key padding masks `(N, T)` and `(N, S)`.
        output: the shape of `tgt`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> layer = torch.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> layer(torch.randn(4, 3, 8), torch.randn(6, 3, 8)).shape
        torch.Size([4, 3, 8])
    """
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _why_not_nested(layer):
    """Why torch's TransformerEncoder would not take its nested-tensor inference path with `layer`."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    for failed, why in ((layer.norm_first, "norm_first was True"),
                        (not attn.batch_first, "self_attn.batch_first was not True(use batch_first for better "
                                               "inference performance)"),
                        (not attn._qkv_same_embed_dim, "self_attn._qkv_same_embed_dim was not True"),
                        (attn.in_proj_bias is None, "self_attn was passed bias=False"),
                        (not layer.activation_relu_or_gelu, "activation_relu_or_gelu was not True"),
                        (layer.norm1.eps != layer.norm2.eps, f"norm1.eps was not equal to {name}.norm2.eps"),
                        (attn.num_heads % 2 == 1, "self_attn.num_heads is odd")):
        if failed:
            return f"{name}.{why}"
    return ""


class TransformerEncoder(Module):
    """A stack of `num_layers` copies of an encoder layer (deep copies, each with its own parameters),
    with an optional final normalization.

    ndgrad has no nested tensors: where torch takes its nested-tensor inference path (evaluation
    without gradients, with a key padding mask), ndgrad runs the padded batch and zeros the padded
    positions of the output, as torch's path returns them.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy.
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the last layer's output.
        enable_nested_tensor (bool): torch's nested-tensor fast path for padded batches. Default: ``True``.
        mask_check (bool): check the mask when choosing the fast path. Default: ``True``.

    Shape:
        src: `(S, N, E)`, `(N, S, E)` with the layer's `batch_first`, or `(S, E)` unbatched.
        output: the shape of `src`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> layer = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> encoder = torch.nn.TransformerEncoder(layer, num_layers=3, enable_nested_tensor=False)
        >>> encoder(torch.randn(5, 3, 8)).shape
        torch.Size([5, 3, 8])
    """
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        if self._nested_path(src, mask, src_key_padding_mask):
            # torch runs inference on a nested tensor of the unpadded rows and pads the result with zeros
            padding = src_key_padding_mask if src_key_padding_mask.dtype == _dtype.bool_ else src_key_padding_mask != 0
            out = out.masked_fill(padding.unsqueeze(-1), 0.0)
        return self.norm(out) if self.norm is not None else out

    def _nested_path(self, src, mask, padding):
        """Whether torch would take its nested-tensor inference path for this call."""
        if not self.use_nested_tensor or self.layers[0].training or src.dim() != 3 or padding is None \
                or mask is not None:
            return False
        keep = (padding == 0) if padding.dtype != _dtype.bool_ else ~padding
        if self.mask_check and not bool((keep.int().cummin(1)[0] == keep.int()).all()):   # not left-aligned
            return False
        return not (is_grad_enabled() and (src.requires_grad or any(p.requires_grad for p in self.parameters())))


class TransformerDecoder(Module):
    """A stack of `num_layers` copies of a decoder layer (deep copies, each with its own parameters),
    with an optional final normalization.

    Args:
        decoder_layer (TransformerDecoderLayer): the layer to copy.
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the last layer's output.

    Shape:
        tgt: `(T, N, E)`, `(N, T, E)` with the layer's `batch_first`, or `(T, E)` unbatched.
        memory: `(S, N, E)` (or batch first, or unbatched).
        output: the shape of `tgt`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> layer = torch.nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16)
        >>> decoder = torch.nn.TransformerDecoder(layer, num_layers=2)
        >>> decoder(torch.randn(4, 3, 8), torch.randn(6, 3, 8)).shape
        torch.Size([4, 3, 8])
    """
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


def generate_square_subsequent_mask(sz, device=None, dtype=None):
    """The causal mask: -inf above the diagonal, 0 elsewhere."""
    above = arange(sz).unsqueeze(1) < arange(sz).unsqueeze(0)
    return zeros(sz, sz, dtype=dtype).masked_fill_(above, float("-inf"))


class Transformer(Module):
    """An encoder-decoder Transformer: a `TransformerEncoder` over the source and a `TransformerDecoder`
    over the target that attends to the encoder's output.

    Args:
        d_model (int): the model's size ``E``. Default: ``512``.
        nhead (int): the number of attention heads. Default: ``8``.
        dim_feedforward (int): the hidden size of the feed-forward block. Default: ``2048``.
        dropout (float): the dropout probability. Default: ``0.1``.
        activation (str or callable): of the feed-forward block: ``'relu'``, ``'gelu'`` or a function.
            Default: `F.relu`.
        layer_norm_eps (float): the `eps` of the layer norms. Default: ``1e-5``.
        batch_first (bool): inputs and outputs are `(N, L, E)` rather than `(L, N, E)`. Default: ``False``.
        norm_first (bool): apply the layer norms before each block (pre-norm) rather than after the
            residual additions. Default: ``False``.
        bias (bool): biases in the linear layers and layer norms. Default: ``True``.
        num_encoder_layers (int): the number of encoder layers. Default: ``6``.
        num_decoder_layers (int): the number of decoder layers. Default: ``6``.
        custom_encoder (Module, optional): an encoder to use instead.
        custom_decoder (Module, optional): a decoder to use instead.

    Shape:
        src: `(S, N, E)`, `(N, S, E)` with `batch_first`, or `(S, E)` unbatched.
        tgt: `(T, N, E)` (or batch first, or unbatched).
        output: the shape of `tgt`.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> model = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
        ...                              dim_feedforward=16, batch_first=True)
        >>> src, tgt = torch.randn(3, 5, 8), torch.randn(3, 4, 8)
        >>> mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
        >>> model(src, tgt, tgt_mask=mask).shape
        torch.Size([3, 4, 8])
        >>> mask[:2]
        tensor([[0., -inf, -inf, -inf],
                [0., 0., -inf, -inf]])
    """
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():   # torch re-initialises every matrix of the model with xavier_uniform
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)


__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "Transformer"]
