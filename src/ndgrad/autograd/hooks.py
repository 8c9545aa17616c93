"""Running the hooks of a backward pass, in torch's documented order (called by engine.py).

For one node: tensor pre-hooks (Tensor.register_hook) and retains_grad per gradient slot, node
pre-hooks, the node itself (engine.py), node post-hooks. A leaf's tensor hooks run before its
AccumulateGrad; post-accumulate-grad hooks run inside accumulate_grad (node.py). The hooks are
registered through node.py / graph.py; this module only runs them.
"""
from .._tensor import Tensor
from .node import AccumulateGrad


def run_tensor_pre_hooks(node, grads):
    """Tensor hooks, then retains_grad, on the gradients arriving at `node` (a list, one per output).

    As in torch, a tensor hook of an output that got no gradient is called with None."""
    if type(node) is AccumulateGrad:
        hooks = node.variable._hooks
        if hooks and grads:
            grads = [_run_tensor_hooks(hooks, grads[0])]
        return grads
    extra = node._extra
    for nr, hooks in extra.tensor_pre_hooks.items():
        if nr < len(grads) and hooks:
            grads[nr] = _run_tensor_hooks(hooks, grads[nr])
    for nr, fn in extra.retains_grad_hooks.items():
        if nr < len(grads) and grads[nr] is not None:
            fn(grads[nr])
    return grads


def _run_tensor_hooks(hooks, grad):
    for hook in list(hooks.values()):
        res = hook(grad)
        if res is not None:
            grad = _checked(hook, grad, res)
    return grad


def _hook_name(hook):
    return getattr(hook, "__name__", "<unknown>")


def _checked(hook, original, result):
    """What a hook returned for one gradient, refused (torch's errors) unless it is None or a Tensor
    of the same type and size."""
    if result is None:
        return None
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if (result._array.dtype != original._array.dtype or result.device != original.device
            or result.layout != original.layout):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was {original.type()} got "
                           f"{result.type()})")
    if result._array.shape != original._array.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return result


def _checked_all(hook, originals, result):
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(originals):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(originals)})")
    return [_checked(hook, o, r) for o, r in zip(originals, result)]


def run_node_pre_hooks(hooks, grads):
    """hook(grad_outputs) for each node pre-hook; a hook may return new gradients (a tuple)."""
    for hook in list(hooks.values()):
        res = hook(tuple(grads))
        if res is not None:
            grads = _checked_all(hook, grads, res)
    return grads


def run_node_post_hooks(hooks, outs, grads):
    """hook(grad_inputs, grad_outputs) for each node post-hook; a hook may return new grad_inputs
    (a tuple)."""
    for hook in list(hooks.values()):
        res = hook(tuple(outs), tuple(grads))
        if res is not None:
            outs = _checked_all(hook, outs, res)
    return outs
