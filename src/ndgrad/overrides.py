"""torch.overrides: the `__torch_function__` protocol's public helpers (the protocol itself runs in
every op's entry point: ops/_torch_function.py)."""
import contextlib
import functools
import inspect
import warnings

from .ops import _torch_function
from .ops._torch_function import (handle_torch_function, has_torch_function, has_torch_function_unary,  # noqa: F401
                                  has_torch_function_variadic, is_tensor_like)
from ._tensor import Tensor
from .autograd.grad_mode import grad_flag

__all__ = ["TorchFunctionMode", "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function",
           "get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "resolve_name",
           "enable_reentrant_dispatch"]


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


# ---- which public functions take part in the protocol ---------------------------------------------------
# The namespaces torch.overrides walks, by the name torch gives them (resolve_name's strings evaluate with
# `import ndgrad as torch`). They are looked up by name when first asked for: nn sits above this layer.
_NAMESPACES = (("torch", "ndgrad", None), ("torch.functional", "ndgrad.functional", "__all__"),
               ("torch.nn.functional", "ndgrad.nn.functional", None), ("torch.nn.init", "ndgrad.nn.init", None),
               ("torch.Tensor", None, None), ("torch.linalg", "ndgrad.linalg", None),
               ("torch.fft", "ndgrad.fft", None), ("torch.special", "ndgrad.special", None))
# the names through which a function's own code hands a call to __torch_function__
_DISPATCHERS = frozenset({"_dispatch_torch_function", "handle_torch_function", "has_torch_function",
                          "has_torch_function_unary", "has_torch_function_variadic", "_tensor_torch_function"})


def _dispatches(func, depth=3):
    """Whether calling `func` reaches a `__torch_function__` check, read from its code (not run): its code
    names one of the protocol's entry points, or it wraps (a Tensor method its op's public function) or
    calls by a global name or a module's attribute (a public function the op it picks) a function that
    does, `depth` calls deep at most. A reading of the code: a function that inspects its argument before
    calling an op counts as overridable too."""
    code = getattr(func, "__code__", None)
    if code is None:
        return False
    if _DISPATCHERS.intersection(code.co_names):
        return True
    if depth == 0:
        return False
    wrapped = getattr(func, "__wrapped__", None)
    if wrapped is not None and _dispatches(wrapped, depth - 1):
        return True
    scope = getattr(func, "__globals__", {})
    names = code.co_names
    called = [scope.get(n) for n in names]
    modules = [m for m in called if isinstance(m, type(functools)) and m.__name__.startswith("ndgrad")]
    called += [getattr(m, n, None) for m in modules for n in names]   # `_ops.relu(...)`
    return any(_dispatches(f, depth - 1) for f in called if callable(f) and not isinstance(f, type))


def _members(namespace):
    """(qualified name, torch-spelled name, the namespace object, names) of one walked namespace."""
    import importlib   # lazy on purpose: the namespaces above this layer are imported by then, by name
    torch_name, module_name, names_attr = namespace
    ns = Tensor if module_name is None else importlib.import_module(module_name)
    # a module's own attributes (dir() would list, and getattr import, ndgrad's lazily loaded submodules)
    names = getattr(ns, names_attr) if names_attr else dir(ns) if ns is Tensor else list(vars(ns))
    return torch_name, ns, names


@functools.cache
def _walk():
    """(overridable: namespace -> [functions], ignored: set, index: function -> name), computed once."""
    overridable, ignored, index = {}, set(), {}
    for namespace in _NAMESPACES:
        torch_name, ns, names = _members(namespace)
        for name in names:
            if name.startswith("__") and ns is not Tensor:
                continue
            func = getattr(ns, name, None)
            if func is None or isinstance(func, type(functools)) or inspect.isclass(func):
                continue
            if ns is Tensor and getattr(object, name, None) is func:
                continue
            private = ns is not Tensor and (name.startswith("_") or name.endswith("_") or not name[0].islower())
            attr = inspect.getattr_static(ns, name) if ns is Tensor else func
            if isinstance(attr, property):   # a Tensor property: its getter (and setter) stand for it
                index[attr.__get__] = f"{torch_name}.{name}.__get__"
                index[attr.__set__] = f"{torch_name}.{name}.__set__"
                (overridable.setdefault(attr, []).append(attr.__get__) if _dispatches(attr.fget)
                 else ignored.add(attr.__get__))
                continue
            if not callable(func):
                continue
            index.setdefault(func, f"{torch_name}.{name}")
            if private:
                continue
            if _dispatches(func):
                overridable.setdefault(ns, []).append(func)
            else:
                ignored.add(func)
    return overridable, ignored, index


