"""ndgrad._C: the private names programs and PyTorch's own tests reach through `torch._C`.

In torch these live in the C++ extension. Here each name is the ndgrad object with the same
meaning (grad-mode flags, view tracking, saved-tensor and graph-task internals); a name whose
feature ndgrad does not have (TorchScript, dispatch keys, CUDA streams) is absent, not faked.
Submodules follow torch's: `_C._autograd`, `_C._functions`.
"""
from ..autograd.grad_mode import _is_view_replay_enabled, is_grad_enabled, state as _state
from ..autograd.graph import increment_version as _increment_version  # noqa: F401
from . import _autograd, _functions  # noqa: F401


def _set_grad_enabled(mode):
    _state.enabled = bool(mode)


def _set_view_replay_enabled(mode):
    _state.view_replay = bool(mode)


__all__ = ["_autograd", "_functions", "_increment_version", "_is_view_replay_enabled", "_set_grad_enabled", "_set_view_replay_enabled",
           "is_grad_enabled"]
