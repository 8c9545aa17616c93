"""The `__torch_function__` protocol: an argument whose type defines `__torch_function__` (a Tensor
subclass, or any class that acts like a Tensor) takes over the call of a public function.

Every public op checks its arguments once (`plain`: a type-set lookup per argument, so that calls
on plain Tensors and Python values pay almost nothing); only when some argument overrides does
`handle_torch_function` collect the overriding types, subclasses before their bases, and call
their `__torch_function__(func, types, args, kwargs)` until one returns something other than
NotImplemented. Tensor's own `__torch_function__` (the default every subclass inherits) runs the
function with subclass dispatch disabled and converts the Tensor results to the subclass;
`_disabled_torch_function_impl` opts a subclass out entirely (Parameter does).
"""
import threading

from .. import _tensor
from .._tensor import Tensor

_NOT_OVERRIDING = {Tensor, int, float, bool, complex, str, type(None), slice, type(...)}
_state = threading.local()   # .disabled: 0 on, 1 Tensor subclasses off (DisableTorchFunctionSubclass), 2 all off

# TorchFunctionMode's stack (overrides.py), innermost last. While it is not empty, the type sets of
# _FAST_SETS (_NOT_OVERRIDING, the Tensor operators' own) are emptied, their types parked, so that
# every op's inline argument check sends the call here: the ops pay nothing for modes while none is
# active. (One stack for the process: torch's is per thread.)
_modes = []
_FAST_SETS = [_NOT_OVERRIDING]
_parked = []


def _push_function_mode(mode):
    if not _modes:
        _parked[:] = [set(s) for s in _FAST_SETS]
        for s in _FAST_SETS:
            s.clear()
    _modes.append(mode)


def _pop_function_mode():
    if not _modes:
        raise RuntimeError("trying to pop from empty mode stack")
    mode = _modes.pop()
    if not _modes:
        for s, types in zip(_FAST_SETS, _parked):
            s.update(types)
        _parked.clear()
    return mode


