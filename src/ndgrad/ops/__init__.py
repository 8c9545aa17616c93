"""Forward implementations on raw arrays, one module per op family.

Each forward is registered with `@op("<derivatives.yaml name>")` (see `_registry.py`); importing
this package registers them all. Public names land in `ndgrad`, methods on `Tensor`. The families
below the nn line are the kernels behind `ndgrad.nn.functional` (same family names there).
"""
profiler = None   # torch.ops.profiler: the record_function ops, set by autograd.profiler
from ._aten import aten  # noqa: F401,E402  (torch.ops.aten, before the families that add functions to it)

from . import creation, indexing, linalg, pointwise, random, reduction, shape  # noqa: F401
from . import linalg_decompositions, fft, special, sparse, nested, dual  # noqa: F401
# nn families
from . import activation, loss, normalization, dropout, embedding, padding, sampling  # noqa: F401
from . import convolution, pooling, distance, attention, recurrent, quantization  # noqa: F401
from . import tensor_operators  # noqa: F401,E402  (Python operators on Tensor: after every family)
