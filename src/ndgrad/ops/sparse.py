"""Sparse tensors: layout conversions, constructors, accessors and the torch.sparse ops.

A sparse Tensor is an ordinary Tensor whose `_array` is a sparse container (ndgrad/_sparse_array.py)
instead of an ndarray; forwards here take and return those containers and go through the same
`@op` glue and derivatives.yaml entries ("# ---- sparse tensors ----") as every dense op. The few
backward helpers the formulas call are registered under torch's private names (`_sparse_sum_backward`,
`_sparse_softmax_backward_data`, ...) so that formulas can use them.
"""
import numpy as np

from .. import _dtype
from ..backends import ARRAY_TYPES

from . import _registry
from ._registry import op, register
from ._schema import Parser
from ..backends.numpy_backend import sparse as backend_sparse
from .._sparse_array import (BLOCKED, COMPRESSED, COO, NAMES, ROW_MAJOR, Compressed, SparseArray, matmul,
                             sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided, to_layout,
                             unsupported)
from .._tensor import Tensor, _wrap_dim
from ..autograd import grad_mode, record
from .creation import tensor, zeros


def _method(fn):
    """A Tensor method that is not an op (accessors of the sparse storage)."""
    _registry.METHODS[fn.__name__] = fn
    return fn


def _layout(data):
    return data.layout if isinstance(data, SparseArray) else strided


def _int_tensor(arr):
    return Tensor._make(arr, False, None, 0)


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    return tensor(x)


# ---- layout conversions ----------------------------------------------------------------------------
def _convert(data, layout, blocksize=None, sparse_dim=None):
    src = _layout(data)
    if layout in COMPRESSED:
        if data.ndim != 2:
            raise RuntimeError(f"to_sparse: ndgrad supports {NAMES[layout]} tensors of 2 dimensions only "
                               f"(no batch or dense dimensions), got {data.ndim}-D of shape {list(data.shape)}")
        if layout in BLOCKED:
            if blocksize is None:
                raise RuntimeError(f"dense_to_sparse: conversion from {NAMES[src]} to {NAMES[layout]} without "
                                   "blocksize argument given is not supported")
            bh, bw = blocksize
            if data.shape[0] % bh or data.shape[1] % bw:
                raise RuntimeError(f"dense_to_sparse_{layout.name[7:]}: tensor sparse size ({data.shape[0]},"
                                   f"{data.shape[1]}) must be divisible by given blocksize ({bh},{bw})")
    return to_layout(data, layout, tuple(blocksize) if blocksize is not None else None, sparse_dim)


@op("_to_sparse.sparse_dim", public=False)
def _to_sparse_dim(input, sparse_dim):
    if not 0 <= sparse_dim <= input.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{input.ndim}] range, but "
                           f"{sparse_dim} is given")
    if sparse_dim == 0:
        raise NotImplementedError("ndgrad: to_sparse(0) (a sparse tensor without sparse dimensions)")
    if isinstance(input, SparseArray):
        raise NotImplementedError("ndgrad: to_sparse(sparse_dim) of a sparse tensor (convert to_dense() first)")
    return _convert(input, sparse_coo, sparse_dim=sparse_dim)


# The conversions (and sparse_mask) get the layout and blocksize of their input as two trailing
# arguments: their backward converts the gradient back to those, and like torch's, their nodes save
# no tensor (a second backward through them works).
def _source(t):
    d = t._array
    return _layout(d), (d.blocksize if _layout(d) in BLOCKED else None)


@op("_to_sparse", public=False)
def _to_sparse(input, layout, blocksize, dense_dim, src_layout, src_blocksize):
    return _convert(input, layout or sparse_coo, blocksize)


def _converter(name, layout):
    def forward(input, blocksize, dense_dim, src_layout, src_blocksize):
        return _convert(input, layout, blocksize)
    forward.__name__ = name
    return op(name, public=False)(forward)


_to_csr, _to_csc = _converter("_to_sparse_csr", sparse_csr), _converter("_to_sparse_csc", sparse_csc)
_to_bsr, _to_bsc = _converter("_to_sparse_bsr", sparse_bsr), _converter("_to_sparse_bsc", sparse_bsc)


def _no_dense_dim(dense_dim):
    if dense_dim:
        raise NotImplementedError("ndgrad: sparse tensors with dense dimensions (dense_dim > 0) are not supported "
                                  "by this conversion")


def _blocksize(blocksize, layout):
    """blocksize as a pair: an int is a square block (torch's int[2] argument)."""
    if blocksize is None or layout not in BLOCKED:
        return blocksize
    blocksize = (blocksize, blocksize) if isinstance(blocksize, int) else tuple(blocksize)
    if len(blocksize) != 2:
        raise RuntimeError(f"dense_to_sparse_{layout.name[7:]}: blocksize needs to be a tuple of size 2, but got "
                           f"{len(blocksize)}")
    return blocksize


def _same(input, layout, blocksize):
    data = input._array
    return _layout(data) is layout and (layout not in BLOCKED or blocksize is None
                                        or tuple(blocksize) == data.blocksize)


