"""torch.sparse: products, sums and softmax of sparse tensors (forwards in ndgrad/ops/sparse.py)."""
from ._sparse_array import sparse_coo, strided
from .ops import sparse as _ops

__all__ = ["addmm", "log_softmax", "mm", "sampled_addmm", "softmax", "sum"]


def mm(mat1, mat2, reduce=None):
    """mat1 @ mat2 with sparse mat1: dense result (SparseAddmmBackward0); both sparse COO: a sparse COO
    result (SparseSparseMatmulBackward0); with `reduce` (CSR mat1): SparseMmReduceImplBackward0."""
    if reduce is not None:
        return _ops._sparse_mm_reduce_impl(mat1, mat2, reduce)[0]
    if mat1.layout is sparse_coo and mat2.layout is sparse_coo:
        return _ops._sparse_sparse_matmul(mat1, mat2)
    if mat1.layout is strided or mat2.layout is not strided:
        raise NotImplementedError(f"ndgrad: torch.sparse.mm of a {mat1.layout} and a {mat2.layout} matrix "
                                  "(supported: sparse @ dense, sparse COO @ sparse COO)")
    return _ops._sparse_mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1., alpha=1.):
    """beta * mat + alpha * (mat1 @ mat2) with sparse mat1 (SparseAddmmBackward0)."""
    return _ops._sparse_addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):
    """Sum over `dim` (sparse result while sparse dims remain); all elements: a 0-dim dense tensor."""
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return input.coalesce().values().sum()
    return _ops._sparse_sum(input, list(dim) if isinstance(dim, (list, tuple)) else [dim])


def _softmax(op, input, dim, dtype):
    if dtype is not None:
        input = input.to(dtype)
    return op(input, dim, False)


def softmax(input, dim, *, dtype=None):
    """Softmax along `dim` over the stored values (unstored ones count as -inf)."""
    return _softmax(_ops._sparse_softmax, input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    return _softmax(_ops._sparse_log_softmax, input, dim, dtype)


def sampled_addmm(input, mat1, mat2, *, beta=1., alpha=1., out=None):
    """beta * input + alpha * (mat1 @ mat2) at the stored positions of the CSR `input`."""
    if out is not None:
        raise NotImplementedError("ndgrad: torch.sparse.sampled_addmm(out=...)")
    return _ops._sampled_addmm(input, mat1, mat2, beta=beta, alpha=alpha)

