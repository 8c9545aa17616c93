"""Forward implementations on raw arrays, one module per op family.

Each forward is registered with `@op("<derivatives.yaml name>")` (see `_dispatch.py`); importing
this package registers them all. Public names land in `ndgrad`, methods on `Tensor`.
"""
from . import creation, indexing, linalg, nn, nn_conv, nn_norm, pointwise, random, reduction, shape  # noqa: F401
from . import linalg_decomp  # noqa: F401
from . import sort_complex_fft  # noqa: F401
from . import nn_extra  # noqa: F401
from . import rnn  # noqa: F401
from . import dual  # noqa: F401
from . import quantize, special  # noqa: F401
from . import misc  # noqa: F401
from . import sparse  # noqa: F401
from . import nested  # noqa: F401
