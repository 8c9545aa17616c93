"""Flatten and Unflatten: modules that reshape a range of dimensions."""
from .module import Module


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
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
