"""Split backward for pipeline stages: input gradients now, weight gradients later.

A zero-bubble pipeline runs a stage's backward in two halves. `stage_backward_input` (I) computes
only the gradients of the stage inputs, which the previous stage is waiting for, and remembers
where the weight gradients must resume; `stage_backward_weight` (W) finishes them later, in a slot
where the stage would otherwise idle. Together they give exactly what one full backward gives.

How the graph is cut (names follow torch.distributed.pipelining._backward):
- the *input closure* is every node that lies downstream of a stage input (the nodes that run
  in the input pass);
- the *weight region* is every node upstream of a weight that is not in the input closure;
- the *intermediates* are the input-closure nodes with an edge into the weight region: a node
  pre-hook captures the gradient arriving there during the input pass. The weight pass runs each
  intermediate's formulas once more, for its weight-region edges only, and backpropagates from
  there (plus from outputs that lie in the weight region themselves) into the weights.
Resuming on the weight-region edges only means no gradient is counted twice, even when one
intermediate lies downstream of another; a weight used several times (tied) has one
AccumulateGrad node, so it is also reached, and counted, once.
"""
from ... import autograd
from ...autograd import engine
from ...autograd.graph import get_gradient_edge
from ...ops.creation import ones_like

__all__ = ["stage_backward", "stage_backward_input", "stage_backward_weight"]


def _get_grad_fn_or_grad_acc(t):
    """The node a tensor's gradient enters (its grad_fn, or its AccumulateGrad), or None."""
    if not getattr(t, "requires_grad", False):
        return None
    return get_gradient_edge(t).node


# torch's names for the two graph walks
construct_reverse_graph = engine.reverse_graph
reverse_closure = engine.reverse_closure


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _describe(values):
    """Shapes and dtypes of stage values, for error messages."""
    def one(v):
        return f"Tensor{tuple(v.shape)}:{v.dtype}" if hasattr(v, "shape") else type(v).__name__
    if isinstance(values, dict):
        return "{" + ", ".join(f"{k}: {_describe(v)}" for k, v in values.items()) + "}"
    if isinstance(values, (list, tuple)):
        return "(" + ", ".join(_describe(v) for v in values) + ")"
    return one(values)


def _unique_weights(weights):
    """Weights that require grad, each once (a tied weight listed twice is still one weight)."""
    seen, result = set(), []
    for w in weights:
        if w.requires_grad and id(w) not in seen:
            seen.add(id(w))
            result.append(w)
    return result


def stage_backward_input(stage_outputs_or_loss, output_grads, input_values, weights):
    """Gradients of the stage inputs only; returns (input_grads, param_groups) for the weight pass.

    stage_outputs_or_loss: the stage outputs (with `output_grads` from the next stage) or, on the
    last stage, the loss (output_grads=None). The input gradients are also accumulated into the
    inputs' `.grad`. The outputs are detached afterwards: only the part of the graph the weight
    pass needs stays alive, referenced by the returned param groups.
    """
    outputs = _as_list(stage_outputs_or_loss)
    grads_in = [None] * len(outputs) if output_grads is None else _as_list(output_grads)
    if len(grads_in) != len(outputs):
        raise RuntimeError(f"stage_backward_input: got {len(grads_in)} output gradients for {len(outputs)} outputs")
    valid = [(o, ones_like(o) if g is None else g) for o, g in zip(outputs, grads_in) if o.requires_grad]
    inputs = list(input_values)
    grad_inputs = [i for i, x in enumerate(inputs) if getattr(x, "requires_grad", False)]
    weights = _unique_weights(weights)

    root_edges = [get_gradient_edge(o) for o, _ in valid]
    reverse_edges = construct_reverse_graph([e.node for e in root_edges])
    input_nodes = [_get_grad_fn_or_grad_acc(inputs[i]) for i in grad_inputs]
    input_closure, _ = reverse_closure(input_nodes, set(), reverse_edges)
    weight_region, intermediates = reverse_closure(
        [_get_grad_fn_or_grad_acc(w) for w in weights], input_closure, reverse_edges)
    if intermediates.intersection(input_nodes):
        raise RuntimeError("stage_backward_input: a weight reaches the stage only through a stage input; "
                           "the computation producing a stage input belongs to the previous stage")
    # One group for all weights: the weight pass then runs every node it needs once. Intermediates
    # are kept in graph order so that every rank resumes them (and reduces gradients) alike.
    group = {"params": weights, "intermediates": sorted(intermediates, key=lambda n: n._sequence_nr()),
             "grads": [None] * len(intermediates), "weight_region": weight_region,
             # outputs computed from weights alone: their gradient is known already
             "roots": [(e, g) for e, (_, g) in zip(root_edges, valid) if e.node in weight_region]}

    def capture(k):
        def hook(grad_outputs):
            group["grads"][k] = list(grad_outputs)
        return hook

    handles = [node.register_prehook(capture(k)) for k, node in enumerate(group["intermediates"])]
    try:
        dinputs = [None] * len(inputs)
        if grad_inputs and valid:
            found = autograd.grad([o for o, _ in valid], [inputs[i] for i in grad_inputs],
                                  [g for _, g in valid], retain_graph=True, allow_unused=True)
            for i, g in zip(grad_inputs, found):
                dinputs[i] = g
                if g is not None:
                    inputs[i].grad = g if inputs[i].grad is None else inputs[i].grad + g
    except Exception as e:
        raise RuntimeError(f"Failed to run stage backward input: stage outputs {_describe(outputs)}, output "
                           f"gradients {_describe(grads_in)}, inputs {_describe(inputs)}: {e}") from e
    finally:
        for h in handles:
            h.remove()
    # what the input pass ran is finished with: free its saved values and drop the outputs' graph
    engine.release_saved(input_closure.difference(intermediates))
    for o in outputs:
        if o.requires_grad and o.grad_fn is not None:
            o.detach_()
    return tuple(dinputs), [group]


