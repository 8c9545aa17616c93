"""backward() and grad(), the entry points of reverse mode: they turn user arguments into root
edges and gradients, run the engine, and deliver the results (into `.grad`, or returned).
`Tensor.backward` is attached here. Tools layer: the implicit gradient and `materialize_grads`
use ops, so this sits above them (the ops and formulas that differentiate a composition use
`engine.vjp`)."""
from typing import Any, Optional, Sequence, Tuple, Union

import warnings
from collections.abc import Mapping

import numpy as np

from .._dtype import FLOAT_KINDS, from_numpy_dtype
from .._tensor import Size, Tensor
from ..ops._registry import OPS, ops_unobserved   # ones_like / zeros_like: the registry's take nested tensors too (ops/nested.py)
from ..ops.creation import ones, zeros
from ..ops.shape import stack
from ..ops import _torch_function
from . import engine
from .node import GradientEdge, edge, output_meta


_Tensors = Union[Tensor, Sequence[Tensor]]   # one tensor or several (annotations of the public API)


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


def _out_info(out):
    """(shape, numpy dtype) of an output: a Tensor, or a GradientEdge (None where its node
    does not record it)."""
    if isinstance(out, GradientEdge):
        return output_meta(*out)
    return tuple(out.shape), out._array.dtype   # shape: per-sample for vmap's batched tensors


def _calculate_shape(output, grad, is_grads_batched):
    """(output's shape, grad's shape) as the shape-mismatch errors name them: Sizes (a batched
    grad's without its batch dim), or for nested tensors the tensors of their components' sizes."""
    if output.is_nested:
        if is_grads_batched:
            raise RuntimeError("Batched grads are not supported with Nested Tensor.")
        return output._nested_tensor_size(), grad._nested_tensor_size()
    return output.shape, grad.shape[1:] if is_grads_batched else grad.shape


def _make_grads(outputs, grads, create_graph):
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        info = _out_info(out)
        if g is None:
            if isinstance(out, GradientEdge) and info is None:
                raise RuntimeError(f"grad_outputs[{i}] must be given for GradientEdge outputs")
            if isinstance(out, Tensor) and not out._requires_grad:
                result.append(None)
                continue
            shape, dtype = info
            if any(n != 1 for n in shape):
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if dtype.kind not in FLOAT_KINDS:   # complex outputs need an explicit gradient too
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                   f"{from_numpy_dtype(dtype)}")
            g = OPS["ones_like"](out) if isinstance(out, Tensor) else ones(shape, dtype=from_numpy_dtype(dtype))
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif info is not None and tuple(g.shape) != info[0]:
            out_shape, grad_shape = _calculate_shape(out, g, False) if isinstance(out, Tensor) else (Size(info[0]),
                                                                                                    g.shape)
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {grad_shape} and output[{i}] "
                               f"has a shape of {out_shape}.")
        elif info is not None and (g._array.dtype.kind == "c") != (info[1].kind == "c"):
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                               f"has a dtype of {from_numpy_dtype(info[1])}.")
        result.append(g)   # as torch: not detached (hooks and autograd.grad see it; AccumulateGrad detaches)
    return result


def backward(tensors: _Tensors, grad_tensors: Optional[_Tensors] = None, retain_graph: Optional[bool] = None,
             create_graph: bool = False, grad_variables: Optional[_Tensors] = None, inputs: Any = None) -> None:
    """Accumulate the gradients of `tensors` into the ``.grad`` of the graph's leaves.

    Runs the engine once from `tensors` backwards. Each leaf that requires grad (or each tensor of
    `inputs`, when given) gets the gradient added to its ``.grad``, which is created on first use.

    Args:
        tensors: the tensor (or sequence of tensors) to differentiate.
        grad_tensors: the gradient with respect to each of `tensors`; may be None for a tensor of
            one element (the gradient is then 1).
        retain_graph: keep the saved values so that the graph can be run again (default:
            `create_graph`).
        create_graph: record the backward pass itself, so that the gradients can be differentiated.
        inputs: accumulate only into these tensors (or gradient edges); the rest of the graph is
            pruned.

    Returns:
        None

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * x
        >>> torch.autograd.backward(y, grad_tensors=torch.tensor([1.0, 10.0]))
        >>> x.grad
        tensor([ 2., 40.])
    """
    relevant = _as_tuple(tensors) + _relevant(inputs)
    if not _torch_function.plain(relevant):
        return _to_mode(backward, relevant, (tensors,), grad_tensors=grad_tensors, retain_graph=retain_graph,
                        create_graph=create_graph, inputs=inputs)
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError("grad can be implicitly created only for scalar outputs" if not grads else
                           f"got {len(grads)} gradients for {len(outputs)} tensors")
    if inputs is not None:
        inputs = _inputs_tuple(inputs, "backward")
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grads, create_graph)
    roots = [_root_edge(o, i) for i, o in enumerate(outputs)]
    if create_graph:
        warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    if inputs:
        edges = [_input_edge(t, i) for i, t in enumerate(inputs)]
        # as in torch, a non-leaf input gets its gradient by retaining it: its node runs (hooks
        # included) and retains_grad stores what arrives; a leaf's AccumulateGrad runs
        for t in inputs:
            if isinstance(t, Tensor) and t.grad_fn is not None:
                t.retain_grad()
        engine.run_backward(roots, grads, inputs=edges, accumulate=True, retain_graph=retain_graph,
                            create_graph=create_graph)
    else:
        engine.run_backward(roots, grads, retain_graph=retain_graph, create_graph=create_graph)


_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid "
    "this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after "
    "use to break the cycle and avoid the leak.")


