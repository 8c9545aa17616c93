"""Nested tensors: constructors and conversions, unbind/values, matmul and linear.

A nested Tensor is an ordinary Tensor whose `_array` is a NestedArray (ndgrad/_nested_array.py)
instead of an ndarray; forwards here take and return those containers and go through the same
`@op` glue and derivatives.yaml entries ("# ---- nested tensors ----") as every dense op, so the
gradients of the component tensors flow through torch's nodes (NestedTensorFromTensorListBackward0,
ToPaddedTensorBackward0, ...). Functions the formulas call are registered under `_nested_*` names.
The public entry points that pick between the dense and the nested op (matmul, F.linear, unbind,
values, ones_like, ...) check `Tensor.is_nested` first.
"""
import numpy as np

from .. import _dtype
from . import _registry
from ._registry import op, register
from .._nested_array import NestedArray, jagged, strided
from .._tensor import Tensor


def _nested(x):
    return type(getattr(x, "_array", None)) is NestedArray


def _method(fn):
    """A Tensor method that is not an op (accessors of the nested storage)."""
    _registry.METHODS[fn.__name__] = fn
    return fn


def _int_tensor(arr):
    return Tensor._make(np.asarray(arr, dtype=np.int64), False, None, 0)


def _expect_nested(t, what):
    if not _nested(t):
        raise NotImplementedError(f"Could not run 'aten::{what}' with arguments from the 'CPU' backend (it takes "
                                  "nested tensors).")
    return t._array


def _numel(size):
    return int(np.prod(size, dtype=np.int64))


def _from_packed(layout, flat, sizes):
    """A contiguous nested array over the 1-D `flat` holding components of `sizes`, in order."""
    if layout is jagged:
        offsets = np.concatenate([[0], np.cumsum([s[0] for s in sizes])]).astype(np.int64)
        return NestedArray.from_jagged(flat.reshape((-1,) + tuple(sizes[0][1:])), offsets)
    return NestedArray(strided, flat, sizes, np.cumsum([0] + [_numel(s) for s in sizes[:-1]]))


# ---- constructors --------------------------------------------------------------------------------
@op("_nested_tensor_from_tensor_list")
def _nested_tensor_from_tensor_list(list, dtype=None, layout=None, device=None, pin_memory=None):
    for i, a in enumerate(list[1:], 1):
        if a.ndim != list[0].ndim:
            raise RuntimeError(f"All Tensors given to nested_tensor must have the same dimension. Found dimension "
                               f"{a.ndim} for Tensor at index {i} and dimension {list[0].ndim} for Tensor at index 0.")
    target = dtype.np if dtype is not None else np.result_type(*list) if list else _dtype.defaults.float.np
    return NestedArray.from_components(layout or strided, [np.asarray(a, dtype=target) for a in list])


@op("_nested_tensor_from_mask")
def _nested_tensor_from_mask(t, mask, mask_check=True):
    counts = mask.sum(1)
    if mask_check and any(not mask[i, :c].all() for i, c in enumerate(counts)):
        raise RuntimeError("Mask must be left-aligned without gaps")
    return NestedArray.from_components(strided, [t[i, :c] for i, c in enumerate(counts)])


@op("_nested_from_padded")
def _nested_from_padded(padded, cpu_nested_shape_example, fuse_transform_0213=False):
    if fuse_transform_0213:
        raise NotImplementedError("ndgrad: _nested_from_padded(fuse_transform_0213=True)")
    sizes = cpu_nested_shape_example
    if sizes.ndim != 2 or sizes.shape[1] != padded.ndim - 1:
        raise RuntimeError(f"_nested_from_padded: expected sizes of shape [batch, {padded.ndim - 1}], got "
                           f"{list(sizes.shape)}")
    return NestedArray.from_components(strided, [padded[i][tuple(slice(0, int(n)) for n in s)]
                                                 for i, s in enumerate(sizes)])


@op("_nested_from_padded_tensor")
def _nested_from_padded_tensor(padded, offsets, dummy=None, ragged_idx=1, min_seqlen=None, max_seqlen=None,
                               sum_S=None, lengths=None):
    """The jagged nested tensor (values rows `sum_S`, `offsets`, `lengths`) holding the unpadded rows of `padded`."""
    lens = np.diff(offsets) if lengths is None else lengths
    rows = int(sum_S) if sum_S is not None else int(offsets[-1])
    values = np.zeros((rows,) + padded.shape[2:], padded.dtype)
    for i, n in enumerate(lens):
        values[offsets[i]:offsets[i] + n] = padded[i, :n]
    return NestedArray.from_jagged(values, offsets, lengths, max_seqlen=padded.shape[1])


