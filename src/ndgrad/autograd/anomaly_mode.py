"""Anomaly detection: find the forward call behind a failing backward node.

While enabled, every recorded node keeps the stack of the forward call that created it (in
`node.metadata["traceback_"]`, as torch does) and, if it was created while the engine ran another
node (double backward), that node as `metadata["parent_"]`. When a node fails in backward, a
warning shows those stacks before the error propagates; with check_nan, a node returning NaN
raises "Function 'XBackward0' returned nan values in its 0th output.".
The op glue and the engine read `state.enabled` only: disabled, the mode costs one attribute read.
"""
import functools
import os
import sys
import traceback
import warnings

import numpy as np

from .node import GraphRoot


class _State:
    __slots__ = ("enabled", "check_nan", "current")


state = _State()
state.enabled = False
state.check_nan = True
state.current = None     # the node the engine is running (becomes the parent of nodes it records)

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# ndgrad's own plumbing (op glue, ops, derivative formulas): left out of the recorded stack
_PLUMBING = tuple(_PKG + d + os.sep for d in ("autograd", "ops", "derivatives"))


def is_anomaly_enabled():
    """Whether anomaly detection is on (see :class:`ndgrad.autograd.detect_anomaly`).

    Returns:
        bool: the flag.

    Example::

        >>> torch.is_anomaly_enabled()
        False
        >>> with torch.autograd.detect_anomaly():
        ...     torch.is_anomaly_enabled()
        True
    """
    return state.enabled


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection, when on, also checks every backward result for NaN (the default).

    Returns:
        bool: the flag.

    Example::

        >>> torch.is_anomaly_check_nan_enabled()
        True
    """
    return state.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly detection on or off (prefer :class:`ndgrad.autograd.detect_anomaly`, which
    restores the previous state): the forward records each node's stack trace, and the backward
    reports the node whose function failed or produced NaN.

    Args:
        enabled (bool): the new flag.
        check_nan (bool, optional): also check backward results for NaN.

    Example::

        >>> torch.set_anomaly_enabled(True)
        >>> torch.is_anomaly_enabled()
        True
        >>> torch.set_anomaly_enabled(False)
    """
    state.enabled = bool(enabled)
    state.check_nan = bool(check_nan)


class detect_anomaly:
    """A context manager that turns anomaly detection on inside it.

    While it is on, each node records the stack of the forward call that created it, and a
    backward error is reported with that stack (as a warning) to show which forward operation is
    at fault; with `check_nan`, a backward function that returns NaN raises RuntimeError. It slows
    everything down: use it for debugging only (entering warns so). Unlike torch's, an instance is
    also a decorator.

    Args:
        check_nan (bool, optional): raise when a backward function returns NaN. Default: True.

    Example::

        >>> x = torch.tensor(0.0, requires_grad=True)
        >>> with torch.autograd.detect_anomaly():
        ...     y = torch.sqrt(x) * 0
        ...     y.backward()
        Traceback (most recent call last):
          ...
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self._prev = []
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._prev.append((state.enabled, state.check_nan))
        set_anomaly_enabled(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        set_anomaly_enabled(*self._prev.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off (see :class:`detect_anomaly`).

    It takes effect as soon as it is created; used as a context manager, it restores the previous
    setting on exit.

    Args:
        mode (bool): True to turn anomaly detection on, False to turn it off.
        check_nan (bool, optional): raise when a backward function returns NaN. Default: True.

    Example::

        >>> with torch.autograd.set_detect_anomaly(True):
        ...     torch.is_anomaly_enabled()
        True
        >>> torch.is_anomaly_enabled()
        False
    """

    def __init__(self, mode, check_nan=True):
        self._prev = (state.enabled, state.check_nan)
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_anomaly_enabled(*self._prev)
        return False


# --- hooks called by the op glue and the engine while enabled ------------------------------
def record(node):
    """Remember the forward stack (and the node being differentiated, if any) on a new node."""
    meta = node._get_extra().metadata
    meta["traceback_"] = _forward_stack()
    if state.current is not None:
        meta["parent_"] = state.current


def _forward_stack():
    frames = traceback.extract_stack()
    end = len(frames)
    while end and _is_plumbing(frames[end - 1].filename):
        end -= 1
    return traceback.format_list(frames[:end])


def _is_plumbing(filename):
    return filename.startswith("<") or filename.startswith(_PLUMBING) or (
        filename.startswith(_PKG) and os.sep not in filename[len(_PKG):])


def call_node(call, node, grads, targets, create_graph):
    """Run `call` (the engine's node call) for `node`; report the forward stack if it fails."""
    prev = state.current
    state.current = node
    try:
        outs = call(node, grads, targets, create_graph)
        if state.check_nan and type(node) is not GraphRoot:   # torch checks what nodes compute
            for i, g in enumerate(outs):
                if g is not None and np.isnan(g._array).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
        return outs
    except Exception:
        _warn_stack(node)
        raise
    finally:
        state.current = prev


def _warn_stack(node):
    level = _user_stacklevel()
    parent = False
    while node is not None:
        meta = node._extra.metadata if node._extra is not None else {}
        trace = meta.get("traceback_")
        if trace is None:
            msg = (f"Error detected in {node.name()}. No forward pass information available. Enable detect anomaly "
                   "during forward pass for more information.")
        elif parent:
            msg = (f"\n\nPrevious calculation was induced by {node.name()}. Traceback of forward call that induced "
                   f"the previous calculation:\n{''.join(trace)}")
        else:
            msg = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{''.join(trace)}"
        try:
            warnings.warn(msg, stacklevel=level)
        except Warning:
            # warnings are errors here: as torch, print the report so that the node's own error,
            # not the warning, is what propagates
            print(f"Warning: {msg}", file=sys.stderr)
        node, parent = meta.get("parent_"), True


def _user_stacklevel():
    """The warnings stacklevel (seen from our caller) of the first frame outside ndgrad: the user's backward."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PKG):
        frame, level = frame.f_back, level + 1
    return level
