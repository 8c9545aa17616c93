"""torch._C._functions: the node classes torch builds in C++ (see ndgrad._C)."""
from ..autograd.function import DelayedError, Error, UndefinedGrad, UndefinedGradBackward  # noqa: F401
from ..autograd.node import AccumulateGrad  # noqa: F401
