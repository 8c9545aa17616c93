"""Process-wide settings torch programs set at their start: the default device, thread counts and
deterministic algorithms. ndgrad computes on the CPU with NumPy, whose results do not depend on
these, so they are recorded and reported back (torch's checks and errors included)."""
import os
import warnings

from ._tensor import CPU, device as _device


class _State:
    num_threads = max(1, os.cpu_count() or 1)
    num_interop_threads = max(1, os.cpu_count() or 1)
    interop_set = False
    deterministic = False
    warn_only = False


_state = _State()


def set_default_device(device):
    """Only the CPU (or None, its default) can be the default device in ndgrad."""
    if device is not None and _device(device).type != "cpu":
        raise NotImplementedError(f"set_default_device({str(device)!r}): ndgrad only has the CPU backend wired "
                                  "to ops so far")


def get_default_device():
    return CPU


def _check_int(name, n):
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def set_num_threads(int):  # noqa: A002 - torch's parameter name
    """Recorded only: NumPy's BLAS keeps its own thread pool."""
    _check_int("set_num_threads", int)
    _state.num_threads = int


def get_num_threads():
    return _state.num_threads


def set_num_interop_threads(int):  # noqa: A002
    _check_int("set_num_interop_threads", int)
    if _state.interop_set:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state.num_interop_threads, _state.interop_set = int, True


def get_num_interop_threads():
    return _state.num_interop_threads


def use_deterministic_algorithms(mode, *, warn_only=False):
    """ndgrad's ops are deterministic already; the mode is recorded for the getters."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    _state.deterministic, _state.warn_only = mode, warn_only


def are_deterministic_algorithms_enabled():
    return _state.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _state.warn_only


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _state.deterministic:
        return 0
    return 1 if _state.warn_only else 2


# ---- api: the remaining process-wide switches of torch's namespace
_state.warn_always = False
_state.matmul_precision = "highest"


def set_warn_always(b):
    """Record torch's warn-always flag (torch repeats its warn-once C++ warnings when it is set;
    ndgrad's warnings go through Python's `warnings` filters, which decide repetition)."""
    _state.warn_always = bool(b)


def is_warn_always_enabled():
    return _state.warn_always


def set_float32_matmul_precision(precision):
    """Recorded and reported back: NumPy's float32 matmuls are always full precision (torch's 'highest')."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.")
        return
    _state.matmul_precision = precision


def get_float32_matmul_precision():
    return _state.matmul_precision


def set_flush_denormal(mode):
    """False: NumPy offers no way to flush denormal floats to zero, so the mode is not supported
    (torch returns whether the CPU supports it and the mode was set)."""
    return False


def init_num_threads():
    """Nothing to initialize: NumPy's thread pools start on their own."""