@_method
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """to_sparse(sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None) -> Tensor

    This tensor in a sparse layout (itself if it has that layout already).

    ``to_sparse(sparse_dim)`` gives a COO tensor whose first `sparse_dim` dimensions are sparse;
    ``to_sparse(layout=...)`` converts to `layout` (``torch.sparse_coo`` by default, or
    ``torch.sparse_csr``, ``sparse_csc``, ``sparse_bsr``, ``sparse_bsc``, the blocked ones with
    `blocksize`). Differentiable (``ToSparseBackward0`` / ``ToSparseBackward1``).

    Args:
        sparse_dim (int, optional): the number of sparse dimensions of a COO result.
        layout (ndgrad.layout, optional): the target layout.
        blocksize (tuple of two ints, optional): the block shape of a BSR/BSC result.
        dense_dim (int, optional): dense dimensions of a compressed result; not supported by ndgrad
            (must be None or 0).

    Returns:
        Tensor: the sparse tensor.

    Example::

        >>> x = torch.tensor([[0.0, 2.0], [3.0, 0.0]])
        >>> x.to_sparse()
        tensor(indices=tensor([[0, 1],
                               [1, 0]]),
               values=tensor([2., 3.]),
               size=(2, 2), nnz=2, layout=torch.sparse_coo)
    """
    _no_dense_dim(dense_dim)
    if sparse_dim is not None:
        if self.layout is sparse_coo and self._array.sparse_dim == sparse_dim:
            return self
        return _to_sparse_dim(self, sparse_dim)
    target = layout or sparse_coo
    blocksize = _blocksize(blocksize, target)
    return self if _same(self, target, blocksize) else _to_sparse(self, target, blocksize, None, *_source(self))


@_method
def to_sparse_csr(self, dense_dim=None):
    _no_dense_dim(dense_dim)
    return self if _same(self, sparse_csr, None) else _to_csr(self, None, None, *_source(self))


@_method
def to_sparse_csc(self, dense_dim=None):
    _no_dense_dim(dense_dim)
    return self if _same(self, sparse_csc, None) else _to_csc(self, None, None, *_source(self))


@_method
def to_sparse_bsr(self, blocksize, dense_dim=None):
    _no_dense_dim(dense_dim)
    blocksize = _blocksize(blocksize, sparse_bsr)
    return self if _same(self, sparse_bsr, blocksize) else _to_bsr(self, blocksize, None, *_source(self))


@_method
def to_sparse_bsc(self, blocksize, dense_dim=None):
    _no_dense_dim(dense_dim)
    blocksize = _blocksize(blocksize, sparse_bsc)
    return self if _same(self, sparse_bsc, blocksize) else _to_bsc(self, blocksize, None, *_source(self))


@op("_to_dense", public=False)
def _to_dense(input, dtype=None, masked_grad=None):
    out = input.to_dense()
    return out if dtype is None else out.astype(dtype.np)


@_method
def to_dense(self, dtype=None, *, masked_grad=None):
    if self.layout is strided:
        return self if dtype is None else self.to(dtype)
    return _to_dense(self, dtype, masked_grad)


# ---- backward helpers the formulas call ---------------------------------------------------------------
@register("_sparse_to_layout")
def _to_layout(grad, layout, blocksize):
    """`grad` in `layout` (and blocksize): the backward of a layout conversion."""
    return to_dense(grad) if layout is strided else to_sparse(grad, layout=layout, blocksize=blocksize)


@register("_sparse_to_dense_backward")
def _to_dense_backward(grad, input, masked_grad=None):
    """By default (masked_grad) only the stored elements of `input` get a gradient, as in torch."""
    if masked_grad is False:
        return _to_layout(grad, *_source(input))
    return sparse_mask(grad, input)


def _lookup(src, indices):
    """The values of `src` (dense or sparse) at the index columns `indices` (0 where sparse src stores none)."""
    return src[tuple(indices)] if type(src) in ARRAY_TYPES else src.values_at(indices)


def _gather(src, pattern):
    """The values of `src` at the stored positions of `pattern`, in pattern's values order."""
    if isinstance(pattern, COO):
        return _lookup(src, pattern.indices)
    return _lookup(src, pattern.element_indices()).reshape(pattern.values.shape)


@op("_sparse_values_at", public="_sparse_values_at")
def _values_at(input, pattern):
    """The values of `input` where `pattern` stores values: the constructors' backward."""
    return _gather(input, pattern)


@register("_sparse_with_values")
def _with_values(pattern, values):
    """A sparse tensor with the indices of `pattern` and the given `values` (differentiable in values)."""
    d = pattern._array
    if isinstance(d, COO):
        return sparse_coo_tensor(_int_tensor(d.indices), values, d.shape, is_coalesced=d.coalesced)
    return sparse_compressed_tensor(_int_tensor(d.compressed), _int_tensor(d.plain), values, d.shape,
                                    layout=d.layout)


# ---- accessors ----------------------------------------------------------------------------------------
def _expect(self, layouts, what, name):
    if self.layout not in layouts:
        raise RuntimeError(f"{name} expected {what} layout but got {NAMES[self.layout]}")
    return self._array


def _coalesced_coo(self, what):
    data = _expect(self, (sparse_coo,), "sparse coordinate tensor", what)
    if not data.coalesced:
        raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first")
    return data


@op("values", public=False, method=True)
def values(input):
    if not isinstance(input, SparseArray):
        raise RuntimeError(f"values expected sparse tensor layout but got {NAMES[strided]}")
    if isinstance(input, COO) and not input.coalesced:
        raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
    return input.values


@_method
def indices(self):
    return _int_tensor(_coalesced_coo(self, "indices").indices)


@_method
def _indices(self):
    return _int_tensor(_expect(self, (sparse_coo,), "sparse coordinate tensor", "_indices").indices)


@_method
def _values(self):
    return Tensor._make(_expect(self, (sparse_coo,), "sparse coordinate tensor", "_values").values, False, None, 0)


@_method
def crow_indices(self):
    return _int_tensor(_expect(self, ROW_MAJOR, "sparse row compressed tensor", "crow_indices").compressed)


