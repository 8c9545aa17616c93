"""Sparse storage: what a sparse Tensor holds in `_array` instead of an ndarray.

torch's layouts, each a small container of NumPy arrays:
- `COO`: `indices` (sparse_dim, nnz) int64, `values` (nnz, *dense dims), possibly uncoalesced
  (unsorted, duplicates summed on coalesce). Hybrid tensors (dense_dim > 0) are allowed.
- `Compressed` (CSR, CSC, BSR, BSC; 2-D): `compressed` indices (n + 1,), `plain` indices (nnz,),
  `values` (nnz,) or (nnz, *blocksize) for the block layouts. Internally a compressed array is
  a COO over its grid of blocks (`block_coo`), so every layout shares the COO code.

Containers have an ndarray's metadata (shape, dtype, ndim, size) and take part in the few
NumPy calls the existing ops make on them through `__array_ufunc__` / `__array_function__`:
adding (gradient accumulation), multiplying (by a scalar, a dense or a sparse array), negating,
transposes, and the matrix products of mm / mv / matmul / addmm. Anything else raises torch's
NotImplementedError for the sparse backend, so dense ops refuse sparse inputs (where torch has no
sparse kernel, with torch's message).
"""
import numpy as np

from .backends import ARRAY_TYPES
from .backends.numpy_backend import sparse as backend_sparse


class layout:
    """The type of the layout of a tensor's memory: ``torch.strided`` (dense), ``torch.sparse_coo``,
    ``torch.sparse_csr``, ``torch.sparse_csc``, ``torch.sparse_bsr``, ``torch.sparse_bsc`` or ``torch.jagged``.

    Args:
        name (str): the layout's name (the layouts exist already; they are not made by hand).

    Example::

        >>> torch.zeros(2).layout
        torch.strided
        >>> torch.eye(2).to_sparse().layout
        torch.sparse_coo
    """
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


strided, sparse_coo = layout("strided"), layout("sparse_coo")
sparse_csr, sparse_csc = layout("sparse_csr"), layout("sparse_csc")
sparse_bsr, sparse_bsc = layout("sparse_bsr"), layout("sparse_bsc")
COMPRESSED = (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc)
ROW_MAJOR = (sparse_csr, sparse_bsr)          # compressed along rows (the others along columns)
BLOCKED = (sparse_bsr, sparse_bsc)
BACKEND = {strided: "CPU", sparse_coo: "SparseCPU"}   # torch's dispatch keys, used in its error messages
BACKEND.update({k: "SparseCsrCPU" for k in COMPRESSED})
NAMES = {sparse_coo: "Sparse", sparse_csr: "SparseCsr", sparse_csc: "SparseCsc", sparse_bsr: "SparseBsr",
         sparse_bsc: "SparseBsc", strided: "Strided"}


def unsupported(op, data):
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{BACKEND[getattr(data, 'layout', strided)]}' backend. "
        "This could be because the operator doesn't exist for this backend (ndgrad supports sparse tensors in "
        "the conversions, constructors and torch.sparse ops only).")


class SparseArray:
    """What COO and Compressed share: ndarray-like metadata and the NumPy protocol hooks."""
    __slots__ = ()
    base = None                  # never a NumPy view (the view glue asks)
    strides = ()                 # no strides (saved-metadata records read them)
    __array_priority__ = 2000

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self):
        return self.values.itemsize

    @property
    def T(self):
        return self.transpose()

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"can't convert {NAMES[self.layout]} layout tensor to numpy. "
                        "Use Tensor.to_dense() first.")

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        handler = _UFUNCS.get(ufunc.__name__) if method == "__call__" and not kwargs else None
        if handler is None:
            raise unsupported(ufunc.__name__, self)
        res = handler(*inputs)
        if out is not None:   # `dense += sparse` (gradient accumulation into a dense .grad)
            np.copyto(out[0], _dense(res))
            return out[0]
        return res

    def __array_function__(self, func, types, args, kwargs):
        if func is np.swapaxes and not kwargs and self.ndim == 2 and {args[1] % 2, args[2] % 2} == {0, 1}:
            return self.transpose()      # transpose(0, 1) and t() of a matrix
        if func is np.sum and len(args) == 1 and kwargs.get("axis") is None and not kwargs.get("keepdims"):
            # the sum of every element: the stored values' (uncoalesced duplicates add up anyway)
            return np.sum(self.values, dtype=kwargs.get("dtype"))
        raise unsupported("transpose" if func is np.swapaxes else func.__name__, self)

    def __add__(self, other):      # `grad._array += other` in gradient accumulation falls back on these
        return np.add(self, other)

    def __radd__(self, other):
        return np.add(other, self)

    def __getitem__(self, index):
        raise unsupported("index", self)

    def __getattr__(self, name):
        # an ndarray attribute a dense-only forward reached for (reshape, flags, tolist, ...)
        if name.startswith("_"):
            raise AttributeError(name)
        raise NotImplementedError(f"ndgrad: this op does not support {self.layout} tensors (it needs the "
                                  f"array's '{name}'); convert with .to_dense() first")