def _inputs_tuple(inputs, fn):
    """The `inputs=` argument as a tuple: one tensor/edge, a sequence, or a dict (its values)."""
    if isinstance(inputs, (Tensor, GradientEdge)):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{fn}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    return tuple(inputs)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward: accumulate the gradient of this tensor into the ``.grad`` of the graph's leaves.

    The same as ``torch.autograd.backward(self, gradient, ...)``.

    Args:
        gradient: the gradient with respect to this tensor; may be None when it has one element.
        retain_graph: keep the saved values so that backward can run again (default: `create_graph`).
        create_graph: record the backward pass, for higher-order derivatives.
        inputs: accumulate only into these tensors.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4., 6.])
    """
    if not _torch_function.plain((self,)):
        return _to_mode(_tensor_backward, (self,), (self,), gradient=gradient, retain_graph=retain_graph,
                        create_graph=create_graph, inputs=inputs)
    node = self._grad_fn
    # a node that can be the whole backward by itself (a compiled call's replay node) may run it
    # without the engine's pass; it answers False where anything could observe the difference
    if node is not None and node._backward_alone is not None and gradient is None and inputs is None \
            and not create_graph and node._backward_alone(self, retain_graph):
        return
    if node is not None and gradient is None and inputs is None and not create_graph and type(self) is Tensor \
            and type(data := self._array) is np.ndarray and not data.ndim and data.dtype.kind == "f" \
            and ops_unobserved():
        # `loss.backward()`: what backward() below does for it, without its argument handling; the
        # implicit gradient made as ones_like makes it where no mode or profiler would see that op
        engine.run_backward([edge(self)], [Tensor._make(np.ones((), data.dtype), False, None, 0)],
                            retain_graph=bool(retain_graph))
        return
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


_tensor_backward.__name__ = _tensor_backward.__qualname__ = "backward"   # a mode sees Tensor.backward as torch's
Tensor.backward = _tensor_backward


def _relevant(inputs):
    """The `inputs=` of a backward pass whose types may override __torch_function__ (an iterator is
    not consumed: its elements are not looked at)."""
    if type(inputs) is dict:
        return tuple(inputs.values())
    return _as_tuple(inputs) if inputs is None or type(inputs) in (list, tuple) or isinstance(
        inputs, (Tensor, GradientEdge)) else ()


def _to_mode(fn, relevant, args, **kwargs):
    """A backward pass called while a TorchFunctionMode is active or on a tensor whose type overrides
    __torch_function__: handed to it (as torch's backward and grad check __torch_function__), so that
    the pass itself runs with that mode off the stack: a function mode does not see the ops of the
    derivative formulas, which torch's engine runs below Python."""
    return _torch_function.handle_torch_function(fn, relevant, *args, **kwargs)


def _input_edge(t, i):
    if isinstance(t, GradientEdge):
        return tuple(t)
    if not t._requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return edge(t)


def grad(outputs: _Tensors, inputs: Any, grad_outputs: Optional[_Tensors] = None, retain_graph: Optional[bool] = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: Optional[bool] = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> Tuple[Tensor, ...]:
    """The gradients of `outputs` with respect to `inputs`, returned instead of accumulated.

    Args:
        outputs: the tensor (or sequence of tensors) to differentiate.
        inputs: the tensors (or gradient edges) to differentiate with respect to; a dict gives a
            dict with the same keys.
        grad_outputs: the gradient with respect to each output; None for an output of one element.
        retain_graph: keep the saved values to run the graph again (default: `create_graph`).
        create_graph: record the backward pass, so that the result can be differentiated again.
        allow_unused: return None for an input the outputs do not depend on, instead of raising.
        is_grads_batched: the first dimension of each of `grad_outputs` is a batch: one
            vector-Jacobian product per row.
        materialize_grads: return zeros instead of None for unused inputs.

    Returns:
        tuple of Tensor: one gradient per input.

    Example::

        >>> x = torch.tensor(3.0, requires_grad=True)
        >>> y = x ** 2
        >>> torch.autograd.grad(y, x)
        (tensor(6.),)
        >>> (dx,) = torch.autograd.grad(x ** 3, x, create_graph=True)
        >>> torch.autograd.grad(dx, x)
        (tensor(18.),)
    """
    relevant = _as_tuple(outputs) + _relevant(inputs)
    if not _torch_function.plain(relevant):
        return _to_mode(grad, relevant, (outputs, inputs),
                        grad_outputs=grad_outputs, retain_graph=retain_graph, create_graph=create_graph,
                        only_inputs=only_inputs,
                        allow_unused=materialize_grads if allow_unused is None else allow_unused,
                        is_grads_batched=is_grads_batched,
                        materialize_grads=materialize_grads)
    if type(inputs) is dict:
        keys = inputs.keys()
        return dict(zip(keys, grad(outputs, tuple(inputs.values()), grad_outputs, retain_graph, create_graph,
                                   only_inputs, allow_unused, is_grads_batched, materialize_grads)))
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    outs = _as_tuple(outputs)
    ins = _inputs_tuple(inputs, "grad")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    grads = _as_tuple(grad_outputs) or (None,) * len(outs)
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outs, grads, create_graph)
    roots = [_root_edge(o, i) for i, o in enumerate(outs)]
    edges = [_input_edge(t, i) for i, t in enumerate(ins)]
    result = engine.run_backward(roots, grads, inputs=edges, retain_graph=retain_graph, create_graph=create_graph)
    if materialize_grads and any(g is None and isinstance(t, GradientEdge) for g, t in zip(result, ins)):
        raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
    for i, g in enumerate(result):
        if g is None:
            if materialize_grads:
                result[i] = OPS["zeros_like"](ins[i]).requires_grad_(create_graph)
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