@_method
def col_indices(self):
    return _int_tensor(_expect(self, ROW_MAJOR, "sparse row compressed tensor", "col_indices").plain)


@_method
def ccol_indices(self):
    return _int_tensor(_expect(self, (sparse_csc, sparse_bsc), "sparse column compressed tensor",
                               "ccol_indices").compressed)


@_method
def row_indices(self):
    return _int_tensor(_expect(self, (sparse_csc, sparse_bsc), "sparse column compressed tensor",
                               "row_indices").plain)


# the *_copy accessors: torch's functional forms of the accessors above, a result with memory of its own.
# On the CPU torch has no SparseCPU kernel for indices_copy/values_copy: a COO tensor is refused.
@op("values_copy", public="values_copy")
def values_copy(input):
    """A copy of the values of a sparse compressed tensor (:meth:`Tensor.values`), with memory of its own.
    Its gradient reaches the tensor's stored values (``ValuesBackward0_copy``); like torch on the CPU, a COO
    tensor is refused (NotImplementedError).

    Example::

        >>> c = torch.tensor([[1.0, 0.0], [0.0, 2.0]]).to_sparse_csr()
        >>> torch.values_copy(c)
        tensor([1., 2.])
    """
    if isinstance(input, COO):
        raise unsupported("values_copy", input)
    return values.__wrapped__(input).copy()


def _accessor_copy(name, layouts, what, field):
    def accessor_copy(input):
        if isinstance(input._array, COO):
            raise unsupported(name, input._array)
        return _int_tensor(getattr(_expect(input, layouts, what, name[:-5]), field).copy())
    accessor_copy.__name__ = accessor_copy.__qualname__ = name
    accessor_copy.__doc__ = (f"A copy of :meth:`Tensor.{name[:-5]}` (memory of its own, not the tensor's); like "
                             "torch on the CPU, a COO tensor is refused (NotImplementedError)" +
                             (": indices_copy, of COO tensors only, always fails" if name == "indices_copy" else "") +
                             ".\n\nExample::\n\n" + (
                                 "    >>> torch.indices_copy(torch.eye(2).to_sparse())\n    Traceback (most recent "
                                 "call last):\n    ...\n    NotImplementedError: Could not run 'aten::indices_copy' "
                                 "with arguments from the 'SparseCPU' backend...\n" if name == "indices_copy" else
                                 "    >>> c = torch.tensor([[1.0, 0.0], [0.0, 2.0]]).to_sparse_"
                                 f"{'csr' if layouts is ROW_MAJOR else 'csc'}()\n    >>> torch.{name}(c)\n"
                                 f"    tensor([{'0, 1, 2' if field == 'compressed' else '0, 1'}])\n"))
    return register(name)(accessor_copy)


indices_copy = _accessor_copy("indices_copy", (sparse_coo,), "sparse coordinate tensor", "indices")
crow_indices_copy = _accessor_copy("crow_indices_copy", ROW_MAJOR, "sparse row compressed tensor", "compressed")
col_indices_copy = _accessor_copy("col_indices_copy", ROW_MAJOR, "sparse row compressed tensor", "plain")
ccol_indices_copy = _accessor_copy("ccol_indices_copy", (sparse_csc, sparse_bsc), "sparse column compressed tensor",
                                   "compressed")
row_indices_copy = _accessor_copy("row_indices_copy", (sparse_csc, sparse_bsc), "sparse column compressed tensor",
                                  "plain")


@_method
def is_coalesced(self):
    return _expect(self, (sparse_coo,), "sparse coordinate tensor", "is_coalesced").coalesced


@_method
def _nnz(self):
    if self.layout is strided:
        raise unsupported("_nnz", self._array)
    return self._array.nnz


@_method
def sparse_dim(self):
    d = self._array
    return 0 if type(d) in ARRAY_TYPES else d.sparse_dim if isinstance(d, COO) else 2


@_method
def dense_dim(self):
    d = self._array
    return d.ndim if type(d) in ARRAY_TYPES else d.values.ndim - 1 if isinstance(d, COO) else 0


@op("_coalesce", public=False)
def _coalesce(input):
    return input.coalesce()


@_method
def coalesce(self):
    data = _expect(self, (sparse_coo,), "sparse coordinate tensor", "coalesce")
    return self if data.coalesced else _coalesce(self)


@op("sparse_mask", public=False)
def _sparse_mask(input, mask, src_layout, src_blocksize):
    """input's values at the stored positions of the sparse `mask`, in mask's layout."""
    if not isinstance(mask, SparseArray):
        raise unsupported("sparse_mask", mask)
    if tuple(input.shape) != tuple(mask.shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(input.shape)} "
                           f"but mask has size {list(mask.shape)}")
    if isinstance(mask, COO):
        mask = mask.coalesce()
        return COO(mask.indices, _gather(input, mask).astype(input.dtype), mask.shape, True)
    return mask._replace(_gather(input, mask).astype(input.dtype))


@_method
def sparse_mask(self, mask):
    return _sparse_mask(self, mask, *_source(self))


# resize_as_sparse_: self (COO) takes the template's size and sparse/dense dims, keeping its entries (torch's
# sparse_resize_ rules). An op out of place records torch's NotImplemented node; the public form moves the
# result's storage and history into self.
_RESIZE_OPTIONS = (" on a non-empty sparse tensor is not supported.\nYou could try the following options:\n1. If you "
                   "need an empty sparse tensor of this size, call `x = torch.sparse_coo_tensor(size)`.\n2. If you "
                   "need to resize this tensor, you have the following options:\n    1. For both sparse and dense "
                   "dimensions, keep the number of them constant and the size of them non-shrinking, and then try "
                   "the same call again.\n    2. Or, create a new sparse tensor with the correct indices and values "
                   "from this sparse tensor.")