@op("_nested_view_from_buffer", view=True)
def _nested_view_from_buffer(input, nested_size, nested_strides, offsets):
    if input.ndim != 1:
        raise RuntimeError(f"_nested_view_from_buffer: expected a 1-D buffer, got {input.ndim}-D")
    for size, stride in zip(nested_size, nested_strides):
        if tuple(stride) != tuple(np.cumprod([1] + list(size[::-1]))[-2::-1]):
            raise NotImplementedError("ndgrad: nested tensors with non-contiguous components")
    out = NestedArray(strided, input, nested_size, offsets)
    if not out.is_contiguous():
        raise NotImplementedError("ndgrad: a nested view of a buffer with gaps or overlaps between components")
    return out


@op("_nested_view_from_jagged", view=True)
def _nested_view_from_jagged(input, offsets, dummy=None, lengths=None, ragged_idx=1, min_seqlen=None,
                             max_seqlen=None):
    if ragged_idx != 1:
        raise NotImplementedError(f"ndgrad: jagged nested tensors with ragged_idx={ragged_idx} (only 1)")
    return NestedArray.from_jagged(input, offsets, lengths, max_seqlen=max_seqlen)


# ---- conversions and accessors -------------------------------------------------------------------
@op("to_padded_tensor", method=True)
def to_padded_tensor(input, padding, output_size=None):
    if not isinstance(input, NestedArray):
        raise NotImplementedError("Could not run 'aten::to_padded_tensor' with arguments from the 'CPU' backend "
                                  "(it takes nested tensors).")
    comps = input.components()
    shape = [len(comps)] + [max((c.shape[d] for c in comps), default=0) for d in range(input.ndim - 1)]
    if input.layout is jagged:
        if not input.is_contiguous():
            raise RuntimeError("to_padded_tensor(): not supported for nested tensors with holes")
        if output_size is None:   # torch pads to max_seqlen when the tensor knows it, else to the values rows
            shape[1] = input.max_seqlen if input.max_seqlen is not None else input.buffer.shape[0]
    if output_size is not None:
        if len(output_size) != len(shape) or any(o < s for o, s in zip(output_size, shape)):
            raise RuntimeError("Value in output_size is less than NestedTensor padded size. Truncation is not "
                               "supported.")
        shape = list(output_size)
    out = np.full(shape, padding, input.dtype)
    for i, c in enumerate(comps):
        out[(i,) + tuple(slice(0, n) for n in c.shape)] = c
    return out


@op("_nested_unbind", view=True)
def _nested_unbind(input):
    return tuple(input.components())


@op("_nested_values", view=True)
def _nested_values(input):
    return input.packed()


@op("_nested_get_values", view=True)
def _nested_get_values(input):
    if not isinstance(input, NestedArray) or input.layout is not jagged:
        raise RuntimeError("_nested_get_values: expected a jagged nested tensor")
    return input.buffer.view()   # a new array object over the values, so the glue records the view


@register("_nested_from_padded_like")
def _nested_from_padded_like(grad, like):
    """The nested tensor of `like`'s structure holding the unpadded part of `grad` (to_padded_tensor's backward)."""
    data = like._array
    if data.layout is jagged:
        return _nested_from_padded_tensor(grad, like.offsets(), None, 1, None, None, data.buffer.shape[0],
                                          like.lengths())
    return _nested_from_padded(grad, like._nested_tensor_size())


@register("_nested_from_list_like")
def _nested_from_list_like(grads, like):
    """unbind's backward: the component gradients as a nested tensor of `like`'s structure."""
    padded = to_padded_tensor(_nested_tensor_from_tensor_list(list(grads)), 0.0)
    return _nested_from_padded_like(padded, like)


def _jagged(t, attr):
    # torch's jagged tensors are a Tensor subclass with these methods; other tensors have none
    if not _nested(t) or t._array.layout is not jagged:
        raise AttributeError(f"'Tensor' object has no attribute '{attr}'")
    return t._array


@_method
def offsets(self):
    return _int_tensor(_jagged(self, "offsets").offsets)


@_method
def lengths(self):
    data = _jagged(self, "lengths")
    return None if data.lengths is None else _int_tensor(data.lengths)


@_method
def _nested_tensor_size(self):
    return _int_tensor(np.array(_expect_nested(self, "_nested_tensor_size").sizes).reshape(len(self._array.sizes), -1))


@_method
def _nested_tensor_strides(self):
    sizes = _expect_nested(self, "_nested_tensor_strides").sizes
    return _int_tensor(np.array([np.cumprod([1] + list(s[::-1]))[-2::-1] for s in sizes]).reshape(len(sizes), -1))


@_method
def _nested_tensor_storage_offsets(self):
    return _int_tensor(_expect_nested(self, "_nested_tensor_storage_offsets").starts)


