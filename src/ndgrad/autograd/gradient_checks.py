"""Checks and fixes of the gradients a node receives and returns (called by engine.py).

- fill_missing: zeros for the absent gradients of a node that needs all of them;
- fit_to_input: a returned gradient brought to the shape (sum_to) and dtype of the input it
  flows into, or torch's "invalid gradient" error;
- fit_grad_dtype: a leaf's incoming gradient cast to the leaf's grad_dtype;
- check_count: torch's error when a node returns the wrong number of gradients;
- sum_to: undoes broadcasting (also used by forward AD and the derivative formulas); sum_to_array,
  the same on the engine's array path.
"""
import numpy as np

from .._dtype import INEXACT_KINDS
from .._tensor import Tensor, resolved_data
from ..backends import current, namespace


def fill_missing(node, grads):
    """`grads` with zeros (of the node's output shape and dtype) where a gradient is None.

    The zeros go on the backend of the gradients present (the engine runs no node that got none;
    apply_node's caller may hand none: then the current backend)."""
    present = next((g for g in grads if g is not None), None)
    backend = namespace(present._array) if present is not None else current()
    # integer outputs (indices) carry no gradient: their slot stays empty
    return [g if g is not None or dt.kind not in INEXACT_KINDS else Tensor._make(backend.zeros(shape, dt), False, None, 0)
            for g, (shape, dt) in zip(grads, node._out_meta)]


def fit_to_input(node, i, grad, meta):
    """Bring gradient `i` of `node` to the (shape, dtype) `meta` of the input it flows into.

    Returns None for a non-float input (no gradient flows there); meta None: no check."""
    if grad._math_bits:   # a lazy conjugate/negative view (conj's formula makes one): nodes get values,
        # differentiably when the backward itself is recorded (create_graph)
        grad = grad.clone() if grad.requires_grad else Tensor._make(resolved_data(grad), False, None, 0)
    if meta is None:
        return grad
    shape, dtype = meta
    if tuple(grad.shape) != shape:   # per-sample shapes for vmap's batched tensors
        try:
            grad = sum_to(grad, shape)
        except ValueError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, grad.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]") from None
    if grad._array.dtype != dtype:
        if dtype.kind not in INEXACT_KINDS:
            return None
        if grad._array.dtype.kind == "c" and dtype.kind != "c":   # as torch: a real input takes the real part
            grad = grad.real                                      # (no casting warning)
        grad = grad._cast(dtype)
    return grad


def fit_grad_dtype(var, grads):
    """The gradient arriving at leaf `var`'s AccumulateGrad (`grads`, a list of one) cast to the
    leaf's grad_dtype, when one is set explicitly; None lets any dtype through."""
    want = var._grad_dtype
    grad = grads[0] if grads else None
    if want is None or grad is None or grad._array.dtype == want.np:
        return grads
    return [grad._cast(want.np)]


def check_count(node, outs, edges):
    if len(outs) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(outs)})")


def _summed_dims(tshape, shape):
    """The dims of a `tshape` gradient that sum_to sums to reach `shape` (lead dims, then broadcast
    size-1 ones), or None where it cannot."""
    lead = len(tshape) - len(shape)
    if lead < 0:
        return None
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and tshape[lead + i] != 1:
            dims.append(lead + i)
        elif s != tshape[lead + i]:
            return None
    return dims


def sum_to_array(a, shape):
    """sum_to on a NumPy array (the engine's array path): the same reduction the Tensor path runs,
    or None where `a` cannot be summed to `shape` (sum_to then raises) or is not float32/64 or complex
    (half precision: the Tensor path's reduction)."""
    if a.dtype.kind not in "fc" or a.dtype.itemsize < 4:
        return None
    dims = _summed_dims(a.shape, shape)
    if dims is None:
        return None
    out = np.add.reduce(a, tuple(dims), None, None, True) if dims else a
    return out.reshape(shape) if len(a.shape) != len(shape) else out


def sum_to(t, shape):
    """Sum `t` down to `shape` (undoing broadcasting); ValueError if it cannot be."""
    shape = tuple(shape)
    tshape = tuple(t.shape)   # per-sample for vmap's batched tensors
    if tshape == shape:
        return t
    dims = _summed_dims(tshape, shape)
    if dims is None:
        raise ValueError(f"cannot sum {tshape} to {shape}")
    if dims:
        t = t.sum(dims, keepdim=True)
    return t.reshape(shape) if len(tshape) != len(shape) else t
