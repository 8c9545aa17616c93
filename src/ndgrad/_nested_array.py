"""Nested storage: what a nested Tensor holds in `_array` instead of an ndarray (as _sparse_array.py
does for sparse tensors).

A nested tensor is a batch of tensors ("components") of one dtype and one number of dims whose
sizes differ. `NestedArray` keeps them as views into one buffer:
- layout torch.strided (torch's NestedTensorImpl): `buffer` is 1-D; component i is
  buffer[starts[i]: starts[i] + numel_i].reshape(sizes[i]).
- layout torch.jagged (torch's NJT, ragged dim 1): `buffer` is the values (total, *tail); component i
  is values[offsets[i]: offsets[i] + lengths[i]] (lengths None: offsets[i + 1] - offsets[i]).

It has an ndarray's metadata (dtype, ndim, shape with `RaggedDim` entries where sizes differ) and
takes part in the NumPy calls generic ops make through `__array_ufunc__` / `__array_function__`:
elementwise arithmetic of nested arrays of one structure and scalars (so gradients accumulate), sum
over the last dim (strided layout), swapaxes of component dims (transpose). Anything else raises torch's NotImplementedError for the
NestedTensorCPU backend, so dense-only ops refuse nested inputs.
"""
import itertools

import numpy as np

from ._sparse_array import layout, strided

jagged = layout("jagged")
_ids = itertools.count(1)


def unsupported(op):
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'NestedTensorCPU' backend. This could be because the "
        "operator doesn't exist for this backend (ndgrad supports nested tensors in the torch.nested constructors, "
        "to_padded_tensor, unbind, values, elementwise arithmetic, sum over the last dim (kept), transpose, matmul "
        "and linear only).")


class SymInt:
    """torch.SymInt: a size known by a symbol rather than a number. ndgrad's only symbolic sizes are
    the ragged dimensions of nested tensors (RaggedDim), which are SymInts as torch's are.

    Example::

        >>> nt = torch.nested.nested_tensor([torch.ones(3, 2), torch.ones(1, 2)], layout=torch.jagged)
        >>> isinstance(nt.shape[1], torch.SymInt), isinstance(nt.shape[2], torch.SymInt)
        (True, False)
    """
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        if cls is SymInt:   # torch builds one around a symbolic-shape node, which ndgrad has not
            raise TypeError("ndgrad makes SymInts itself only, as the ragged sizes of nested tensors")
        return object.__new__(cls)


class RaggedDim(SymInt):
    """A dimension whose size differs among the components; torch prints jagged ones as j1, j2, ..."""
    __slots__ = ("sizes", "id")

    def __init__(self, sizes):
        self.sizes, self.id = tuple(sizes), None

    def __eq__(self, other):
        return isinstance(other, RaggedDim) and self.sizes == other.sizes

    def __hash__(self):
        return hash(self.sizes)

    def __repr__(self):
        if self.id is None:   # numbered when first shown, so a program's first ragged size prints as j1
            self.id = next(_ids)
        return f"j{self.id}"


