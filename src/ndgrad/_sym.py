"""torch's sym_* helpers (torch.sym_int, torch.sym_max, ...) in eager mode: ndgrad has no symbolic shapes
(SymInt, SymFloat, SymBool), so they act on Python numbers, NumPy scalars and 0-d tensors as torch's
do on concrete values; an object whose type overrides ``__torch_function__`` takes the call over."""
import builtins
import math

import numpy as np

from .ops._torch_function import handle_torch_function, has_torch_function, has_torch_function_unary

__all__ = ["sym_float", "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum"]

_ALL_TYPES = (np.integer, np.floating, builtins.int, builtins.float)
_FLOAT_TYPES = (np.floating, builtins.float)


def sym_int(a):
    """``int(a)`` (truncation toward zero).

    Example::

        >>> torch.sym_int(-2.5), torch.sym_int(torch.tensor(3.7))
        (-2, 3)
    """
    if has_torch_function_unary(a):
        return handle_torch_function(sym_int, (a,), a)
    return builtins.int(a)


def sym_float(a):
    """``float(a)`` (or ``a.__sym_float__()`` where `a` defines it).

    Example::

        >>> torch.sym_float(2), torch.sym_float(torch.tensor(3))
        (2.0, 3.0)
    """
    if has_torch_function_unary(a):
        return handle_torch_function(sym_float, (a,), a)
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def _check_numbers(a, b):
    for x in (a, b):
        if not isinstance(x, _ALL_TYPES):
            raise AssertionError(f"expected {_ALL_TYPES}, got {type(x)}")
    return isinstance(a, _FLOAT_TYPES) or isinstance(b, _FLOAT_TYPES)


def sym_max(a, b):
    """``max(a, b)`` of two numbers, a float if either is one.

    Example::

        >>> torch.sym_max(3, 2), torch.sym_max(1, 2.0)
        (3, 2.0)
    """
    if has_torch_function((a, b)):
        return handle_torch_function(sym_max, (a, b), a, b)
    return builtins.float(builtins.max(a, b)) if _check_numbers(a, b) else builtins.max(a, b)


def sym_min(a, b):
    """``min(a, b)`` of two numbers, a float if either is one.

    Example::

        >>> torch.sym_min(3, 2), torch.sym_min(1, 2.0)
        (2, 1.0)
    """
    if has_torch_function((a, b)):
        return handle_torch_function(sym_min, (a, b), a, b)
    return builtins.float(builtins.min(a, b)) if _check_numbers(a, b) else builtins.min(a, b)


def sym_not(a):
    """``not a`` (or ``a.__sym_not__()`` where `a` defines it).

    Example::

        >>> torch.sym_not(torch.tensor(True)), torch.sym_not(0)
        (False, True)
    """
    if has_torch_function_unary(a):
        return handle_torch_function(sym_not, (a,), a)
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


def sym_ite(b, t, f):
    """``t if b else f``: `b` a bool, `t` and `f` of one type.

    Example::

        >>> torch.sym_ite(False, 1, 2)
        2
    """
    if has_torch_function((b, t, f)):
        return handle_torch_function(sym_ite, (b, t, f), b, t, f)
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_sqrt(a):
    """``math.sqrt(a)`` (or ``a.__sym_sqrt__()`` where `a` defines it).

    Example::

        >>> torch.sym_sqrt(4), torch.sym_sqrt(torch.tensor(9.0))
        (2.0, 3.0)
    """
    if has_torch_function_unary(a):
        return handle_torch_function(sym_sqrt, (a,), a)
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


def sym_sum(*args):
    """The sum of the numbers (``sym_sum(a, b, c)`` or ``sym_sum([a, b, c])``).

    Example::

        >>> torch.sym_sum([1, 2, 3]), torch.sym_sum(1, 2.5)
        (6, 3.5)
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    if has_torch_function(args):
        return handle_torch_function(sym_sum, args, args)
    return builtins.sum(args)