class COO(SparseArray):
    layout = sparse_coo
    __slots__ = ("indices", "values", "shape", "coalesced")

    def __init__(self, indices, values, shape, coalesced=False):
        self.indices, self.values, self.shape = indices, values, tuple(shape)
        self.coalesced = coalesced

    @property
    def sparse_dim(self):
        return self.indices.shape[0]

    @property
    def nnz(self):
        return self.values.shape[0]

    def _replace(self, values):
        return COO(self.indices, values, self.shape, self.coalesced)

    def astype(self, dtype):
        return self._replace(self.values.astype(dtype))

    def copy(self):
        return COO(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def _keys(self):
        if not self.sparse_dim:   # no sparse dims (a 0-dim gradient of gather, say): every entry is at ()
            return np.zeros(self.nnz, np.int64)
        return np.ravel_multi_index(tuple(self.indices), self.shape[:self.sparse_dim]) if self.nnz else \
            np.zeros(0, np.int64)

    def coalesce(self):
        """Sorted indices, duplicates summed (torch's coalesce)."""
        if self.coalesced:
            return self
        keys, first, inverse = np.unique(self._keys(), return_index=True, return_inverse=True)
        values = np.zeros((len(keys),) + self.values.shape[1:], self.values.dtype)
        np.add.at(values, inverse, self.values)
        return COO(self.indices[:, first], values, self.shape, True)

    def to_dense(self):
        out = np.zeros(self.shape, self.dtype)
        if self.sparse_dim:
            np.add.at(out, tuple(self.indices), self.values)
        else:   # no sparse dims: each entry adds to the whole (dense part)
            np.add.at(out[None], np.zeros(self.nnz, np.intp), self.values)
        return out

    def transpose(self):
        if self.sparse_dim != 2:
            raise unsupported("transpose", self)
        return COO(self.indices[::-1].copy(), self.values, self.shape[::-1], False)

    def to_scipy(self):
        if self.ndim != 2 or self.sparse_dim != 2:
            raise NotImplementedError(f"ndgrad: matrix products of sparse tensors need 2 sparse dimensions, "
                                      f"got a {self.ndim}-D tensor with {self.sparse_dim}")
        return backend_sparse().coo_array((self.values, tuple(self.indices)), shape=self.shape)

    def values_at(self, indices):
        """The values stored at index columns `indices` (zeros where nothing is stored)."""
        c = self.coalesce()
        keys = np.ravel_multi_index(tuple(indices), self.shape[:self.sparse_dim]) if indices.shape[1] else \
            np.zeros(0, np.int64)
        own = c._keys()
        pos = np.minimum(np.searchsorted(own, keys), max(len(own) - 1, 0))
        found = own[pos] == keys if len(own) else np.zeros(len(keys), bool)
        out = np.zeros((len(keys),) + c.values.shape[1:], c.dtype)
        out[found] = c.values[pos[found]]
        return out


class Compressed(SparseArray):
    __slots__ = ("layout", "compressed", "plain", "values", "shape")

    def __init__(self, layout_, compressed, plain, values, shape):
        self.layout, self.compressed, self.plain = layout_, compressed, plain
        self.values, self.shape = values, tuple(shape)

    @property
    def blocksize(self):
        return tuple(self.values.shape[1:3]) if self.layout in BLOCKED else (1, 1)

    @property
    def nnz(self):
        return self.values.shape[0]

    def _replace(self, values):
        return Compressed(self.layout, self.compressed, self.plain, values, self.shape)

    def astype(self, dtype):
        return self._replace(self.values.astype(dtype))

    def copy(self):
        return Compressed(self.layout, self.compressed.copy(), self.plain.copy(), self.values.copy(), self.shape)

    def block_coo(self):
        """This array as a coalesced COO over its block grid, with dense dims (bh, bw)."""
        bh, bw = self.blocksize
        major = np.repeat(np.arange(len(self.compressed) - 1), np.diff(self.compressed))
        idx = np.stack([major, self.plain]) if self.layout in ROW_MAJOR else np.stack([self.plain, major])
        grid = (self.shape[0] // bh, self.shape[1] // bw)
        return COO(idx.astype(np.int64), self.values.reshape(-1, bh, bw), grid + (bh, bw), False)

    def element_indices(self):
        """The (2, nnz * bh * bw) element index of every stored value, in values order."""
        blocks = self.block_coo()
        bh, bw = self.blocksize
        i, j = np.meshgrid(np.arange(bh), np.arange(bw), indexing="ij")
        rows = blocks.indices[0][:, None, None] * bh + i
        cols = blocks.indices[1][:, None, None] * bw + j
        return np.stack([rows.reshape(-1), cols.reshape(-1)])

    def to_coo(self):
        return COO(self.element_indices(), self.values.reshape(-1), self.shape, False).coalesce()

    def to_dense(self):
        return self.to_coo().to_dense()

    def transpose(self):
        """CSR of A is CSC of A^T (and BSR of A is BSC of A^T, with transposed blocks)."""
        swap = {sparse_csr: sparse_csc, sparse_csc: sparse_csr, sparse_bsr: sparse_bsc, sparse_bsc: sparse_bsr}
        values = self.values.transpose(0, 2, 1) if self.layout in BLOCKED else self.values
        return Compressed(swap[self.layout], self.compressed, self.plain, values, self.shape[::-1])

    def to_scipy(self):
        return self.to_coo().to_scipy()

    def values_at(self, indices):
        return self.to_coo().values_at(indices)


# ---- conversions ----------------------------------------------------------------------------------
def coo_from_dense(a, sparse_dim=None):
    sparse_dim = a.ndim if sparse_dim is None else sparse_dim
    nonzero = a != 0
    if a.ndim > sparse_dim:
        nonzero = nonzero.any(axis=tuple(range(sparse_dim, a.ndim)))
    idx = np.nonzero(nonzero)
    return COO(np.array(idx, dtype=np.int64).reshape(sparse_dim, -1), a[idx].copy(), a.shape, True)


def compressed_from_block_coo(blocks, layout_, shape):
    """Compressed storage from a COO over the block grid (any order, duplicates summed)."""
    row_major = layout_ in ROW_MAJOR
    if not row_major:   # order by (column, row): coalesce with the grid axes swapped
        blocks = COO(blocks.indices[::-1], blocks.values, (blocks.shape[1], blocks.shape[0]) + blocks.shape[2:])
    blocks = blocks.coalesce()
    major, plain = blocks.indices
    n = blocks.shape[0]
    compressed = np.concatenate([[0], np.cumsum(np.bincount(major, minlength=n))]).astype(np.int64)
    values = blocks.values if layout_ in BLOCKED else blocks.values.reshape(-1)
    return Compressed(layout_, compressed, plain.copy(), values, shape)


def compressed_from_dense(a, layout_, blocksize=(1, 1)):
    bh, bw = blocksize
    grid = a.reshape(a.shape[0] // bh, bh, a.shape[1] // bw, bw).transpose(0, 2, 1, 3)
    return compressed_from_block_coo(coo_from_dense(grid, 2), layout_, a.shape)


def to_layout(data, layout_, blocksize=None, sparse_dim=None):
    """`data` (ndarray or sparse) converted to `layout_` (blocksize for BSR/BSC)."""
    if layout_ is strided:
        return data if type(data) in ARRAY_TYPES else data.to_dense()
    if layout_ is sparse_coo:
        if type(data) in ARRAY_TYPES:
            return coo_from_dense(data, sparse_dim)
        return data.to_coo() if isinstance(data, Compressed) else data
    if layout_ in BLOCKED or type(data) in ARRAY_TYPES:
        dense = data if type(data) in ARRAY_TYPES else data.to_dense()
        return compressed_from_dense(dense, layout_, blocksize or (1, 1))
    coo = data.coalesce() if isinstance(data, COO) else data.to_coo()   # CSR <-> CSC keep explicit zeros
    return compressed_from_block_coo(COO(coo.indices, coo.values.reshape(-1, 1, 1), coo.shape + (1, 1)),
                                     layout_, coo.shape)


def _dense(x):
    return x.to_dense() if isinstance(x, SparseArray) else x


# ---- the NumPy calls ops make on sparse arrays --------------------------------------------------
def _union(a, b, sign):
    """a + sign * b of two sparse arrays of one layout: the union of the patterns, summed."""
    if a.shape != b.shape:
        raise RuntimeError(f"ndgrad: adding sparse tensors of sizes {list(a.shape)} and {list(b.shape)}")
    if isinstance(a, COO):
        return COO(np.concatenate([a.indices, b.indices], 1), np.concatenate([a.values, sign * b.values]),
                   a.shape).coalesce()
    if a.blocksize != b.blocksize:
        raise NotImplementedError("ndgrad: adding block sparse tensors of different blocksizes")
    x, y = a.block_coo(), b.block_coo()
    return compressed_from_block_coo(COO(np.concatenate([x.indices, y.indices], 1),
                                         np.concatenate([x.values, sign * y.values]), x.shape), a.layout, a.shape)


def _add(a, b, sign=1, name="add"):
    sa, sb = isinstance(a, SparseArray), isinstance(b, SparseArray)
    if sa and sb:
        if a.layout is not b.layout:
            raise NotImplementedError(f"ndgrad: {name} of sparse tensors of layouts {a.layout} and {b.layout}")
        return _union(a, b, sign)
    if sa:
        raise RuntimeError(f"{name}(sparse, dense) is not supported. Use {name}(dense, sparse) instead.")
    return a + sign * b.to_dense()


def _multiply(a, b):
    """a * b with a sparse operand: sparse, on the pattern torch gives (see _mul_sparse, _mul_dense)."""
    if isinstance(a, SparseArray) and isinstance(b, SparseArray):
        return _mul_sparse(a, b)
    if isinstance(b, SparseArray):
        a, b = b, a
    if np.ndim(b) == 0:
        return a._replace(a.values * b)
    return _mul_dense(a, b)


def _mul_dense(s, d):
    """sparse * dense: the sparse operand's pattern (as stored, uncoalesced or not), each value times the dense
    one at its position; the dense operand broadcasts to the sparse shape (and may not grow it)."""
    for i in range(1, min(s.ndim, d.ndim) + 1):
        if d.shape[-i] not in (1, s.shape[-i]) and s.shape[-i] != 1:   # torch names the dense operand a
            raise RuntimeError(f"The size of tensor a ({d.shape[-i]}) must match the size of tensor b "
                               f"({s.shape[-i]}) at non-singleton dimension {max(s.ndim, d.ndim) - i}")
    if tuple(np.broadcast_shapes(s.shape, d.shape)) != s.shape:
        raise NotImplementedError(f"ndgrad: sparse * dense where the dense operand broadcasts the sparse one "
                                  f"(shapes {list(s.shape)} and {list(d.shape)})")
    full = np.broadcast_to(d, s.shape)
    if isinstance(s, COO):
        return s._replace(s.values * full[tuple(s.indices)])
    if s.layout in BLOCKED:
        raise unsupported("mul", s)
    if d.shape != s.shape:   # torch's compressed kernel masks the dense operand: no broadcasting
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(d.shape)} but "
                           f"mask has size {list(s.shape)}")
    return s._replace(s.values * full[tuple(s.element_indices())])


def _mul_sparse(a, b):
    """sparse * sparse as torch: two coalesced COOs give their coalesced intersection; otherwise the result
    keeps the pattern of the uncoalesced one (of both uncoalesced, the one with fewer values, b on a tie),
    its values times the other's (0 where it stores none)."""
    if isinstance(a, Compressed) and isinstance(b, Compressed) and a.layout is b.layout and \
            a.layout not in BLOCKED:
        return to_layout(_mul_sparse(a.to_coo(), b.to_coo()), a.layout)
    if not (isinstance(a, COO) and isinstance(b, COO)):
        raise unsupported("mul", a if isinstance(a, Compressed) else b)
    if a.shape != b.shape or a.sparse_dim != b.sparse_dim:
        raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, "
                           "number of sparse dimensions, and shape of sparse dimensions")
    if a.coalesced and b.coalesced:
        out = COO(a.indices, a.values * b.values_at(a.indices), a.shape, True)
        keep = np.isin(a._keys(), b._keys())
        return COO(out.indices[:, keep], out.values[keep], a.shape, True)
    if a.coalesced or not b.coalesced and b.nnz <= a.nnz:
        a, b = b, a     # a: the pattern kept
    return COO(a.indices, a.values * b.values_at(a.indices), a.shape, False)


