"""Running the hooks of a backward pass, in torch's documented order (called by engine.py).

For one node: tensor pre-hooks (Tensor.register_hook) and retains_grad per gradient slot, node
pre-hooks, the node itself (engine.py), node post-hooks. A leaf's tensor hooks run before its
AccumulateGrad; post-accumulate-grad hooks run inside accumulate_grad (node.py). The hooks are
registered through node.py / graph.py; this module only runs them.
"""
from .node import AccumulateGrad


def run_tensor_pre_hooks(node, grads):
    """Tensor hooks, then retains_grad, on the gradients arriving at `node` (a list, one per output)."""
    if type(node) is AccumulateGrad:
        hooks = node.variable._hooks
        if hooks and grads and grads[0] is not None:
            grads = [_run_tensor_hooks(hooks, grads[0])]
        return grads
    extra = node._extra
    for nr, hooks in extra.tensor_pre_hooks.items():
        if nr < len(grads) and grads[nr] is not None and hooks:
            grads[nr] = _run_tensor_hooks(hooks, grads[nr])
    for nr, fn in extra.retains_grad_hooks.items():
        if nr < len(grads) and grads[nr] is not None:
            fn(grads[nr])
    return grads


def _run_tensor_hooks(hooks, grad):
    for hook in list(hooks.values()):
        res = hook(grad)
        if res is not None:
            grad = res
    return grad


def run_node_pre_hooks(hooks, grads):
    """hook(grad_outputs) for each node pre-hook; a hook may return new gradients."""
    for hook in list(hooks.values()):
        res = hook(tuple(grads))
        if res is not None:
            grads = list(res)
    return grads


def run_node_post_hooks(hooks, outs, grads):
    """hook(grad_inputs, grad_outputs) for each node post-hook; a hook may return new grad_inputs."""
    for hook in list(hooks.values()):
        res = hook(tuple(outs), tuple(grads))
        if res is not None:
            outs = list(res)
    return outs
