"""torch._C._autograd: saved-tensor and graph internals (see ndgrad._C)."""
from ..autograd import engine as _engine
from ..autograd.graph import (SavedTensor, disable_hooks as _saved_tensors_hooks_disable,  # noqa: F401
                              hooks_enabled as _saved_tensors_hooks_is_enabled,
                              make_saved_tensor as _make_saved_tensor)
from ..autograd.graph import _disabled, pop_hooks, push_hooks, saved_hooks as _saved_hooks, saved_tensors_hooks
from ..autograd.node import InputMetadata as _InputMetadata  # noqa: F401  (Node._input_metadata's entries)


# saved-tensor hooks: the stack saved_tensors_hooks pushes to and pops from
def _push_saved_tensors_default_hooks(pack_hook, unpack_hook):
    push_hooks(saved_tensors_hooks(pack_hook, unpack_hook))


def _pop_saved_tensors_default_hooks():
    pop_hooks()


def _top_saved_tensors_default_hooks(ignore_is_tracing):
    """(pack_hook, unpack_hook) of the innermost saved-tensor hooks, or None."""
    return (_saved_hooks[-1].pack_hook, _saved_hooks[-1].unpack_hook) if _saved_hooks else None


def _saved_tensors_hooks_enable():
    _disabled[0] = None


def _saved_tensors_hooks_get_disabled_error_message():
    return _disabled[0]


# version counters set by hand
from ..autograd.record import _unsafe_set_version_counter  # noqa: F401


# the running backward pass
def _get_current_graph_task_keep_graph():
    """Whether the backward running now retains its graph (retain_graph); True outside backward, as torch."""
    task = _engine.current_task()
    return True if task is None else task.keep_graph