def get_ignored_functions():
    """The public functions of torch's namespaces (and Tensor's methods) that do not take part in the
    `__torch_function__` protocol in ndgrad: those whose code never checks its arguments for it.

    Example::

        >>> torch.is_tensor in torch.overrides.get_ignored_functions()
        True
        >>> torch.add in torch.overrides.get_ignored_functions()
        False
    """
    return set(_walk()[1])


def get_overridable_functions():
    """The functions a `__torch_function__` sees, by namespace (module, Tensor; a Tensor property maps
    to its getter).

    Example::

        >>> torch.add in torch.overrides.get_overridable_functions()[torch]
        True
    """
    return {ns: list(funcs) for ns, funcs in _walk()[0].items()}


def resolve_name(f):
    """The name by which `f` is reached from torch's namespaces (``"torch.add"``, ``"torch.Tensor.add"``),
    None for a function outside them.

    Example::

        >>> torch.overrides.resolve_name(torch.nn.functional.relu)
        'torch.nn.functional.relu'
    """
    return _walk()[2].get(f)


def get_testing_overrides():
    """A stand-in for every overridable function: same signature (``inspect.signature``), returns -1, for
    testing a `__torch_function__` implementation against the whole API.

    Example::

        >>> override = torch.overrides.get_testing_overrides()[torch.add]
        >>> override(1, 2)
        -1
    """
    out = {}
    for funcs in _walk()[0].values():
        for func in funcs:
            def stand_in(*args, **kwargs):
                return -1
            try:
                stand_in.__signature__ = inspect.signature(func)
            except (TypeError, ValueError):   # a builtin without one takes anything
                pass
            stand_in.__name__ = stand_in.__qualname__ = getattr(func, "__name__", "stand_in")
            out[func] = stand_in
    return out


class _Mode:
    """A mode's context-manager protocol, shared by function and dispatch modes: entering pushes the
    mode on its stack (the subclass's `_push`), leaving pops it (`_pop`)."""

    def __enter__(self):
        type(self)._push(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        type(self)._pop()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class TorchFunctionMode(_Mode):
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

    _push = staticmethod(lambda mode: _push_mode(mode))   # (looked up when called: defined below)
    _pop = staticmethod(lambda: _pop_mode())


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


# grad mode outside each running __torch_dispatch__ handler that runs below autograd (pushed by
# utils/_python_dispatch.py, innermost last)
_outside_dispatch = []


@contextlib.contextmanager
def enable_reentrant_dispatch():
    """Inside a ``__torch_dispatch__`` handler, autograd for the block as it is outside the handler.

    A dispatch handler runs below autograd: while it handles an op that autograd records, grad mode
    is off, so what it computes records nothing. This context manager turns grad mode back to what
    it was when the op was called. Outside any handler it raises torch's RuntimeError.

    Example::

        >>> class Sub(torch.Tensor):
        ...     @classmethod
        ...     def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        ...         with torch.overrides.enable_reentrant_dispatch():
        ...             print(torch.ones(1, requires_grad=True).exp().grad_fn.name())
        ...         with torch.utils._mode_utils.no_dispatch():
        ...             return func(*args, **kwargs)
        >>> y = torch.sin(Sub._make_subclass(Sub, torch.ones(2), True))
        ExpBackward0
        >>> y.grad_fn.name()
        'SinBackward0'
    """
    if not _outside_dispatch:
        raise RuntimeError("Accessing torch dispatch state outside of '__torch_dispatch__' is not allowed.")
    with grad_flag(_outside_dispatch[-1]):
        yield
