"""ndgrad._C: the private names programs and PyTorch's own tests reach through `torch._C`.

In torch these live in the C++ extension. Here each name is the ndgrad object with the same
meaning (grad-mode flags, view tracking, saved-tensor and graph-task internals); a name whose
feature ndgrad does not have (TorchScript, dispatch keys, CUDA streams) is absent, not faked.
Submodules follow torch's: `_C._autograd`, `_C._functions`.
"""
import weakref

from ..autograd.grad_mode import _is_view_replay_enabled, is_grad_enabled, state as _state
from . import _autograd, _functions  # noqa: F401


def _set_grad_enabled(mode):
    _state.enabled = bool(mode)


def _set_view_replay_enabled(mode):
    _state.view_replay = bool(mode)


class _WeakTensorRef:
    """A weak reference to a tensor: expired() once nothing else keeps the tensor alive."""
    __slots__ = ("_ref",)

    def __init__(self, tensor):
        self._ref = weakref.ref(tensor)

    def expired(self):
        return self._ref() is None


__all__ = ["_WeakTensorRef", "_autograd", "_functions", "_is_view_replay_enabled", "_set_grad_enabled",
           "_set_view_replay_enabled", "is_grad_enabled"]
