"""nn.functional.linear (addmm or matmul, as torch picks) and bilinear (ops/linalg.py)."""
import ndgrad as _nd
from ...ops.linalg import bilinear

__all__ = ["bilinear", "linear"]


def linear(input, weight, bias=None):
    if input.is_nested:
        return _nd._nested_linear(input, weight, bias)
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"linear: both arguments to linear need to be at least 1D, but they are {input.ndim}D "
                           f"and {weight.ndim}D")
    if bias is not None:
        if input.ndim == 2:
            return _nd.addmm(bias, input, weight.t())
        if input.is_contiguous() and (input.ndim == 3 or bias.ndim == 1):
            # one addmm on the flattened batch, as torch
            out = _nd.addmm(bias, input.view(-1, input.shape[-1]), weight.t())
            return out.view(tuple(input.shape[:-1]) + (out.shape[-1],))
    out = _nd.matmul(input, weight.t())
    return out if bias is None else out + bias
