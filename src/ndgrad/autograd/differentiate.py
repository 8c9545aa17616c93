"""backward() and grad(), the entry points of reverse mode: they turn user arguments into root
edges and gradients, run the engine, and deliver the results (into `.grad`, or returned).
`Tensor.backward` is attached here. Tools layer: the implicit gradient and `materialize_grads`
use ops, so this sits above them (the ops and formulas that differentiate a composition use
`engine.vjp`)."""
from .._tensor import Tensor
from ..ops._registry import OPS   # ones_like / zeros_like: the registry's take nested tensors too (ops/nested.py)
from ..ops.creation import zeros
from ..ops.shape import stack
from . import engine
from .node import GradientEdge, accumulate_grad, edge


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (Tensor, GradientEdge)):
        return (x,)
    return tuple(x)


def _root_edge(out, i):
    if isinstance(out, GradientEdge):
        return tuple(out)
    if not out.requires_grad:
        raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return edge(out)


def _make_grads(outputs, grads, create_graph):
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if isinstance(out, GradientEdge):
            if g is None:
                raise RuntimeError(f"grad_outputs[{i}] must be given for GradientEdge outputs")
            result.append(g)
            continue
        if g is None:
            if out._requires_grad and out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype.kind not in "fc":
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            g = OPS["ones_like"](out)
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g._data.shape != out._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                               f"has a shape of {out.shape}.")
        elif g._data.dtype.kind != out._data.dtype.kind and out._data.dtype.kind in "fc":
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                               f"has a dtype of {out.dtype}.")
        result.append(g if create_graph else g.detach())
    return result


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate the gradients of `tensors` into the `.grad` of the leaves (or of `inputs`)."""
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError("grad can be implicitly created only for scalar outputs" if not grads else
                           f"got {len(grads)} gradients for {len(outputs)} tensors")
    if retain_graph is None:
        retain_graph = create_graph
    roots = [_root_edge(o, i) for i, o in enumerate(outputs)]
    grads = _make_grads(outputs, grads, create_graph)
    inputs = _as_tuple(inputs)
    if inputs:
        edges = [_input_edge(t, i) for i, t in enumerate(inputs)]
        captured = engine.run_backward(roots, grads, inputs=edges, accumulate=True, retain_graph=retain_graph,
                                       create_graph=create_graph)
        for t, g in zip(inputs, captured):
            if g is not None and not isinstance(t, GradientEdge) and t.grad_fn is not None:
                accumulate_grad(t, g, create_graph)
    else:
        engine.run_backward(roots, grads, retain_graph=retain_graph, create_graph=create_graph)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward: the gradient of this tensor with respect to the graph leaves, accumulated
    into their `.grad` (see `backward`)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _tensor_backward


def _input_edge(t, i):
    if isinstance(t, GradientEdge):
        return tuple(t)
    if not t._requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return edge(t)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, returned instead of accumulated."""
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("grad requires non-empty inputs.")
    grads = _as_tuple(grad_outputs) or (None,) * len(outs)
    if retain_graph is None:
        retain_graph = create_graph
    roots = [_root_edge(o, i) for i, o in enumerate(outs)]
    grads = _make_grads(outs, grads, create_graph)
    edges = [_input_edge(t, i) for i, t in enumerate(ins)]
    result = engine.run_backward(roots, grads, inputs=edges, retain_graph=retain_graph, create_graph=create_graph)
    for i, g in enumerate(result):
        if g is None:
            if materialize_grads:
                result[i] = OPS["zeros_like"](ins[i])
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """grad(..., is_grads_batched=True): one vector-Jacobian product per row of the grad_outputs
    (the first dim of each is the batch), stacked. torch vmaps the backward; a loop gives the same."""
    outs, gos = _as_tuple(outputs), _as_tuple(grad_outputs)
    if not gos or any(g is None for g in gos):
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    sizes = [g.shape[0] if g.ndim else None for g in gos]
    for i, (g, o) in enumerate(zip(gos, outs)):
        if g.shape[1:] != o.shape or g.ndim == 0:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {g.shape[1:]} and "
                f"output[{i}] has a shape of {o.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    if sizes[0] == 0:
        return tuple(zeros((0,) + tuple(t.shape), dtype=t.dtype) for t in _as_tuple(inputs))
    keep = create_graph if retain_graph is None else retain_graph
    rows = [grad(outs, inputs, [g[b] for g in gos], retain_graph=keep or b < sizes[0] - 1,
                 create_graph=create_graph, allow_unused=allow_unused, materialize_grads=materialize_grads)
            for b in range(sizes[0])]
    return tuple(None if col[0] is None else stack(col) for col in zip(*rows))
