"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode, set_multithreading_enabled.

The flags live in one object read on every op (`state.enabled`). As torch's AutogradState they
are per thread: a thread starts with grad mode on and inference mode off whatever the thread that
started it has set, and a mode switched in one thread (backward switches grad mode while it runs)
is not seen by another. Each mode works as a context manager and as a decorator, as torch's do.
"""
from typing import Any

import functools
import inspect
import threading
import warnings


class _State(threading.local):
    """The thread's flags. A threading.local: each thread sees its own attributes, set to the
    defaults below the first time that thread touches `state`."""

    def __init__(self):
        self.enabled = True
        self.inference = False
        self.view_replay = False    # regenerate views after in-place by replaying their view ops, not as_strided
        self.multithreading = True  # torch keeps it per thread too; ndgrad's engine runs on the caller's thread
        self.fw_grad = True         # forward AD computes tangents (off: dual tensors act as plain ones)
        self.grad_layout = True     # AccumulateGrad keeps a gradient only when it is strided like its leaf


state = _State()


def is_grad_enabled():
    """Whether gradient recording is on in this thread (off inside :class:`ndgrad.no_grad` and
    :class:`ndgrad.inference_mode`).

    Returns:
        bool: the flag.

    Example::

        >>> torch.is_grad_enabled()
        True
        >>> with torch.no_grad():
        ...     torch.is_grad_enabled()
        False
    """
    return state.enabled


def is_inference_mode_enabled():
    """Whether this thread is inside :class:`ndgrad.inference_mode`.

    Returns:
        bool: the flag.

    Example::

        >>> with torch.inference_mode():
        ...     torch.is_inference_mode_enabled()
        True
        >>> torch.is_inference_mode_enabled()
        False
    """
    return state.inference


def _check_bool(fn_name, mode):
    if type(mode) is not bool:
        raise TypeError(f"{fn_name}(): argument 'enabled' (position 1) must be bool, not {type(mode).__name__}")


def _set_grad_enabled(mode):
    _check_bool("set_grad_enabled", mode)
    state.enabled = mode


class grad_flag:
    """ndgrad's internal, cheap switch of grad mode: ``with grad_flag(False):`` runs a block without
    recording a graph, and restores the previous mode on exit.

    Unlike :class:`ndgrad.no_grad` and :class:`ndgrad.set_grad_enabled` it is not a decorator and
    does not check its argument; ndgrad's own code uses it on hot paths.

    Args:
        mode (bool): whether operations are recorded inside the block.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> with torch.autograd.graph.grad_flag(False):
        ...     (x * 2).requires_grad
        False
        >>> torch.is_grad_enabled()
        True
    """
    __slots__ = ("mode", "prev")

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc):
        state.enabled = self.prev


def _wrap_generator(make_ctx, fn):
    """A generator function whose every resumption of `fn`'s generator (send, throw, close) runs
    inside a fresh `make_ctx()`, while the caller's mode holds whenever it has control."""
    @functools.wraps(fn)
    def gen_wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with make_ctx():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_ctx():
                        gen.close()
                    raise
                except BaseException as exc:  # noqa: BLE001 - thrown in by the caller: passed on to gen
                    with make_ctx():
                        response = gen.throw(exc)
                else:
                    with make_ctx():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return gen_wrapper


class _Mode:
    """Base of the modes: a context manager that also decorates. Each call of a decorated
    function enters a fresh copy (`clone()`), so one decorator serves nested and concurrent calls."""
    _args = ()

    def __call__(self, fn):
        if inspect.isclass(fn):
            # as torch: still allowed, the class becomes a function that builds it inside the mode
            warnings.warn("Decorating classes is deprecated and will be disabled in future versions. You should "
                          "only decorate functions or methods. To preserve the current behavior of class "
                          "decoration, you can directly decorate the `__init__` method and nothing else.",
                          FutureWarning, stacklevel=2)
            cls = fn

            def fn(*args, **kwargs):
                return cls(*args, **kwargs)
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(self.clone, fn)
        make_ctx = self.clone

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with make_ctx():
                return fn(*args, **kwargs)
        return wrapper

    def __enter__(self) -> None:
        self._prev = state.enabled
        self._apply()

    def __exit__(self, *exc: object) -> bool:
        state.enabled = self._prev
        return False

    def clone(self):
        return self.__class__(*self._args)


class _NoParamMode(_Mode):
    """A mode without arguments that also decorates bare: `@no_grad` and `no_grad(fn)` are `no_grad()(fn)`."""

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamMode):
    """Context manager (or decorator) that turns gradient recording off.

    Ops run inside it record no graph and their results do not require grad, which saves the
    memory of saved values; use it for evaluation and for updating parameters by hand. It is
    thread-local: other threads keep their own mode.

    Example::

        >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> with torch.no_grad():
        ...     y = w * 2
        >>> y.requires_grad
        False
        >>> @torch.no_grad()
        ... def evaluate(t):
        ...     return t * 2
        >>> evaluate(w).requires_grad
        False
    """
    def _apply(self):
        state.enabled = False


class enable_grad(_NoParamMode):
    """Context manager (or decorator) that turns gradient recording back on inside `no_grad`.

    Example::

        >>> x = torch.tensor(1.0, requires_grad=True)
        >>> with torch.no_grad():
        ...     with torch.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """
    def _apply(self):
        state.enabled = True