def _mode_active():
    """Whether a TorchFunctionMode takes calls now (DisableTorchFunction turns modes off too)."""
    return bool(_modes) and _disabled_level() < 2


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """A `__torch_function__` that opts a Tensor subclass out of the protocol: ops see it as a Tensor."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _disabled_level():
    return getattr(_state, "disabled", 0)


def _overrides(t):
    """Whether instances of type `t` take over calls (cached per type in `_OVERRIDING`). PyTorch's own
    tensors are foreign arrays here (exchanged through DLPack / __array__), not overrides: their
    `__torch_function__` serves torch's functions, not ndgrad's."""
    if any(k.__name__ == "TensorBase" and k.__module__ == "torch._C" for k in t.__mro__):
        return False
    tf = getattr(t, "__torch_function__", None)
    tf = getattr(tf, "__func__", tf)
    return tf is not None and tf is not _disabled_torch_function_impl


_OVERRIDING = {Tensor: False}   # Tensor itself never overrides: its default is the plain call


def _overriding_type(a, level):
    t = type(a)
    yes = _OVERRIDING.get(t)
    if yes is None:
        yes = _OVERRIDING[t] = _overrides(t)
    if not yes:
        (_parked[0] if _modes else _NOT_OVERRIDING).add(t)   # from now on skipped by the ops' inline check
        return None
    if level == 2 or level == 1 and issubclass(t, Tensor):
        return None
    return t


def plain(args):
    """True when no argument (nor element of a list/tuple argument) overrides torch functions: the
    check every public op makes before anything else (False for every call while a mode is active)."""
    if _modes and _mode_active():
        return False
    for a in args:
        t = type(a)
        if t in _NOT_OVERRIDING:
            continue
        if t is list or t is tuple:
            if not plain(a):
                return False
        elif _overriding_type(a, _disabled_level()) is not None:
            return False
    return True


def has_torch_function(relevant_args):
    """Whether an argument of `relevant_args` overrides torch functions.

    True when an element is not a plain Tensor and its type defines ``__torch_function__`` (a
    Tensor subclass or another tensor-like class), unless that protocol is disabled; used by a
    function of tensors to decide whether to call :func:`handle_torch_function`.

    Args:
        relevant_args (tuple): the arguments to look at.

    Returns:
        bool: whether one of them overrides torch functions.

    Example::

        >>> class Logged:
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         return "intercepted"
        >>> x = torch.ones(2)
        >>> torch.autograd.has_torch_function((x,)), torch.autograd.has_torch_function((x, Logged()))
        (False, True)
    """
    return not plain(relevant_args)


def has_torch_function_unary(arg):
    return not plain((arg,))


def has_torch_function_variadic(*args):
    return not plain(args)


def _overloaded_types(relevant_args):
    """The overriding types, in order of first appearance with each subclass moved before its bases,
    and the arguments that carry them, as torch orders them."""
    level = _disabled_level()
    types, args = [], []

    def visit(a):
        if type(a) in (list, tuple):
            for x in a:
                visit(x)
            return
        t = _overriding_type(a, level)
        if t is None or t in types:
            return
        index = len(types)
        for i, seen in enumerate(types):
            if issubclass(t, seen):
                index = i
                break
        types.insert(index, t)
        args.insert(index, a)
    for a in relevant_args:
        visit(a)
    return types, args


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call `public_api` through the ``__torch_function__`` of the overriding arguments.

    The overriding arguments of `relevant_args` are tried in torch's order (subclasses before
    their bases, then left to right); the first result that is not ``NotImplemented`` is returned.
    A function of tensors calls it when :func:`has_torch_function` is true, so that tensor-like
    types can take it over.

    Args:
        public_api (callable): the function being called, passed to ``__torch_function__``.
        relevant_args (tuple): the arguments that may override it.
        args, kwargs: the arguments of the call.

    Returns:
        Any: what the ``__torch_function__`` that handled the call returned.

    Raises:
        TypeError: if every handler returned ``NotImplemented``.

    Example::

        >>> class Logged:
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         return f"{func.__name__} intercepted"
        >>> def double(a):
        ...     if torch.autograd.has_torch_function((a,)):
        ...         return torch.autograd.handle_torch_function(double, (a,), a)
        ...     return a * 2
        >>> double(torch.ones(2)), double(Logged())
        (tensor([2., 2.]), 'double intercepted')
    """
    types, overloaded = _overloaded_types(relevant_args)
    mode = None
    if _mode_active():   # the innermost mode first, popped while its handler runs (its calls go to the next)
        mode = _pop_function_mode()
        try:
            result = mode.__torch_function__(public_api, tuple(types), args, kwargs or None)
        finally:
            _push_function_mode(mode)
        if result is not NotImplemented:
            return result
    for a in overloaded:   # bound: a classmethod gets the type, a plain method the instance
        result = a.__torch_function__(public_api, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    module = public_api.__module__ or "ndgrad"
    module = "torch" if module.startswith("ndgrad.ops") or module == "ndgrad" else module.replace("ndgrad", "torch", 1)
    handlers = (f"  - mode object {mode}\n" if mode is not None else "") + \
        "".join(f"  - tensor subclass {t}\n" for t in types)
    raise TypeError(f"Multiple dispatch failed for '{module}.{public_api.__name__}'; all __torch_function__ handlers "
                    f"returned NotImplemented:\n\n{handlers}\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


def dispatch(public_api, args, kwargs):
    """A public op's call when `plain(args)` failed: through `__torch_function__` if an argument
    (positional or keyword) overrides, else None (the op runs as usual)."""
    relevant = args + tuple(kwargs.values()) if kwargs else args
    if plain(relevant):
        return _NO_OVERRIDE
    return handle_torch_function(public_api, relevant, *args, **kwargs)


_NO_OVERRIDE = object()


def is_tensor_like(inp):
    """Whether `inp` is a Tensor or behaves as one for torch functions.

    True for a Tensor (and its subclasses) and for any object whose type defines
    ``__torch_function__``.

    Args:
        inp (Any): the object to test.

    Returns:
        bool: whether it is tensor-like.

    Example::

        >>> class Logged:
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         return NotImplemented
        >>> torch.autograd.is_tensor_like(torch.ones(2)), torch.autograd.is_tensor_like(Logged())
        (True, True)
        >>> torch.autograd.is_tensor_like([1.0])
        False
    """
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


class _Disable:
    _level = 0

    def __enter__(self):
        self._old = _disabled_level()
        _state.disabled = max(self._old, self._level)
        return self

    def __exit__(self, *exc):
        _state.disabled = self._old


class DisableTorchFunctionSubclass(_Disable):
    """A context manager inside which the ``__torch_function__`` of Tensor subclasses is not called (the
    overrides of other types still are); functions return plain tensors.

    Example::

        >>> class Logged(torch.Tensor):
        ...     @classmethod
        ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
        ...         print("override:", func.__name__)
        ...         return super().__torch_function__(func, types, args, kwargs or {})
        >>> t = torch.tensor([1.0]).as_subclass(Logged)
        >>> with torch.DisableTorchFunctionSubclass():
        ...     type(torch.add(t, 1)).__name__
        'Tensor'
    """
    _level = 1


class DisableTorchFunction(_Disable):
    """A context manager inside which no ``__torch_function__`` override is called, neither of Tensor
    subclasses nor of other types: functions run their default implementation on the plain tensors.

    Example::

        >>> class Logged(torch.Tensor):
        ...     @classmethod
        ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
        ...         print("override:", func.__name__)
        ...         return super().__torch_function__(func, types, args, kwargs or {})
        >>> t = torch.tensor([1.0]).as_subclass(Logged)
        >>> _ = torch.add(t, 1)
        override: add
        >>> with torch.DisableTorchFunction():
        ...     _ = torch.add(t, 1)
    """
    _level = 2


def _convert(ret, cls):
    """Tensor results as instances of `cls` (Tensor.__torch_function__'s conversion)."""
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)
    return ret


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: run `func` as on plain Tensors, results converted to `cls`."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        return _convert(func(*args, **kwargs), cls)


Tensor.__torch_function__ = classmethod(_tensor_torch_function)
_tensor.disabled_torch_function = _disabled_torch_function_impl   # given to __torch_dispatch__ subclasses
