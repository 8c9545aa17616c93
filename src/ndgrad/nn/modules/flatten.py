"""Flatten and Unflatten: modules that reshape a range of dimensions."""
from .module import Module


class Flatten(Module):
    """Flattens the dimensions `start_dim` to `end_dim` into one (by default all but the batch dimension).

    Args:
        start_dim (int): the first dimension flattened. Default: ``1``.
        end_dim (int): the last dimension flattened. Default: ``-1``.

    Shape:
        Input: `(*, S_start, ..., S_end, *)`.
        Output: `(*, S_start * ... * S_end, *)`.

    Example::

        >>> m = torch.nn.Flatten()
        >>> m(torch.zeros(32, 1, 5, 5)).shape
        torch.Size([32, 25])
    """
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits one dimension into several: the inverse of `Flatten`.

    Args:
        dim (int): the dimension to split. Named dimensions (a str) are not supported by ndgrad.
        unflattened_size (tuple of ints): the new sizes, whose product is the size of `dim` (one may be -1).

    Shape:
        Input: `(*, S_dim, *)`.
        Output: `(*, U_1, ..., U_n, *)`.

    Example::

        >>> m = torch.nn.Unflatten(1, (2, 5, 5))
        >>> m(torch.zeros(2, 50)).shape
        torch.Size([2, 2, 5, 5])
    """
    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise NotImplementedError("Unflatten: named tensors (a str dim) are not supported by ndgrad")
        if not isinstance(unflattened_size, (tuple, list)) or not all(isinstance(s, int) for s in unflattened_size):
            raise TypeError(f"unflattened_size must be tuple of ints, but found type {type(unflattened_size).__name__}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


__all__ = ["Flatten", "Unflatten"]
