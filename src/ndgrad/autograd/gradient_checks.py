"""Checks and fixes of the gradients a node receives and returns (called by engine.py).

- fill_missing: zeros for the absent gradients of a node that needs all of them;
- fit_to_input: a returned gradient brought to the shape (sum_to) and dtype of the input it
  flows into, or torch's "invalid gradient" error;
- check_count: torch's error when a node returns the wrong number of gradients.
"""


def fill_missing(node, grads):
    """`grads` with zeros (of the node's output shape and dtype) where a gradient is None."""
    from .. import zeros
    from .._dtype import from_numpy_dtype
    # integer outputs (indices) carry no gradient: their slot stays empty
    return [g if g is not None or dt.kind not in "fc" else zeros(shape, dtype=from_numpy_dtype(dt))
            for g, (shape, dt) in zip(grads, node._out_meta)]


def fit_to_input(node, i, grad, meta):
    """Bring gradient `i` of `node` to the (shape, dtype) `meta` of the input it flows into.

    Returns None for a non-float input (no gradient flows there); meta None: no check."""
    if meta is None:
        return grad
    shape, dtype = meta
    if grad._data.shape != shape:
        from .formulas import sum_to
        try:
            grad = sum_to(grad, shape)
        except ValueError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, grad.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]") from None
    if grad._data.dtype != dtype:
        if dtype.kind not in "fc":
            return None
        grad = grad._cast(dtype)
    return grad


def check_count(node, outs, edges):
    if len(outs) != len(edges):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(outs)})")
