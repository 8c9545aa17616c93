"""torch.overrides: the `__torch_function__` protocol's public helpers (the protocol itself runs in
every op's entry point: ops/_torch_function.py)."""
import functools

from .ops._torch_function import (handle_torch_function, has_torch_function, has_torch_function_unary,  # noqa: F401
                                  has_torch_function_variadic, is_tensor_like)
from ._tensor import Tensor

__all__ = ["handle_torch_function", "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function"]


def is_tensor_method_or_property(func):
    """Whether `func` is a method or property of Tensor (what `__torch_function__` sees for `t.add(...)`)."""
    name = getattr(func, "__name__", None)
    return name is not None and getattr(Tensor, name, None) is func or isinstance(func, property)


def wrap_torch_function(dispatcher):
    """Decorator: the function dispatches through `__torch_function__` on the arguments that
    `dispatcher(*args, **kwargs)` returns."""
    def inner(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)
        return wrapped
    return inner
