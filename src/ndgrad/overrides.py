"""torch.overrides: the `__torch_function__` protocol's public helpers (the protocol itself runs in
every op's entry point: ops/_torch_function.py)."""
import contextlib
import functools
import warnings

from .ops import _torch_function
from .ops._torch_function import (handle_torch_function, has_torch_function, has_torch_function_unary,  # noqa: F401
                                  has_torch_function_variadic, is_tensor_like)
from ._tensor import Tensor

__all__ = ["TorchFunctionMode", "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function"]


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


class TorchFunctionMode:
    """A context manager that takes over every call of a public torch function while it is active.

    Subclasses define ``__torch_function__(self, func, types, args=(), kwargs=None)``; inside
    ``with mode:`` each public op or function (factory functions too, and the Tensor operators and
    methods, which reach the public op) calls it, before the ``__torch_function__`` of any Tensor
    subclass among the arguments (``types``). Modes nest as a stack: the innermost handles a call,
    and while its handler runs it is off the stack, so that functions it calls go to the next mode
    (or run). Returning ``NotImplemented`` passes the call on to the arguments' overrides.

    Example::

        >>> class Log(torch.overrides.TorchFunctionMode):
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         print(func.__name__)
        ...         return func(*args, **(kwargs or {}))
        >>> with Log():
        ...     y = torch.ones(2).add(1)
        ones
        add
    """

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


def _get_current_function_mode():
    """The innermost active TorchFunctionMode (the one the next call goes to), or None."""
    return _torch_function._modes[-1] if _torch_function._modes else None


def _get_current_function_mode_stack():
    """The active TorchFunctionModes, innermost last."""
    return list(_torch_function._modes)


def _push_mode(mode):
    _torch_function._push_function_mode(mode)


def _pop_mode():
    return _torch_function._pop_function_mode()


@contextlib.contextmanager
def _pop_mode_temporarily():
    """The innermost mode off the stack for the block (yielded), back on after it."""
    old = _pop_mode()
    try:
        yield old
    finally:
        _push_mode(old)