class NestedArray:
    __slots__ = ("layout", "buffer", "sizes", "starts", "offsets", "lengths", "shape", "max_seqlen")
    __array_priority__ = 2000
    strides = ()     # no strides (saved-metadata records read them)

    def __init__(self, layout_, buffer, sizes, starts, offsets=None, lengths=None, shape=None):
        self.layout, self.buffer = layout_, buffer
        self.sizes, self.starts = [tuple(int(n) for n in s) for s in sizes], [int(s) for s in starts]
        self.offsets, self.lengths = offsets, lengths
        self.max_seqlen = None   # jagged: the padded length of the ragged dim when known (else values rows, as torch)
        if shape is None:
            # a dim is ragged where the sizes differ; a jagged tensor's dim 1 always is (torch's j1)
            shape = (len(self.sizes),) + tuple(RaggedDim(d) if len(set(d)) > 1 or layout_ is jagged and i == 0
                                               else d[0] for i, d in enumerate(zip(*self.sizes)))
        self.shape = shape

    # ---- construction ------------------------------------------------------------------------
    @classmethod
    def from_components(cls, layout_, arrays):
        """Components copied into one fresh contiguous buffer."""
        if layout_ is jagged:
            values = np.concatenate(list(arrays)) if arrays else np.zeros((0,))
            offsets = np.concatenate([[0], np.cumsum([a.shape[0] for a in arrays])]).astype(np.int64)
            return cls.from_jagged(values, offsets, max_seqlen=max((a.shape[0] for a in arrays), default=0))
        numels = [a.size for a in arrays]
        buffer = np.concatenate([a.reshape(-1) for a in arrays]) if arrays else np.zeros((0,))
        return cls(strided, buffer, [a.shape for a in arrays], np.cumsum([0] + numels[:-1]))

    @classmethod
    def from_jagged(cls, values, offsets, lengths=None, shape=None, max_seqlen=None):
        lens = np.diff(offsets) if lengths is None else lengths
        row = int(np.prod(values.shape[1:], dtype=np.int64))
        out = cls(jagged, values, [(int(n),) + values.shape[1:] for n in lens], [int(o) * row for o in offsets[:-1]]
                   if lengths is None else [int(o) * row for o in offsets[:len(lengths)]], offsets, lengths, shape)
        out.max_seqlen = None if max_seqlen is None else int(max_seqlen)
        return out

    def _with_buffer(self, buffer):
        out = NestedArray(self.layout, buffer, self.sizes, self.starts, self.offsets, self.lengths, self.shape)
        out.max_seqlen = self.max_seqlen
        return out

    def like(self, arrays):
        """A fresh array of this structure (layout, buffer size, positions; zeros in the gaps) holding `arrays`."""
        flat = np.zeros(self.buffer.size, np.result_type(*arrays) if arrays else self.dtype)
        for start, a in zip(self.starts, arrays):
            flat[start:start + a.size] = a.reshape(-1)
        return self._with_buffer(flat.reshape(self.buffer.shape))

    def components(self):
        flat = self.buffer.reshape(-1)
        return [flat[s:s + int(np.prod(size, dtype=np.int64))].reshape(size)
                for s, size in zip(self.starts, self.sizes)]

    def packed(self):
        """The components' elements, in order, as one 1-D array (the buffer itself when contiguous)."""
        if self.is_contiguous():
            return self.buffer.reshape(-1)
        return np.concatenate([c.reshape(-1) for c in self.components()]) if self.sizes else self.buffer[:0].reshape(-1)

    def is_contiguous(self):
        end = 0
        for s, size in zip(self.starts, self.sizes):
            if s != end:
                return False
            end += int(np.prod(size, dtype=np.int64))
        return end == self.buffer.size

    # ---- ndarray-like metadata -----------------------------------------------------------------
    @property
    def dtype(self):
        return self.buffer.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return sum(int(np.prod(s, dtype=np.int64)) for s in self.sizes)

    @property
    def itemsize(self):
        return self.buffer.itemsize

    @property
    def base(self):   # the view glue asks; it then checks whether the buffer shares the input's memory
        return self.buffer

    @property
    def flags(self):
        return _Flags(self.is_contiguous())

    def astype(self, dtype):
        return self._with_buffer(self.buffer.astype(dtype))

    def write(self, data):
        """In-place ops' write: `data` (a nested array of this structure) copied into the components."""
        if not isinstance(data, NestedArray) or data.sizes != self.sizes:
            raise unsupported("copy_")
        for dst, src in zip(self.components(), data.components()):
            dst[...] = src

    def copy(self):
        return self.astype(self.dtype)

    # ---- NumPy protocol --------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. ndgrad: convert a nested "
                           "tensor with to_padded_tensor() or unbind() first.")

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        name = ufunc.__name__
        if method != "__call__" or kwargs or self.layout is strided and name not in _STRIDED_UFUNCS:
            raise unsupported(name)
        args = []
        for x in inputs:
            if isinstance(x, NestedArray):
                if x.sizes != self.sizes:
                    raise RuntimeError(f"{name}: nested tensors of different structures: component sizes "
                                       f"{self.sizes} and {x.sizes}")
                args.append(x.packed())
            elif np.ndim(x) == 0:
                args.append(x)
            else:
                raise NotImplementedError(f"ndgrad: {name} of a nested and a dense tensor of shape "
                                          f"{list(np.shape(x))} (only Python scalars or nested tensors of the "
                                          "same structure)")
        res = ufunc(*args)
        packed = NestedArray(self.layout, res, self.sizes, np.cumsum([0] + [int(np.prod(s, dtype=np.int64))
                                                                            for s in self.sizes[:-1]]))
        result = self.like(packed.components())
        if out is not None:   # `a += b` (gradient accumulation)
            out[0].buffer[...] = result.buffer
            return out[0]
        return result

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.may_share_memory, np.shares_memory):
            a, b = (x.buffer if isinstance(x, NestedArray) else x for x in args[:2])
            return func(a, b)
        if func is np.sum:
            return _sum(*args, **kwargs)
        if func is np.swapaxes and not kwargs:
            a, d0, d1 = args
            d0, d1 = d0 % a.ndim, d1 % a.ndim
            if 0 in (d0, d1) or a.layout is jagged and 1 in (d0, d1):
                raise RuntimeError("transpose(): not supported for nested tensors on the batch or ragged dimension")
            return NestedArray.from_components(a.layout, [np.swapaxes(c, d0 - 1, d1 - 1) for c in a.components()])
        raise unsupported(func.__name__)

    def __add__(self, other):      # `grad._array += other` in gradient accumulation falls back on these
        return np.add(self, other)

    def __radd__(self, other):
        return np.add(other, self)

    def __getitem__(self, index):
        raise unsupported("index")

    def __getattr__(self, name):
        # an ndarray attribute a dense-only forward reached for (reshape, tolist, ...)
        if name.startswith("_"):
            raise AttributeError(name)
        raise NotImplementedError(f"ndgrad: this op does not support nested tensors (it needs the array's "
                                  f"'{name}'); convert with to_padded_tensor() or unbind() first")


def _sum(a, axis=None, keepdims=False, dtype=None):
    """sum.dim_IntList of a strided nested array: over the last dim, kept (torch's kernel's one case)."""
    if axis is None or a.layout is jagged:
        raise unsupported("sum")
    axis = axis if isinstance(axis, tuple) else (axis,)
    if len(axis) != 1:
        raise RuntimeError("NestedTensor only allows reduction of a single dimension for now.")
    d = axis[0] % a.ndim
    if d != a.ndim - 1:
        raise RuntimeError(f"NestedTensor can only be reduced across the last dimension for now got dimension {d} "
                           "instead.")
    if not keepdims:
        raise RuntimeError("NestedTensor always requires keepdim=True for now.")
    return NestedArray.from_components(a.layout, [np.sum(c, axis=-1, keepdims=True, dtype=dtype)
                                                  for c in a.components()])


class _Flags:
    __slots__ = ("c_contiguous",)
    writeable = True

    def __init__(self, contiguous):
        self.c_contiguous = contiguous


# torch's strided nested tensors have kernels for arithmetic only (jagged ones for every pointwise op)
_STRIDED_UFUNCS = {"add", "subtract", "multiply", "true_divide", "divide", "negative", "positive", "conjugate"}