@op("resize_as_sparse_", public=False)
def _resize_as_sparse(input, the_template):
    layouts = _layout(input), _layout(the_template)
    if any(x in COMPRESSED for x in layouts):
        if all(x in COMPRESSED for x in layouts):
            raise NotImplementedError("ndgrad: resize_as_sparse_ of a sparse compressed tensor")
        which = "src" if layouts[0] in COMPRESSED else "self"
        raise RuntimeError(f"resize_as_sparse_compressed_: {which}  expected sparse compressed tensor layout but got "
                           f"{NAMES[sparse_coo]}")
    if not isinstance(input, COO):
        if not isinstance(the_template, COO):
            raise unsupported("resize_as_sparse_", input)
        raise RuntimeError("resize_as_sparse_: expected a sparse COO self, got a strided one")   # (torch: an assert)
    shape = tuple(the_template.shape)
    sparse_dim = the_template.sparse_dim if isinstance(the_template, COO) else 0
    dense_dim = len(shape) - sparse_dim
    if not input.nnz:
        return COO(np.zeros((sparse_dim, 0), np.int64), np.zeros((0,) + shape[sparse_dim:], input.dtype), shape,
                   input.coalesced)
    old_sparse, old_dense = input.sparse_dim, input.ndim - input.sparse_dim
    for kind, old, new in (("sparse", old_sparse, sparse_dim), ("dense", old_dense, dense_dim)):
        if old != new:
            raise RuntimeError(f"changing the number of {kind} dimensions (from {old} to {new}){_RESIZE_OPTIONS}")
    for kind, old, new in (("sparse", input.shape[:sparse_dim], shape[:sparse_dim]),
                           ("dense", input.shape[sparse_dim:], shape[sparse_dim:])):
        if any(n < o for o, n in zip(old, new)):
            raise RuntimeError(f"shrinking the size of {kind} dimensions (from {list(old)} to {list(new)})"
                               f"{_RESIZE_OPTIONS}")
    values = input.values
    if values.shape[1:] != shape[sparse_dim:]:   # grown dense dims: new elements (uninitialized in torch) are 0
        values = np.zeros((input.nnz,) + shape[sparse_dim:], values.dtype)
        values[(slice(None),) + tuple(slice(n) for n in input.shape[sparse_dim:])] = input.values
    return COO(input.indices, values, shape, input.coalesced)


@register(method=True)
def resize_as_sparse_(input, the_template):
    """Resizes the sparse COO tensor `input` in place to the size, sparse and dense dimensions of
    `the_template`. A tensor with entries keeps them: its numbers of sparse and dense dimensions cannot
    change and its sizes cannot shrink; an empty one takes any size.

    Args:
        input (Tensor): the sparse COO tensor to resize.
        the_template (Tensor): gives the size and dimensions.

    Returns:
        Tensor: `input`.

    Example::

        >>> s = torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse()
        >>> torch.resize_as_sparse_(s, torch.zeros(3, 3).to_sparse()).shape
        torch.Size([3, 3])
    """
    if grad_mode.state.enabled and input.requires_grad:
        record.check_leaf_inplace(input)
    res = _resize_as_sparse(input, the_template)
    input._vc[0] += 1   # (first: the counter is made before the data changes, see autograd/node.version_counter)
    input._array = res._array
    if res._fn is not None:
        record.rebase_history(input, res._fn)
    return input


# ---- constructors -------------------------------------------------------------------------------------
@op("_sparse_coo_tensor_with_dims_and_tensors", public=False)
def _coo_tensor(sparse_dim, dense_dim, size, indices, values, is_coalesced=None):
    return COO(indices.astype(np.int64), values, size, bool(is_coalesced) or values.shape[0] <= 1)


@register()
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    indices, values = _as_tensor(indices), _as_tensor(values)
    if dtype is not None:
        values = values.to(dtype)
    idx = indices._array
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if idx.dtype.kind == "f":   # torch takes floating indices, as int64
        idx = idx.astype(np.int64)
        indices = Tensor._make(idx, False, None, 0)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"indices must be an int64 tensor, got {indices.dtype}")
    if values.ndim == 0 or values.shape[0] != idx.shape[1]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {idx.shape[1]}, "
                           f"nnz from values: {values.shape[0] if values.ndim else 1}")
    sparse_dim, dense_dim = idx.shape[0], values.ndim - 1
    highest = idx.max(1) if idx.shape[1] else np.full(sparse_dim, -1)
    if size is None:
        size = tuple(int(m) + 1 for m in highest) + tuple(values.shape[1:])
    size = tuple(size)
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim ({dense_dim}), "
                           f"but got {len(size)}")
    for d in range(sparse_dim):
        if highest[d] >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                               f"index {int(highest[d])}")
    out = _coo_tensor(sparse_dim, dense_dim, size, indices, values, is_coalesced)
    return out.requires_grad_() if requires_grad else out


@op("sparse_compressed_tensor", public=False)
def _compressed_tensor(compressed_indices, plain_indices, values, size, layout):
    return Compressed(layout, compressed_indices.astype(np.int64), plain_indices.astype(np.int64), values, size)


