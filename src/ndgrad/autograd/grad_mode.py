"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

The flags live in one slotted object read on every op (`state.enabled`). Each mode works as
a context manager and as a decorator, as torch's do.
"""
import functools
import inspect


class _State:
    __slots__ = ("enabled", "inference", "view_replay", "fw_grad")


state = _State()
state.enabled = True
state.inference = False
state.view_replay = False   # regenerate views after in-place by replaying their view ops, not as_strided
state.fw_grad = True        # forward AD computes tangents (off: dual tensors act as plain ones)


def is_grad_enabled():
    return state.enabled


def is_inference_mode_enabled():
    return state.inference


class grad_flag:
    """The internal, cheap switch of grad mode (no decorator support, no inference flag):
    `with grad_flag(False):` runs a block without recording."""
    __slots__ = ("mode", "prev")

    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc):
        state.enabled = self.prev


class _Mode:
    """Base of the modes: subclasses set `_target()`; entering saves and restores the flags."""

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__} can decorate functions, not classes")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                gen = fn(*args, **kwargs)
                value = None
                while True:
                    with self.__class__(*self._args):
                        try:
                            value = gen.send(value)
                        except StopIteration as stop:
                            return stop.value
                    value = yield value
            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return fn(*args, **kwargs)
        return wrapper

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        self._apply()
        return self

    def __exit__(self, *exc):
        state.enabled, state.inference = self._prev
        return False

    def clone(self):
        return self.__class__(*self._args)


class no_grad(_Mode):
    _args = ()

    def __init__(self, orig_func=None):
        if orig_func is not None and callable(orig_func):
            raise TypeError("no_grad() takes no positional function; use @no_grad()")

    def _apply(self):
        state.enabled = False


class enable_grad(_Mode):
    _args = ()

    def _apply(self):
        state.enabled = True


class set_grad_enabled(_Mode):
    """Sets grad mode at once when called as a function; restores it on exit when used with `with`."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}")
        self._args = (mode,)
        self._prev = (state.enabled, state.inference)
        state.enabled = mode

    def _apply(self):
        state.enabled = self._args[0]

    def __enter__(self):
        return self  # the constructor already switched the mode

    def __call__(self, fn):
        state.enabled = self._prev[0]  # as a decorator it must not switch the mode now
        return super().__call__(fn)


class inference_mode(_Mode):
    def __init__(self, mode=True):
        self._args = (mode,)

    def _apply(self):
        if self._args[0]:
            state.enabled = False
            state.inference = True


class _force_original_view_tracking(_Mode):
    """Whether a view whose base was modified in place gets its grad_fn by replaying its original
    view ops (True: `ViewBackward0`, `SelectBackward0`...) or from one `as_strided` of the base
    (False, the default: `AsStridedBackward0`). Set at once when called; restored on leaving `with`."""

    def __init__(self, mode):
        self._args = (bool(mode),)
        self._saved_replay = state.view_replay
        state.view_replay = self._args[0]

    def _apply(self):
        state.view_replay = self._args[0]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        state.view_replay = self._saved_replay
        return False

    def __call__(self, fn):
        state.view_replay = self._saved_replay   # as a decorator it must not switch the mode now
        return super().__call__(fn)


def _is_view_replay_enabled():
    return state.view_replay


_multithreading = [True]


def is_multithreading_enabled():
    return _multithreading[0]


class set_multithreading_enabled:
    """Whether backward may use several threads. ndgrad's engine runs on the calling thread
    either way; the flag is kept (set at once, restored on leaving `with`) for torch's API."""

    def __init__(self, mode):
        self.prev = _multithreading[0]
        _multithreading[0] = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _multithreading[0] = self.prev
        return False
