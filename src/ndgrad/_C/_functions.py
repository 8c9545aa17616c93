"""torch._C._functions: the node classes torch builds in C++ (see ndgrad._C)."""