@register()
def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory=False, requires_grad=False, check_invariants=None):
    if layout not in COMPRESSED:
        raise RuntimeError(f"sparse_compressed_tensor: expected one of torch.sparse_csr, torch.sparse_csc, "
                           f"torch.sparse_bsr, torch.sparse_bsc as layout, got {layout}")
    ci, pi, values = _as_tensor(compressed_indices), _as_tensor(plain_indices), _as_tensor(values)
    if dtype is not None:
        values = values.to(dtype)
    blocked = layout in BLOCKED
    if ci.ndim != 1 or pi.ndim != 1 or values.ndim != (3 if blocked else 1):
        raise NotImplementedError("ndgrad: compressed sparse tensors are 2-D, without batch or dense dimensions "
                                  f"(values of {3 if blocked else 1} dims, got {values.ndim})")
    c, p, nnz = ci._array, pi._array, pi.shape[0]
    name = "crow_indices" if layout in ROW_MAJOR else "ccol_indices"
    for broken, rule in ((len(c) == 0 or c[0] != 0, f"{name}[..., 0] == 0"), (c[-1] != nnz, f"{name}[..., -1] == nnz"),
                         (np.any(np.diff(c) < 0), f"0 <= {name}[..., 1:] - {name}[..., :-1]")):
        if broken:
            raise RuntimeError(f"`{rule}` is not satisfied.")
    if values.shape[0] != nnz:
        raise RuntimeError(f"sparse_compressed_tensor: values must hold one entry per plain index ({nnz}), "
                           f"got {values.shape[0]}")
    bh, bw = tuple(values.shape[1:]) if blocked else (1, 1)
    grid = (len(c) - 1, int(p.max()) + 1 if nnz else 0)
    if layout not in ROW_MAJOR:
        grid = grid[::-1]
    size = tuple(size) if size is not None else (grid[0] * bh, grid[1] * bw)
    if len(size) != 2 or size[0] % bh or size[1] % bw:
        raise RuntimeError(f"sparse_compressed_tensor: size {list(size)} is not 2-D or not divisible by the "
                           f"blocksize ({bh}, {bw})")
    n_major = size[0] // bh if layout in ROW_MAJOR else size[1] // bw
    n_minor = size[1] // bw if layout in ROW_MAJOR else size[0] // bh
    if len(c) != n_major + 1 or nnz and p.max() >= n_minor:
        raise RuntimeError(f"sparse_compressed_tensor: indices do not fit size {list(size)}")
    out = _compressed_tensor(ci, pi, values, size, layout)
    return out.requires_grad_() if requires_grad else out


_COMPRESSED_KWARGS = ("ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool pin_memory=False, "
                      "bool requires_grad=False, bool? check_invariants=None")


def _compressed_constructor(name, layout):
    """sparse_csr_tensor and its kin: torch's schemas, whose argument names follow the layout
    (crow_indices= and col_indices= for CSR/BSR, ccol_indices= and row_indices= for CSC/BSC)."""
    names = ("crow_indices", "col_indices") if layout in ROW_MAJOR else ("ccol_indices", "row_indices")
    head = f"{name}(object {names[0]}, object {names[1]}, object values"
    parser = Parser(f"{head}, int[] size, *, {_COMPRESSED_KWARGS})", f"{head}, *, {_COMPRESSED_KWARGS})")

    @parser.signature
    def constructor(*args, **kwargs):
        which, values = parser.parse(args, kwargs)
        size = values[3] if which == 0 else None
        dtype, given, device, pin_memory, requires_grad, _ = values[-6:]
        if given is not None and given is not layout:
            raise RuntimeError(f"{name}: layout must be {NAMES[layout]} but got {NAMES[given]}")
        return sparse_compressed_tensor(*values[:3], size, dtype=dtype, layout=layout, device=device,
                                        requires_grad=requires_grad)
    constructor.__name__ = constructor.__qualname__ = name
    register(name)(constructor)


for _name, _layout_obj in (("sparse_csr_tensor", sparse_csr), ("sparse_csc_tensor", sparse_csc),
                           ("sparse_bsr_tensor", sparse_bsr), ("sparse_bsc_tensor", sparse_bsc)):
    _compressed_constructor(_name, _layout_obj)


# ---- reductions and softmax ------------------------------------------------------------------------
def _coo_only(input, name):
    if isinstance(input, COO):
        return input.coalesce()
    raise unsupported(name, input)


def _sum_dims(input, dim):
    dims = sorted({d % input.ndim for d in (dim if isinstance(dim, (list, tuple)) else (dim,))})
    if any(d >= input.sparse_dim for d in dims):
        raise NotImplementedError("ndgrad: torch.sparse.sum over dense dimensions of a hybrid tensor")
    return dims, [d for d in range(input.sparse_dim) if d not in dims]


@op("_sparse_sum.dim", public="_sparse_sum")
def _sparse_sum(input, dim):
    c = _coo_only(input, "_indices")
    dims, keep = _sum_dims(c, dim)
    if not keep:    # every sparse dimension summed: a dense result
        return c.values.sum(0)
    return COO(c.indices[keep], c.values, [c.shape[k] for k in keep] + list(c.shape[c.sparse_dim:])).coalesce()


@op("_sparse_sum_backward", public="_sparse_sum_backward")
def _sparse_sum_backward(grad, input, dim):
    c = _coo_only(input, "_indices")
    dims, keep = _sum_dims(c, dim)
    if not keep:
        vals = np.broadcast_to(np.asarray(grad.to_dense() if isinstance(grad, SparseArray) else grad),
                               c.values.shape).copy()
    else:
        vals = _lookup(grad, c.indices[keep])
    return COO(c.indices, vals, c.shape, True)


