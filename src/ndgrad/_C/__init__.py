"""ndgrad._C: the private names programs and PyTorch's own tests reach through `torch._C`.

In torch these live in the C++ extension. Here each name is the ndgrad object with the same
meaning (grad-mode flags, view tracking, saved-tensor and graph-task internals); a name whose
feature ndgrad does not have (TorchScript, dispatch keys, CUDA streams) is absent, not faked.
Submodules follow torch's: `_C._autograd`, `_C._functions`, `_C._nn`; `_C._VariableFunctions` is the
namespace of the torch-namespace bindings that `ndgrad._VF` reads.
"""
import weakref

from ..autograd import engine as _engine
from ..autograd.forward_ad import _is_fwd_grad_enabled
from ..autograd.grad_mode import (_is_view_replay_enabled, _set_grad_enabled, _set_multithreading_enabled,
                                  is_grad_enabled, is_inference_mode_enabled, state as _state)
from ..autograd.grad_mode import is_multithreading_enabled as _is_multithreading_enabled
from ..autograd.grad_mode import (_is_grad_layout_enforcement_enabled,  # noqa: F401
                                  _set_grad_layout_enforcement_enabled)
from ..autograd.graph import increment_version as _increment_version  # noqa: F401
from ..autograd import node as _node
from ..autograd.node import Node as _Node
from . import _autograd, _functions  # noqa: F401
from . import _nn  # noqa: F401
from ._variable_functions import _VariableFunctions, _VariableFunctionsClass  # noqa: F401
from ..ops import _torch_function
from .._tensor import Tensor as _Tensor
from ..utils import _python_dispatch
from ..ops._torch_function import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401
                                  _disabled_torch_function_impl)


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


# ---- the running backward pass (engine.current_task) ------------------------------------------------


def _current_graph_task_id():
    """The id of the backward pass running now (ids count up per pass), -1 outside backward."""
    task = _engine.current_task()
    return -1 if task is None else task.id


def _current_autograd_node():
    """The node the running backward is evaluating (hooks and unpack hooks see it), else None."""
    task = _engine.current_task()
    return None if task is None else task.node


def _current_graph_task_execution_order():
    """The nodes the running backward runs, in order (only meaningful without multithreading)."""
    task = _engine.current_task()
    if task is None:
        raise RuntimeError("_current_graph_task_execution_order should only be called during the backward pass")
    if _is_multithreading_enabled():
        raise RuntimeError(
            "get_current_graph_task_execution_order expects the current backward to be executed with "
            "multithreading disabled, e.g. by running:\n\n>>> with torch.autograd.set_multithreading_enabled(False):"
            "\n...     torch.autograd.grad(...)\n")
    return task.execution_order()


def _will_engine_execute_node(node):
    """Whether the running backward will run `node` (a grad_fn or a leaf's AccumulateGrad)."""
    if not isinstance(node, _Node):
        raise RuntimeError(f"_will_engine_execute_node expects an grad_fn, but got {type(node).__name__}")
    task = _engine.current_task()
    if task is None:
        raise RuntimeError("_get_should_execute_nodes should only be called during the backward pass")
    if not task.will_execute(node):
        return False
    if node in task.captured and all(nxt is None for nxt, _ in node.next_functions):
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                           "autograd.grad(). This is currently not supported.")
    return True


# ---- cached tensors (autograd/node.py): a cache's reference to a gradient does not stop the engine keeping it
def _set_cached_tensors_enabled(enabled):
    _node.cached_tensors_enabled = bool(enabled)


def _is_cached_tensor(tensor):
    return _node.is_cached_tensor(_tensor_arg("_is_cached_tensor", tensor))


def _add_cached_tensor(tensor):
    _node.add_cached_tensor(_cache_arg("_add_cached_tensor", tensor))


def _remove_cached_tensor(tensor):
    _node.remove_cached_tensor(_cache_arg("_remove_cached_tensor", tensor))


def _tensor_arg(name, tensor):
    if not isinstance(tensor, _Tensor):
        raise TypeError(f"{name}(): incompatible function arguments. The following argument types are supported:\n"
                        f"    1. (arg0: torch.Tensor) -> {'bool' if name == '_is_cached_tensor' else 'None'}\n\n"
                        f"Invoked with: {tensor!r}")
    return tensor


def _cache_arg(name, tensor):
    tensor = _tensor_arg(name, tensor)
    if not _node.cached_tensors_enabled:   # an internal assert in torch
        raise RuntimeError(f"{name}: cached tensors are disabled; call torch._C._set_cached_tensors_enabled(True) "
                           "first")
    return tensor


_CACHED_TENSORS = ["_add_cached_tensor", "_is_cached_tensor", "_remove_cached_tensor", "_set_cached_tensors_enabled"]


# ---- build facts ------------------------------------------------------------------------------------
has_lapack = True   # ndgrad's linalg (solve, qr, eigh, ...) runs on NumPy's LAPACK


_GRAPH_TASK = ["_current_autograd_node", "_current_graph_task_execution_order", "_current_graph_task_id",
               "_will_engine_execute_node"]
_FORWARD_AD = ["_WeakTensorRef", "_is_fwd_grad_enabled", "_set_fwd_grad_enabled"]


__all__ = ["_autograd", "_functions", "_increment_version", "_is_multithreading_enabled", "_is_view_replay_enabled",
           "_set_grad_enabled", "_set_multithreading_enabled", "_set_view_replay_enabled", "is_grad_enabled",
           "is_inference_mode_enabled"]
_TORCH_FUNCTION = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "_disabled_torch_function_impl"]


# --- the mode stacks (TorchFunctionMode: ops/_torch_function.py; TorchDispatchMode: utils/_python_dispatch.py)
def _len_torch_function_stack():
    return len(_torch_function._modes)


def _is_torch_function_mode_enabled():
    return _torch_function._mode_active()


def _get_function_stack_at(i):
    return _stack_at(_torch_function._modes, i)


def _push_on_torch_function_stack(mode):
    _torch_function._push_function_mode(mode)


def _pop_torch_function_stack():
    return _torch_function._pop_function_mode()


def _len_torch_dispatch_stack():
    return len(_python_dispatch._stack)


def _get_dispatch_stack_at(i):
    return _stack_at(_python_dispatch._get_current_dispatch_mode_stack(), i)


def _push_on_torch_dispatch_stack(mode):
    _python_dispatch._push_mode(mode)


def _pop_torch_dispatch_stack(k=None):
    return _python_dispatch._pop_mode(k)


def _stack_at(stack, i):
    if not 0 <= i < len(stack):
        raise RuntimeError("Tried to get stack at idx that's too big")
    return stack[i]


_MODES = ["_len_torch_function_stack", "_is_torch_function_mode_enabled", "_get_function_stack_at",
          "_push_on_torch_function_stack", "_pop_torch_function_stack", "_len_torch_dispatch_stack",
          "_get_dispatch_stack_at", "_push_on_torch_dispatch_stack", "_pop_torch_dispatch_stack"]
_BINDINGS = ["_VariableFunctions", "_VariableFunctionsClass", "_nn"]
__all__ += _FORWARD_AD + _GRAPH_TASK + _TORCH_FUNCTION + _MODES + _BINDINGS + _CACHED_TENSORS
