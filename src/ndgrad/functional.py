"""torch.functional: the module where torch defines these functions in Python (each is also a
top-level name); ndgrad's are the ops of the same names."""
from .ops import _registry

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
           "block_diag", "cdist", "chain_matmul", "einsum", "lu", "norm", "meshgrid", "split", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]

globals().update({name: _registry.OPS[name] for name in __all__})