def _groups(c, dim):
    """For softmax along `dim`: the group (other indices equal) of each stored value, and the group count."""
    if c.values.ndim != 1:
        raise NotImplementedError("ndgrad: sparse softmax of hybrid tensors (dense dimensions)")
    dim %= c.ndim
    other = np.delete(c.indices, dim, axis=0)
    if not other.shape[0]:
        return np.zeros(c.nnz, np.int64), 1
    shape = tuple(np.delete(np.array(c.shape), dim))
    _, inverse = np.unique(np.ravel_multi_index(tuple(other), shape), return_inverse=True)
    return inverse.reshape(-1), int(inverse.max()) + 1 if c.nnz else 0


def _group_sum(values, inverse, n):
    out = np.zeros(n, values.dtype)
    np.add.at(out, inverse, values)
    return out


def _softmax(input, dim, log):
    c = _coo_only(input, "_sparse_log_softmax" if log else "_sparse_softmax")
    inverse, n = _groups(c, dim)
    v = c.values
    top = np.full(n, -np.inf, v.dtype)
    np.maximum.at(top, inverse, v)
    shifted = v - top[inverse]
    total = _group_sum(np.exp(shifted), inverse, n)[inverse]
    return COO(c.indices, shifted - np.log(total) if log else np.exp(shifted) / total, c.shape, True)


@op("_sparse_softmax", public="_sparse_softmax")
def _sparse_softmax(input, dim, half_to_float=False):
    return _softmax(input, dim, False)


@op("_sparse_log_softmax", public="_sparse_log_softmax")
def _sparse_log_softmax(input, dim, half_to_float=False):
    return _softmax(input, dim, True)


def _softmax_backward(grad_output, output, dim, log):
    inverse, n = _groups(output, dim)
    g = _gather(grad_output, output)
    y = output.values
    if log:
        gi = g - np.exp(y) * _group_sum(g, inverse, n)[inverse]
    else:
        gi = y * (g - _group_sum(g * y, inverse, n)[inverse])
    return COO(output.indices, gi, output.shape, True)


@op("_sparse_softmax_backward_data", public="_sparse_softmax_backward_data")
def _sparse_softmax_backward_data(grad_output, output, dim, input):
    return _softmax_backward(grad_output, output, dim, False)


@op("_sparse_log_softmax_backward_data", public="_sparse_log_softmax_backward_data")
def _sparse_log_softmax_backward_data(grad_output, output, dim, input):
    return _softmax_backward(grad_output, output, dim, True)


# native_norm: the vector norm of a sparse COO tensor's coalesced values (torch has only that kernel)
def _native_norm(name, input, p):
    if not isinstance(input, COO):
        raise unsupported(name, input)
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_dtype.type_word(input.dtype)} instead.")
    v = np.abs(input.coalesce().values.reshape(-1))
    real = v.dtype
    p = 2 if p is None else p
    if p == 0:
        out = np.count_nonzero(v)
    elif p == np.inf or p == -np.inf:
        out = (v.max() if p > 0 else v.min()) if v.size else 0
    else:
        with np.errstate(divide="ignore"):
            out = np.sum(v ** p) ** (1.0 / p)
    return np.asarray(out, real)


@op("native_norm", public=False)
def _native_norm_p(input, p=2):
    return _native_norm("native_norm", input, p)


@op("native_norm.ScalarOpt_dim_dtype", public=False)
def _native_norm_dim(input, p, dim, keepdim, dtype):
    if not isinstance(input, COO):
        raise unsupported("native_norm.ScalarOpt_dim_dtype", input)
    dims = [_wrap_dim(d, input.ndim) for d in dim]
    if dims and sorted(set(dims)) != list(range(input.ndim)) or len(set(dims)) != len(dims):
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    if keepdim:
        raise RuntimeError("norm_sparse currently does not support keepdim=True")
    if dtype is not None:
        raise RuntimeError("norm_sparse currently does not support 'dtype' argument")
    return _native_norm("native_norm", input, p)


_native_norm_args = Parser("native_norm(Tensor input, Scalar p=2)",
                           "native_norm(Tensor input, Scalar? p, int[1] dim, bool keepdim, ScalarType? dtype)")


@_native_norm_args.signature
def native_norm(*args, **kwargs):
    """The p-norm of all the values of a sparse COO tensor (duplicates summed first): ``p=0`` counts the
    nonzero values, ``p=inf`` / ``-inf`` take the largest / smallest magnitude. The second form takes
    `dim` (empty or every dimension: only full reductions), `keepdim` (False) and `dtype` (None).

    Example::

        >>> s = torch.tensor([[3.0, 0.0], [0.0, -4.0]]).to_sparse()
        >>> torch.native_norm(s)
        tensor(5.)
    """
    which, values = _native_norm_args.parse(args, kwargs)
    return (_native_norm_p, _native_norm_dim)[which](*values)


register("native_norm")(native_norm)


