"""Process-wide settings torch programs set at their start: the default device, thread counts and
deterministic algorithms. ndgrad computes on the CPU with NumPy, whose results do not depend on
these, so they are recorded and reported back (torch's checks and errors included)."""
import os
import warnings

from . import _parallel
from ._tensor import CPU, device as _device


class _State:
    num_threads = _parallel.threads
    num_interop_threads = max(1, os.cpu_count() or 1)
    interop_set = False
    deterministic = False
    warn_only = False


_state = _State()


def set_default_device(device):
    """Sets the device that factory functions (``torch.zeros``...) use when none is given. ndgrad has
    only the CPU: ``"cpu"`` or ``None`` (the default) are accepted, any other device raises.

    Args:
        device (str or torch.device or None): the default device.

    Example::

        >>> torch.set_default_device("cpu")
        >>> torch.zeros(1).device
        device(type='cpu')
        >>> torch.set_default_device(None)
    """
    if device is not None and _device(device).type != "cpu":
        raise NotImplementedError(f"set_default_device({str(device)!r}): ndgrad only has the CPU backend wired "
                                  "to ops so far")


def get_default_device():
    """The device on which factory functions create tensors: always the CPU in ndgrad.

    Returns:
        device: ``device(type='cpu')``.

    Example::

        >>> torch.get_default_device()
        device(type='cpu')
    """
    return CPU


def _check_int(name, n):
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def set_num_threads(int):  # noqa: A002 - torch's parameter name
    """Sets the number of threads ndgrad's heavy kernels (convolutions, pooling, batch norm, large
    elementwise passes, matrix products on the native pool) split their work over. Their results do not
    depend on it, except a large matrix product's, cut in one block per thread (as BLAS's own threads
    cut it). NumPy's BLAS keeps its own thread pool for the products ndgrad leaves to it.

    Args:
        int (int): a positive number of threads.

    Example::

        >>> n = torch.get_num_threads()
        >>> torch.set_num_threads(1)
        >>> torch.get_num_threads()
        1
        >>> torch.set_num_threads(n)
    """
    _check_int("set_num_threads", int)
    _state.num_threads = _parallel.threads = int


def get_num_threads():
    """The number of threads ndgrad's heavy kernels use (see :func:`ndgrad.set_num_threads`).

    Returns:
        int: by default the number of CPUs this process may run on.

    Example::

        >>> torch.get_num_threads() >= 1
        True
    """
    return _state.num_threads


def set_num_interop_threads(int):  # noqa: A002
    """Sets the number of threads for inter-op parallelism; torch allows this once, before any
    parallel work. ndgrad records it (its ops do not run in parallel) and keeps torch's errors: a second
    call raises ``RuntimeError``.

    Args:
        int (int): a positive number of threads.

    Example::

        torch.set_num_interop_threads(4)   # once, at the start of the program
    """
    _check_int("set_num_interop_threads", int)
    if _state.interop_set:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state.num_interop_threads, _state.interop_set = int, True


def get_num_interop_threads():
    """The number of threads for inter-op parallelism, as set by
    :func:`ndgrad.set_num_interop_threads` (by default the number of CPUs; recorded only in ndgrad).

    Returns:
        int: the number.

    Example::

        >>> torch.get_num_interop_threads() >= 1
        True
    """
    return _state.num_interop_threads


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Sets whether operations must use deterministic algorithms (torch raises, or with `warn_only`
    warns, for those that have none). ndgrad's operations are deterministic already; the mode is
    recorded for :func:`ndgrad.are_deterministic_algorithms_enabled`.

    Args:
        mode (bool): whether to require deterministic algorithms.
        warn_only (bool): warn instead of raising. Default: ``False``.

    Example::

        >>> torch.use_deterministic_algorithms(True)
        >>> torch.are_deterministic_algorithms_enabled()
        True
        >>> torch.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    _state.deterministic, _state.warn_only = mode, warn_only