# ---- matmul and linear ---------------------------------------------------------------------------
@op("matmul", public="_nested_matmul")
def nested_matmul(input, other):
    a, b = isinstance(input, NestedArray), isinstance(other, NestedArray)
    if not (a and b):
        raise RuntimeError(f"Expected both to be nested, but got a {'' if a else 'non-'}nested self and "
                           f"{'' if b else 'non-'}nested other")
    for k, x in enumerate((input, other), 1):
        if x.ndim < 3:
            raise RuntimeError(f"matmul: For nested tensors, only inputs with >= 3 dims are currently supported. "
                               f"{'1st' if k == 1 else '2nd'} input has rank: {x.ndim}")
    if len(other.sizes) != len(input.sizes):
        raise RuntimeError(f"matmul: Expected size for the 1st dimension of 2nd input tensor to be: "
                           f"{len(input.sizes)} but got: {len(other.sizes)}.")
    ca, cb = input.components(), other.components()
    if any(x.shape[-1] != y.shape[-2] for x, y in zip(ca, cb)):
        raise RuntimeError(f"matmul: Nested tensors cannot be matrix multiplied, last dimension of self has sizes "
                           f"{[x.shape[-1] for x in ca]}, second last dimension of mat2 has sizes "
                           f"{[y.shape[-2] for y in cb]}")
    return NestedArray.from_components(input.layout, [x @ y for x, y in zip(ca, cb)])


def _rows(x, what):
    """A nested array's elements as rows of its (regular) last dimension."""
    last = x.shape[-1]
    if not isinstance(last, int):
        raise RuntimeError(f"{what}: the last dimension of the nested tensor must not be ragged")
    return x.packed().reshape(-1, last)


@op("linear", public="_nested_linear")
def nested_linear(input, weight, bias=None):
    rows = _rows(input, "linear")
    if weight.ndim != 2 or rows.shape[1] != weight.shape[1]:
        raise RuntimeError(f"Shape mismatch for NestedTensor Linear: Expected input's (a nested tensor) 'last_dim' "
                           f"to equal 'weight.size(1), but got: last_dim = {rows.shape[1]}, and weight.size(1) = "
                           f"{weight.shape[-1]}")
    out = rows @ weight.T
    if bias is not None:
        out = out + bias
    return _from_packed(input.layout, out.reshape(-1), [s[:-1] + (weight.shape[0],) for s in input.sizes])


@op("linear_backward", public="_nested_linear_backward")
def nested_linear_backward(input, grad_output, weight, output_mask):
    """(grad of input, of weight, of bias) of nested linear; the input's gradient keeps its structure."""
    go, x = _rows(grad_output, "linear_backward"), _rows(input, "linear_backward")
    gi = input.like(_from_packed(input.layout, (go @ weight).reshape(-1), input.sizes).components())
    return gi, go.T @ x, go.sum(0)


@register("_nested_linear_double_backward")
def _linear_double_backward(grads, input, grad_output, weight):
    """linear_backward's backward: each term differentiates one of gi = go W, gW = go^T x, gb = sum(go)."""
    ggi, ggw, ggb = grads
    d_input = nested_linear(grad_output, ggw.t()) if ggw is not None else None
    d_go = nested_linear(ggi, weight) if ggi is not None else None
    if ggw is not None or ggb is not None:
        w = ggw if ggw is not None else weight.new_zeros(weight.shape)
        term = nested_linear(input, w, ggb)
        d_go = term if d_go is None else d_go + term
    d_weight = nested_linear_backward(ggi, grad_output, weight, [False, True, False])[1] if ggi is not None else None
    return d_input, d_go, d_weight


# ---- the nested branch of dense entry points -----------------------------------------------------
def _nested_branch(name, nested_fn, table=_registry.OPS):
    dense = table[name]

    def fn(input, *args, **kwargs):
        return nested_fn(input, *args, **kwargs) if _nested(input) else dense(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = dense.__doc__
    table[name] = fn
    method = _registry.METHODS.get(name)
    if table is _registry.OPS and (method is dense or getattr(method, "__wrapped__", None) is dense):
        _registry.METHODS[name] = fn


def _unbind(input, dim=0):
    if dim != 0:
        raise RuntimeError("unbind(): only supported for NestedTensor on dim=0" if input._array.layout is jagged else
                           f"NestedTensor can only be unbound along dimension 0 got dimension {dim} instead.")
    return _nested_unbind(input)


def _values(input):
    return _nested_get_values(input) if input._array.layout is jagged else _nested_values(input)


def _nested_like(fill):
    def like(input, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
             memory_format=None):
        data = input._array
        comps = [fill(c, dtype=dtype.np if dtype is not None else None) for c in data.components()]
        t = Tensor._make(data.like(comps), False, None, 0)
        return t.requires_grad_(True) if requires_grad else t
    return like


_nested_branch("unbind", _unbind)
_nested_branch("values", _values, _registry.METHODS)
_nested_branch("ones_like", _nested_like(np.ones_like))
_nested_branch("zeros_like", _nested_like(np.zeros_like))
_nested_branch("empty_like", _nested_like(np.zeros_like))