# ---- products -----------------------------------------------------------------------------------------
def _check_mm(name, a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{name}: expected 2-D matrices, got {a.ndim}-D and {b.ndim}-D")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"{name}: mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")


def _scipy(x):
    return x.to_scipy() if isinstance(x, SparseArray) else backend_sparse().coo_array(x)


@op("_sparse_sparse_matmul", public="_sparse_sparse_matmul")
def _sparse_sparse_matmul(input, other):
    _check_mm("sparse_sparse_matmul", input, other)
    prod = (_scipy(input) @ _scipy(other)).tocoo()
    idx = np.stack([prod.row, prod.col]).astype(np.int64)
    return COO(idx, prod.data.astype(np.result_type(input.dtype, other.dtype)), prod.shape).coalesce()


@op("_sparse_addmm", public="_sparse_addmm")
def _sparse_addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2), mat1 sparse, input and mat2 dense."""
    if mat1.ndim == 2 and mat2.ndim == 2 and mat2.shape[0] != mat1.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {mat1.shape[1]}, got {mat2.shape[0]}")
    _check_mm("addmm", mat1, mat2)
    out = matmul(mat1, mat2)
    if alpha != 1:
        out = out * alpha
    return out if beta == 0 else out + (input if beta == 1 else beta * input)


@register("_sparse_mm")
def _sparse_mm(mat1, mat2):
    """mat1 @ mat2 with one sparse operand (a dense result, SparseAddmmBackward0): torch.sparse.mm and the
    products in the formulas of the sparse ops."""
    if mat1.layout is strided and mat2.layout is not strided:
        return _sparse_mm(mat2.t(), mat1.t()).t()
    return _sparse_addmm(zeros(mat1.shape[0], mat2.shape[1], dtype=mat2.dtype), mat1, mat2, beta=0)


@op("sparse_sampled_addmm", public=False)
def _sampled_addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2), computed only where the CSR `input` stores values."""
    if not (isinstance(input, Compressed) and input.layout is sparse_csr):
        raise unsupported("sparse_sampled_addmm", input)
    _check_mm("sampled_addmm", mat1, mat2)
    rows, cols = input.element_indices()
    sampled = np.einsum("ij,ji->i", mat1[rows], mat2[:, cols])
    out = alpha * sampled if alpha != 1 else sampled
    return input._replace(out if beta == 0 else out + beta * input.values)


# products into a sparse COO result: sspaddmm (smm, saddmm) appends alpha * (mat1 @ mat2)'s rows to
# beta * input's entries without coalescing; hspmm keeps those rows as a (1 + 1)-dim hybrid tensor
def _layout_name(a):
    return NAMES[_layout(a)]