class set_grad_enabled(_Mode):
    """Turns gradient recording on or off: at once when called, or for the block of a ``with`` statement
    (or of a decorated function), after which the previous mode comes back.

    Args:
        mode (bool): whether operations are recorded for autograd.

    Example::

        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.set_grad_enabled(False):
        ...     y = x * 2
        >>> y.requires_grad
        False
        >>> _ = torch.set_grad_enabled(False)
        >>> (x * 2).requires_grad
        False
        >>> _ = torch.set_grad_enabled(True)
    """

    def __init__(self, mode):
        _check_bool("set_grad_enabled", mode)
        self._args = (mode,)
        self._prev = state.enabled
        state.enabled = mode

    def __enter__(self):
        state.enabled = self._args[0]

    def __call__(self, fn):
        state.enabled = self._prev  # as a decorator it must not switch the mode now
        return super().__call__(fn)

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self._args[0]})"

    __str__ = __repr__


class inference_mode(_Mode):
    """A context manager (or decorator) for code that never needs gradients: inside it no operation is
    recorded, and the tensors made there are inference tensors: outside such a block they cannot be
    saved for backward nor changed in place.

    With ``mode=False`` it turns inference mode off (and grad mode on) inside an inference-mode block.
    Every flag is restored on exit; ``@inference_mode`` without parentheses decorates a function too.

    Args:
        mode (bool): turn inference mode on (``True``) or off. Default: ``True``.

    Example::

        >>> x = torch.ones(2, requires_grad=True)
        >>> with torch.inference_mode():
        ...     y = x * 2
        >>> y.requires_grad, y.is_inference()
        (False, True)
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode=True):
        self._args = (mode,)

    def __enter__(self):
        on = self._args[0]
        self._prev = (state.enabled, state.inference, state.view_replay, state.multithreading, state.fw_grad)
        # as torch's InferenceMode guard: the whole autograd state is replaced, not only the two flags
        state.enabled, state.inference, state.view_replay, state.multithreading, state.fw_grad = \
            not on, on, False, not on, not on

    def __exit__(self, *exc):
        state.enabled, state.inference, state.view_replay, state.multithreading, state.fw_grad = self._prev
        return False


class _force_original_view_tracking(_Mode):
    """Whether a view whose base was modified in place gets its grad_fn by replaying its original
    view ops (True: `ViewBackward0`, `SelectBackward0`...) or from one `as_strided` of the base
    (False, the default: `AsStridedBackward0`). Set at once when called; restored on leaving `with`."""

    def __init__(self, mode):
        self._args = (bool(mode),)
        self._saved_replay = state.view_replay
        state.view_replay = self._args[0]

    def __enter__(self):
        state.view_replay = self._args[0]

    def __exit__(self, *exc):
        state.view_replay = self._saved_replay
        return False

    def __call__(self, fn):
        state.view_replay = self._saved_replay   # as a decorator it must not switch the mode now
        return super().__call__(fn)


def _is_view_replay_enabled():
    """Whether views are recorded so that autograd can replay them (view replay, on inside
    ``torch.autograd._force_original_view_tracking(True)``); off by default.

    Example::

        >>> torch.autograd.is_view_replay_enabled()
        False
    """
    return state.view_replay


def is_multithreading_enabled():
    """Whether the backward passes of different threads may run at the same time (on by default;
    :class:`ndgrad.autograd.set_multithreading_enabled` changes it).

    Example::

        >>> torch.autograd.is_multithreading_enabled()
        True
    """
    return state.multithreading


def _set_multithreading_enabled(mode):
    _check_bool("set_multithreading_enabled", mode)
    state.multithreading = mode


class set_multithreading_enabled(_Mode):
    """Allow or forbid backward to use several threads.

    The setting is per thread, as in torch, and takes effect when the object is created; used as
    a context manager it is restored on exit (as a decorator it is also set at once, as in torch).
    ndgrad's engine always runs on the calling thread, so the flag changes nothing but what
    :func:`ndgrad.autograd.is_multithreading_enabled` reports; it is kept for torch's API.

    Args:
        mode (bool): whether multithreaded backward is allowed.

    Example::

        >>> with torch.autograd.set_multithreading_enabled(False):
        ...     torch.autograd.is_multithreading_enabled()
        False
    """

    def __init__(self, mode):
        prev = state.multithreading
        _set_multithreading_enabled(mode)   # checks first, so a bad mode changes nothing
        self._args, self._prev_mt = (mode,), prev

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        state.multithreading = self._prev_mt
        return False


def _is_grad_layout_enforcement_enabled():
    """Whether a leaf's first gradient must follow the layout contract (see enforce_grad_layout_policy)."""
    return state.grad_layout


def _set_grad_layout_enforcement_enabled(mode):
    state.grad_layout = bool(mode)


class enforce_grad_layout_policy(_Mode):
    """Whether a leaf's ``.grad`` must be strided like the leaf (the layout contract: like a dense leaf,
    row-major otherwise), which the accumulation of a first gradient ensures by copying when needed.

    With ``enable=False`` a gradient nothing else refers to becomes ``.grad`` as it is, strides
    included, instead of being copied into the leaf's layout; a gradient that must be copied anyway
    (one the caller still holds) is still laid out like the leaf. The flag is per thread, set when the
    object is created (as a function call it stays set) and restored on leaving ``with`` (as a
    decorator, set on each call only).

    Args:
        enable (bool): whether to enforce the contract (``True``, the default) or relax it.

    Example::

        >>> p = torch.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
        >>> with torch.autograd.enforce_grad_layout_policy(False):
        ...     (p * torch.ones(4, 2, 3)).sum().backward()
        >>> p.grad.stride()
        (6, 3, 1)
    """

    def __init__(self, enable=True):
        self.prev = state.grad_layout
        state.grad_layout = bool(enable)
        self.mode = enable
        self._args = (enable,)

    def __call__(self, fn):
        state.grad_layout = self.prev   # as a decorator it must not switch the policy now
        return super().__call__(fn)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        state.grad_layout = self.prev
        return False