def stage_backward_weight(weights, param_groups, retain_graph=False):
    """Finish the weight gradients of a `stage_backward_input` call; accumulates into `.grad`."""
    weights = list(weights)
    for group in param_groups:
        roots = list(group.pop("roots"))
        for node, grads in zip(group.pop("intermediates"), group.pop("grads")):
            if grads is not None:
                roots += engine.apply_node(node, grads, group["weight_region"])
                if not retain_graph:
                    engine.release_saved([node])
        params = group["params"]
        if roots and params:
            autograd.backward([e for e, _ in roots], [g for _, g in roots], retain_graph=retain_graph,
                              inputs=params)
        group.pop("weight_region")
    return tuple(w.grad for w in weights)


def _flatten_outputs(output, grad, out_tensors, out_grads):
    """Pair the tensors of a (nested) stage output with their gradients."""
    if hasattr(output, "requires_grad"):
        if output.requires_grad:
            out_tensors.append(output)
            out_grads.append(grad)
    elif isinstance(output, (list, tuple)):
        grad = [None] * len(output) if grad is None else grad   # None: the outputs are losses
        if not isinstance(grad, (list, tuple)) or len(grad) != len(output):
            raise RuntimeError(f"stage_backward: output gradients {_describe(grad)} do not match the stage "
                               f"outputs {_describe(output)}")
        for o, g in zip(output, grad):
            _flatten_outputs(o, g, out_tensors, out_grads)
    elif isinstance(output, dict):
        grad = dict.fromkeys(output) if grad is None else grad
        if not isinstance(grad, dict) or grad.keys() != output.keys():
            raise RuntimeError(f"stage_backward: output gradients {_describe(grad)} do not match the stage "
                               f"outputs {_describe(output)}")
        for k in output:
            _flatten_outputs(output[k], grad[k], out_tensors, out_grads)


def stage_backward(stage_output, output_grads, input_values):
    """One full backward of a stage: accumulates the weights' gradients, returns the inputs' ones.

    stage_output may be a tensor or a (nested) list/tuple/dict of them; output_grads has the same
    structure (None on the last stage, whose output is the loss)."""
    out_tensors, out_grads = [], []
    try:
        _flatten_outputs(stage_output, output_grads, out_tensors, out_grads)
        if out_tensors:
            autograd.backward(out_tensors, [ones_like(t) if g is None else g for t, g in zip(out_tensors, out_grads)])
    except Exception as e:
        raise RuntimeError(f"Failed to run stage backward: stage output {_describe(stage_output)}, output "
                           f"gradients {_describe(output_grads)}, inputs {_describe(input_values)}: {e}") from e
    return tuple(v.grad if hasattr(v, "requires_grad") else None for v in input_values)