def _sparse_rows(name, mat1, mat2, alpha=1):
    """The distinct rows of coalesced `mat1` and alpha * (mat1 @ mat2)'s values there, after torch's checks."""
    sparse_dim = mat1.sparse_dim if isinstance(mat1, COO) else 0
    if sparse_dim != 2:
        raise RuntimeError(f"{name}: Argument #2: matrices expected, got {sparse_dim}D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"{name}: Argument #3: matrices expected, got {mat2.ndim}D tensor")
    if mat2.shape[0] != mat1.shape[1]:
        raise RuntimeError(f"{name}: Argument #3: Expected dim 0 size {mat1.shape[1]}, got {mat2.shape[0]}")
    if mat1.dtype != mat2.dtype:
        raise RuntimeError(f"expected scalar type {_dtype.type_word(mat1.dtype)} but found "
                           f"{_dtype.type_word(mat2.dtype)}")
    mat1 = mat1.coalesce()
    rows, where = np.unique(mat1.indices[0], return_inverse=True)
    out = np.zeros((len(rows), mat2.shape[1]), mat2.dtype)
    np.add.at(out, where, mat1.values[:, None] * mat2[mat1.indices[1]])
    return rows, out * np.asarray(alpha).astype(out.dtype) if alpha != 1 else out


def _sparse_kernel(name, args):
    """Refuse where torch finds no kernel: no sparse operand (its strided kernel), a compressed one."""
    for a in args:
        if _layout(a) in COMPRESSED:
            raise unsupported(name, a)
    return any(isinstance(a, COO) for a in args)


@op("sspaddmm", method=True)
def sspaddmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` as a sparse COO tensor, for a sparse COO `input` and `mat1` and a
    strided `mat2`: input's entries as stored (scaled), then every element of the product's rows where
    `mat1` stores values, uncoalesced. No derivative (as in torch: its node is NotImplemented).

    Example::

        >>> s = torch.tensor([[0.0, 2.0], [0.0, 0.0]]).to_sparse()
        >>> torch.sspaddmm(s, s, torch.eye(2)).to_dense()
        tensor([[0., 4.],
                [0., 0.]])
    """
    if not _sparse_kernel("sspaddmm", (input, mat1, mat2)):
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    if not isinstance(mat1, COO):
        raise RuntimeError(f"sspaddmm: expected 'mat1' to have sparse layout, got 'mat1' with layout "
                           f"{_layout_name(mat1)}")
    if _layout(mat2) is not strided:
        raise RuntimeError(f"sspaddmm: expected 'mat2' to have strided layout, got 'mat2' with layout "
                           f"{_layout_name(mat2)}")
    if not isinstance(input, COO):   # (torch fails an internal assert here)
        raise RuntimeError("sspaddmm: expected 'self' to be a sparse COO tensor, got a strided one")
    if mat1.sparse_dim == 2 and mat2.ndim == 2 and mat2.shape[0] == mat1.shape[1] and input.ndim == 2:
        for dim, size in enumerate((mat1.shape[0], mat2.shape[1])):
            if input.shape[dim] != size:
                raise RuntimeError(f"sspaddmm: Argument #1: Expected dim {dim} size {size}, got {input.shape[dim]}")
    rows, out = _sparse_rows("sspaddmm", mat1, mat2, alpha)
    if input.dtype != out.dtype:
        raise RuntimeError(f"dtype of values ({_dtype.type_word(out.dtype)}) must match dtype of sparse tensor "
                           f"({_dtype.type_word(input.dtype)})")
    p = mat2.shape[1]
    indices = np.concatenate([input.indices, np.stack([np.repeat(rows, p), np.tile(np.arange(p), len(rows))])], 1)
    kept = input.values * np.asarray(beta).astype(input.dtype) if beta != 1 else input.values
    vals = np.concatenate([kept, out.reshape(-1)])
    return COO(indices.astype(np.int64), vals, input.shape, coalesced=not len(vals))


@op("smm", method=True)
def smm(input, mat2):
    """The product of the sparse matrix `input` and the dense `mat2`, as a sparse COO tensor (sspaddmm into
    an empty sparse tensor).

    Example::

        >>> s = torch.tensor([[0.0, 2.0], [0.0, 0.0]]).to_sparse()
        >>> torch.smm(s, torch.tensor([[1.0, 1.0], [3.0, 4.0]])).to_dense()
        tensor([[6., 8.],
                [0., 0.]])
    """
    empty = COO(np.zeros((2, 0), np.int64), np.zeros(0, input.dtype), (input.shape[0], mat2.shape[-1])) \
        if isinstance(input, COO) and mat2.ndim else np.zeros(0, input.dtype)
    return sspaddmm.__wrapped__(empty, input, mat2)


@register()
def saddmm(input, mat1, mat2, *, beta=1, alpha=1):
    """Alias for :func:`ndgrad.sspaddmm` (torch's older name)."""
    return sspaddmm(input, mat1, mat2, beta=beta, alpha=alpha)


@op("hspmm")
def hspmm(mat1, mat2):
    """The product of a sparse COO matrix `mat1` and a strided `mat2` as a (1 + 1)-dimensional hybrid COO
    tensor: one sparse dimension (the rows where `mat1` stores values), whose values are the product's rows.
    No derivative (as in torch: its node is NotImplemented).

    Example::

        >>> s = torch.tensor([[0.0, 2.0], [0.0, 0.0]]).to_sparse()
        >>> r = torch.hspmm(s, torch.tensor([[1.0, 1.0], [3.0, 4.0]]))
        >>> r._indices(), r._values()
        (tensor([[0]]), tensor([[6., 8.]]))
    """
    if not _sparse_kernel("hspmm", (mat1, mat2)):
        raise unsupported("hspmm", mat1)
    if isinstance(mat1, COO) and mat1.sparse_dim == 2 and mat2.ndim == 2 and _layout(mat2) is not strided:
        raise RuntimeError(f"addmm_sparse_dense: expected strided result tensor, got tensor with layout "
                           f"{_layout_name(mat2)}")
    rows, out = _sparse_rows("hspmm", mat1, mat2)
    return COO(rows[None].astype(np.int64), out, (mat1.shape[0], mat2.shape[1]), coalesced=not len(rows))


@register()
def hsmm(mat1, mat2):
    """Alias for :func:`ndgrad.hspmm` (torch's older name)."""
    return hspmm(mat1, mat2)


def _csr_rows(input):
    rows, cols = input.element_indices()
    return rows, cols, input.values


@op("_sparse_mm_reduce_impl", public="_sparse_mm_reduce_impl")
def _sparse_mm_reduce_impl(input, other, reduce):
    """(out, arg): out[i] reduces input[i, k] * other[k] over the stored k of row i; arg is, for amax/amin,
    the position in values of the chosen element."""
    if not (isinstance(input, Compressed) and input.layout is sparse_csr):
        raise unsupported("_sparse_mm_reduce_impl", input)
    if reduce not in ("sum", "mean", "amax", "amin"):
        raise RuntimeError(f"sparse_mm_reduce: reduce type of {reduce} has not been enabled.")
    _check_mm("sparse_mm_reduce", input, other)
    rows, cols, v = _csr_rows(input)
    n, p = input.shape[0], other.shape[1]
    prod = v[:, None] * other[cols]
    if reduce in ("sum", "mean"):
        out = np.zeros((n, p), prod.dtype)
        np.add.at(out, rows, prod)
        if reduce == "mean":
            out /= np.maximum(np.diff(input.compressed), 1)[:, None]
        return out, np.zeros(0, np.int64)
    pick = np.maximum if reduce == "amax" else np.minimum
    out = np.full((n, p), -np.inf if reduce == "amax" else np.inf, prod.dtype)
    pick.at(out, rows, prod)
    arg = np.full((n, p), input.nnz, np.int64)       # rows without values: nnz, and out 0
    # the first stored element of the row reaching the extreme
    np.minimum.at(arg, rows, np.where(prod == out[rows], np.arange(len(rows))[:, None], input.nnz))
    out[~np.isfinite(out) & (arg == input.nnz)] = 0
    return out, arg


@op("_sparse_mm_reduce_impl_backward", public="_sparse_mm_reduce_impl_backward")
def _sparse_mm_reduce_impl_backward(input, grad_out, other, reduce, arg_out, grad_input_mask=None):
    rows, cols, v = _csr_rows(input)
    if reduce in ("sum", "mean"):
        weight = 1.0 / np.maximum(np.diff(input.compressed), 1)[rows] if reduce == "mean" else np.ones(len(rows))
        g = grad_out[rows] * weight[:, None]
        grad_values = np.einsum("ej,ej->e", g, other[cols])
        grad_other = np.zeros_like(other)
        np.add.at(grad_other, cols, v[:, None] * g)
    else:
        i, j = np.nonzero(arg_out < input.nnz)
        e = arg_out[i, j]
        grad_values = np.zeros_like(v)
        np.add.at(grad_values, e, grad_out[i, j] * other[cols[e], j])
        grad_other = np.zeros_like(other)
        np.add.at(grad_other, (cols[e], j), grad_out[i, j] * v[e])
    return input._replace(grad_values.astype(v.dtype)), grad_other
