"""ndgrad._C: the private names programs and PyTorch's own tests reach through `torch._C`.

In torch these live in the C++ extension. Here each name is the ndgrad object with the same
meaning (grad-mode flags, view tracking, saved-tensor and graph-task internals); a name whose
feature ndgrad does not have (TorchScript, dispatch keys, CUDA streams) is absent, not faked.
Submodules follow torch's: `_C._autograd`, `_C._functions`.
"""
import weakref

from ..autograd.forward_ad import _is_fwd_grad_enabled
from ..autograd.grad_mode import (_is_view_replay_enabled, _set_grad_enabled, _set_multithreading_enabled,
                                  is_grad_enabled, is_inference_mode_enabled, state as _state)
from ..autograd.grad_mode import is_multithreading_enabled as _is_multithreading_enabled
from ..autograd.graph import increment_version as _increment_version  # noqa: F401
from . import _autograd, _functions  # noqa: F401


def _set_view_replay_enabled(mode):
    _state.view_replay = bool(mode)


# --- forward AD -------------------------------------------------------------------------------
def _set_fwd_grad_enabled(mode):
    _state.fw_grad = bool(mode)


class _WeakTensorRef:
    """A weak reference to a Tensor: `expired()` once the tensor is gone."""
    __slots__ = ("_ref",)

    def __init__(self, tensor):
        self._ref = weakref.ref(tensor)

    def expired(self):
        return self._ref() is None


_FORWARD_AD = ["_WeakTensorRef", "_is_fwd_grad_enabled", "_set_fwd_grad_enabled"]


__all__ = ["_autograd", "_functions", "_increment_version", "_is_multithreading_enabled", "_is_view_replay_enabled",
           "_set_grad_enabled", "_set_multithreading_enabled", "_set_view_replay_enabled", "is_grad_enabled",
           "is_inference_mode_enabled"]
__all__ += _FORWARD_AD
