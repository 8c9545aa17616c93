"""Embedding tables: Embedding (a lookup) and EmbeddingBag (a pooled lookup over bags)."""
from ...ops.creation import empty
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module
from .utils import _factory
from ...autograd.grad_mode import no_grad


class Embedding(Module):
    """A lookup table of `num_embeddings` vectors of size `embedding_dim`: the input holds indices,
    and each is replaced by its row of `weight`.

    Args:
        num_embeddings (int): the size of the table.
        embedding_dim (int): the size of each vector.
        padding_idx (int, optional): this row gets no gradient (it stays a fixed "padding" vector) and
            is initialised to zeros.
        max_norm (float, optional): rows looked up whose `norm_type` norm exceeds this are rescaled to
            it, in place in `weight`.
        norm_type (float): the p of the p-norm for `max_norm`. Default: ``2.0``.
        scale_grad_by_freq (bool): divide the gradients by the frequency of each index in the
            mini-batch. Default: ``False``.
        sparse (bool): the gradient of `weight` is a sparse tensor. Default: ``False``.

    Attributes:
        weight (Tensor): the learnable table, of shape `(num_embeddings, embedding_dim)`, initialised
            from ``N(0, 1)``.

    Shape:
        Input: `(*)`, integer indices in ``[0, num_embeddings)``.
        Output: `(*, embedding_dim)`.

    Example::

        >>> table = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
        >>> m = torch.nn.Embedding.from_pretrained(table)
        >>> m(torch.tensor([[1, 2], [2, 0]]))
        tensor([[[1., 2.],
                 [3., 4.]],
        <BLANKLINE>
                [[3., 4.],
                 [0., 0.]]])
        >>> torch.nn.Embedding(10, 3, padding_idx=0).weight[0]
        tensor([0., 0., 0.], grad_fn=<SelectBackward0>)
    """
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=_factory(dtype)),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        for name, default in (("padding_idx", None), ("max_norm", None), ("norm_type", 2),
                              ("scale_grad_by_freq", False), ("sparse", False)):
            if getattr(self, name) != default:
                text += f", {name}={getattr(self, name)}"
        return text


class EmbeddingBag(Module):
    """Sums, means or maxes of bags of embeddings: `Embedding` followed by a per-bag reduction, without
    materialising the looked-up rows of every bag.

    The bags are the rows of a 2-D `input` `(B, L)`, or, for a 1-D `input`, the slices that start at
    each entry of `offsets`.

    Args:
        num_embeddings (int): the size of the table.
        embedding_dim (int): the size of each vector.
        max_norm (float, optional): rows looked up whose norm exceeds this are rescaled to it, in place.
        norm_type (float): the p of the p-norm for `max_norm`. Default: ``2.0``.
        scale_grad_by_freq (bool): divide the gradients by the frequency of each index. Default: ``False``.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``.
        sparse (bool): the gradient of `weight` is a sparse tensor (not with ``'max'``). Default: ``False``.
        include_last_offset (bool): `offsets` has one more entry, the end of the last bag. Default: ``False``.
        padding_idx (int, optional): this index is left out of the bags (and its row gets no gradient).

    Attributes:
        weight (Tensor): the learnable table, `(num_embeddings, embedding_dim)`, initialised from ``N(0, 1)``.

    Shape:
        Input: `(B, L)`, or `(total)` with `offsets` `(B)`; ``forward(input, offsets=None,
            per_sample_weights=None)``, `per_sample_weights` (``'sum'`` only) of the input's shape.
        Output: `(B, embedding_dim)`.

    Example::

        >>> table = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> bag = torch.nn.EmbeddingBag.from_pretrained(table, mode='sum')
        >>> bag(torch.tensor([0, 1, 2, 2]), torch.tensor([0, 2]))
        tensor([[ 4.,  6.],
                [10., 12.]])
        >>> torch.nn.EmbeddingBag.from_pretrained(table)(torch.tensor([[0, 2]]))
        tensor([[3., 4.]])
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        if _weight is None:
            self.weight = Parameter(empty(num_embeddings, embedding_dim, dtype=_factory(dtype)))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)

    reset_parameters = Embedding.reset_parameters

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text


__all__ = ["Embedding", "EmbeddingBag"]