def _divide(a, b):
    if not isinstance(a, SparseArray) or isinstance(b, SparseArray) or np.ndim(b) != 0:
        raise unsupported("div", a if isinstance(a, SparseArray) else b)
    return a._replace(a.values / b)


def matmul(a, b):
    """a @ b with a sparse and b dense (torch.sparse.mm's product)."""
    if not isinstance(a, SparseArray) or isinstance(b, SparseArray):
        return _dense(a) @ _dense(b)
    return np.asarray(a.to_scipy() @ b)


def _matmul(a, b):
    """np.matmul with a sparse operand (mm, mv, matmul): a dense result when one side is dense, a sparse one of
    a's kind when both are (COO, or CSR for the compressed layouts), as torch's. Their backward formulas are the
    dense ones (grad.mm(mat2.t()), ...), whose gradients are dense and unmasked, as torch's are."""
    if a.ndim != 2 and isinstance(a, SparseArray) or b.ndim != 2 and isinstance(b, SparseArray) or \
            max(a.ndim, b.ndim) > 2:
        raise NotImplementedError(f"ndgrad: matrix products of sparse tensors are 2-D by 1-D or 2-D; got "
                                  f"{a.ndim}-D and {b.ndim}-D operands")
    if isinstance(a, SparseArray) and isinstance(b, SparseArray):
        if (a.layout is sparse_coo) != (b.layout is sparse_coo):
            raise RuntimeError(f"addmm: computation on CPU is not implemented for {NAMES[a.layout]} + "
                               f"{NAMES[a.layout]} @ {NAMES[b.layout]}")
        prod = (a.to_scipy() @ b.to_scipy()).tocoo()
        out = COO(np.stack([prod.row, prod.col]).astype(np.int64), prod.data.astype(a.dtype), prod.shape).coalesce()
        return out if a.layout is sparse_coo else to_layout(out, sparse_csr)
    if isinstance(a, SparseArray):
        out = a.to_scipy() @ b
    else:   # dense @ sparse = (sparse^T @ dense^T)^T
        out = (b.to_scipy().T @ a.T).T
    return np.ascontiguousarray(out, dtype=np.result_type(a.dtype, b.dtype))


_UFUNCS = {
    "add": _add,
    "subtract": lambda a, b: _add(a, b, -1, "sub"),
    "multiply": _multiply,
    "true_divide": _divide,
    "divide": _divide,
    "negative": lambda a: a._replace(-a.values),
    "positive": lambda a: a,
    "conjugate": lambda a: a._replace(a.values.conj()),
    "matmul": _matmul,
}