def are_deterministic_algorithms_enabled():
    """Whether :func:`ndgrad.use_deterministic_algorithms` is on (ndgrad's ops are
    deterministic either way; the flag is recorded).

    Returns:
        bool: the flag.

    Example::

        >>> torch.are_deterministic_algorithms_enabled()
        False
    """
    return _state.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    """Whether deterministic algorithms were turned on with ``warn_only=True``
    (see :func:`ndgrad.use_deterministic_algorithms`).

    Returns:
        bool: the flag.

    Example::

        >>> torch.is_deterministic_algorithms_warn_only_enabled()
        False
    """
    return _state.warn_only


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    """Sets the deterministic mode by level: 0 (``"default"``) off, 1 (``"warn"``) on with
    warnings only, 2 (``"error"``) on (see :func:`ndgrad.use_deterministic_algorithms`).

    Args:
        debug_mode (int or str): the level.

    Example::

        >>> torch.set_deterministic_debug_mode("warn")
        >>> torch.get_deterministic_debug_mode()
        1
        >>> torch.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """The deterministic mode as a level: 0 off, 1 warn only, 2 error
    (see :func:`ndgrad.set_deterministic_debug_mode`).

    Returns:
        int: the level.

    Example::

        >>> torch.get_deterministic_debug_mode()
        0
    """
    if not _state.deterministic:
        return 0
    return 1 if _state.warn_only else 2


# ---- api: the remaining process-wide switches of torch's namespace
_state.warn_always = False
_state.matmul_precision = "highest"


def set_warn_always(b):
    """Sets torch's warn-always flag: when set, torch repeats the warnings its C++ code gives once.
    ndgrad records it (see :func:`ndgrad.is_warn_always_enabled`); its warnings go through Python's
    :mod:`warnings` filters, which decide repetition.

    Args:
        b (bool): whether to warn always.

    Example::

        >>> torch.set_warn_always(True)
        >>> torch.is_warn_always_enabled()
        True
        >>> torch.set_warn_always(False)
    """
    _state.warn_always = bool(b)


def is_warn_always_enabled():
    """Whether :func:`ndgrad.set_warn_always` is on (recorded: ndgrad's warnings follow
    Python's `warnings` filters).

    Returns:
        bool: the flag.

    Example::

        >>> torch.is_warn_always_enabled()
        False
    """
    return _state.warn_always


def set_float32_matmul_precision(precision):
    """Sets the internal precision of float32 matrix products: ``"highest"``, ``"high"`` or ``"medium"``.
    ndgrad records it for :func:`ndgrad.get_float32_matmul_precision`, but NumPy's float32 products are
    always computed in full precision (torch's ``"highest"``).

    Args:
        precision (str): ``"highest"``, ``"high"`` or ``"medium"``.

    Example::

        >>> torch.set_float32_matmul_precision("high")
        >>> torch.get_float32_matmul_precision()
        'high'
        >>> torch.set_float32_matmul_precision("highest")
    """
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.")
        return
    _state.matmul_precision = precision


def get_float32_matmul_precision():
    """The float32 matrix product precision set by :func:`ndgrad.set_float32_matmul_precision`:
    ``"highest"``, ``"high"`` or ``"medium"``. ndgrad records it; NumPy always computes at full precision.

    Returns:
        str: the setting.

    Example::

        >>> torch.get_float32_matmul_precision()
        'highest'
    """
    return _state.matmul_precision


def set_flush_denormal(mode):
    """Asks for denormal floats to be flushed to zero on the CPU. NumPy offers no way to do so, so
    ndgrad always returns ``False`` (not supported) and changes nothing; torch returns ``True`` where
    the CPU supports the mode.

    Args:
        mode (bool): whether to flush denormals.

    Returns:
        bool: whether the mode is supported (and was set): ``False`` in ndgrad.

    Example (not a doctest: torch answers ``True`` on CPUs with SSE3)::

        torch.set_flush_denormal(True)    # False in ndgrad: denormals are kept
    """
    return False


def init_num_threads():
    """Initializes the thread pool of the calling thread in torch; in ndgrad there is nothing to
    initialize (NumPy's thread pools start on their own) and it does nothing.

    Example::

        >>> torch.init_num_threads()
    """
