"""torch.nested: batches of tensors of different sizes (storage in ndgrad/_nested_array.py, ops in
ndgrad/ops/nested.py). Layouts: torch.strided (a list of components in one buffer) and torch.jagged
(values rows split by offsets along dim 1)."""
import numpy as np

from ._nested_array import jagged, strided
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .ops import nested as _ops
from .ops.creation import arange, full, tensor
from .ops.shape import cat

__all__ = ["as_nested_tensor", "narrow", "nested_tensor", "nested_tensor_from_jagged", "to_padded_tensor"]


def _check_layout(layout):
    if layout not in (None, strided, jagged):
        raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout}")
    return layout or strided


def _from_list(ts, dtype, layout):
    if layout is jagged:
        values = cat([t.to(dtype) if dtype is not None else t for t in ts])
        offsets = tensor(np.concatenate([[0], np.cumsum([len(t) for t in ts])]).astype(np.int64))
        return _ops._nested_view_from_jagged(values, offsets, None, None, 1, None, max((len(t) for t in ts), default=0))
    return _ops._nested_tensor_from_tensor_list(list(ts), dtype, None, None, None)


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """A nested tensor whose components keep their autograd history (a list of tensors), or a nested
    view of a dense tensor's batch (dim 0)."""
    layout = _check_layout(layout)
    if isinstance(ts, Tensor) and ts.is_nested:
        if ts.layout is not layout:
            raise RuntimeError("as_nested_tensor(): Converting between nested tensor layouts is not supported")
        return ts if dtype is None else ts.to(dtype)
    if isinstance(ts, Tensor):
        if ts.ndim < 2:
            raise RuntimeError("as_nested_tensor(): Expected tensor argument to have dim() > 1")
        if dtype is not None:
            ts = ts.to(dtype)
        n, rest = ts.shape[0], tuple(ts.shape[1:])
        if layout is jagged:
            return _ops._nested_view_from_jagged(ts.reshape((-1,) + rest[1:]), arange(0, n * rest[0] + 1, rest[0]),
                                                 None, None, 1, None, rest[0])
        strides = np.cumprod((1,) + rest[:0:-1])[::-1]   # contiguous strides of one component
        return _ops._nested_view_from_buffer(ts.reshape(-1), _ops._int_tensor(np.tile(rest, (n, 1))),
                                             _ops._int_tensor(np.tile(strides, (n, 1))),
                                             _ops._int_tensor(np.arange(n) * int(np.prod(rest))))
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list / tuple of tensors ")
    return _from_list(ts, dtype, layout)


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A leaf nested tensor copied from a list of tensors (or nested lists of numbers)."""
    layout = _check_layout(layout)
    if layout is strided and requires_grad and tensor_list and not any(isinstance(t, Tensor) for t in tensor_list):
        # as torch: from Python lists, the components are the leaves and the result is not one
        return _from_list([tensor(t, dtype=dtype, requires_grad=True) for t in tensor_list], dtype, layout)
    ts = [t.detach() if isinstance(t, Tensor) else tensor(t, dtype=dtype) for t in tensor_list]
    with no_grad():
        out = _from_list(ts, dtype, layout)
    out = Tensor._make(out._array.copy(), False, None, 0)
    return out.requires_grad_(True) if requires_grad else out


def nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None, min_seqlen=None,
                              max_seqlen=None):
    """A jagged nested tensor viewing `values`, split along dim 0 at `offsets` (rows of each component)."""
    if offsets is None:
        if lengths is None:
            raise RuntimeError("nested_tensor_from_jagged(): At least one of offsets or lengths is required.")
        offsets = cat([tensor([0]), lengths.cumsum(0)])
        lengths = None
    if jagged_dim not in (None, 1):
        raise NotImplementedError(f"ndgrad: jagged_dim={jagged_dim} (only 1)")
    return _ops._nested_view_from_jagged(values, offsets, None, lengths, 1, min_seqlen, max_seqlen)


def to_padded_tensor(input, padding, output_size=None, out=None):
    if out is not None:
        raise NotImplementedError("ndgrad: torch.nested.to_padded_tensor(out=...)")
    return _ops.to_padded_tensor(input, padding, output_size)


def narrow(tensor, dim, start, length, layout=strided):
    """Components tensor[i].narrow(dim - 1, start_i, length_i); jagged: a (non-contiguous) view of `tensor`."""
    if not isinstance(start, (int, Tensor)) or not isinstance(length, (int, Tensor)):
        raise RuntimeError("start must be an integer or a tensor")
    layout = _check_layout(layout)
    if layout is strided:
        if isinstance(start, Tensor) or isinstance(length, Tensor):
            raise RuntimeError("start and length must be integers for the strided layout NT impl")
        if dim != 0:
            raise RuntimeError(f"narrow(): only dim=0 supported for nested tensors, but got: {dim}")
        return as_nested_tensor(tensor.narrow(0, start, length))
    if dim != 1:
        raise RuntimeError("jagged layout only supports dim=1")
    n, size = tensor.shape[0], tensor.shape[1]
    start = start if isinstance(start, Tensor) else full((n,), start)
    length = length if isinstance(length, Tensor) else full((n,), length)
    offsets = cat([start.long() + arange(n) * size, full((1,), n * size)])   # (`tensor` names the argument here)
    values = tensor.reshape((-1,) + tuple(tensor.shape[2:]))
    return _ops._nested_view_from_jagged(values, offsets, None, length.long())
