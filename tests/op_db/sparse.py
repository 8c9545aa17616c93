"""Registry entries for sparse tensors (see op_db/__init__.py for the format).

Sparse outputs are compared and gradchecked through `.to_dense()` (tests/test_ops.py). Patterns come
from a fixed 0/1 mask `M` multiplied in before the conversion, so that finite differences never add
or remove a stored element (the gradient of a sparse tensor lives on its stored elements only)."""
from . import I, OpInfo, S


def M(*rows):
    """A constant float64 mask (no gradient) with the given rows of 0/1."""
    return S(len(rows), len(rows[0]), fill=rows, requires_grad=False)


M34 = M([1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 0])
M33 = M([1, 0, 0], [1, 1, 0], [0, 0, 1])
M44 = M([1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0])
M23 = M([1, 0, 1], [0, 0, 1])


def _sp(x, m):
    return x * m


def _coalesce_2d(T, v):
    i = T.tensor([[0, 1, 0, 2], [1, 0, 1, 2]])
    return T.sparse_coo_tensor(i, v, (3, 3)).coalesce()


OPS = [
    # layout conversions (inputs without exact zeros except where the mask puts them)
    OpInfo("to_sparse", lambda T, x, m: _sp(x, m).to_sparse(), [S(3, 4), M34], grad_fn="ToSparseBackward1"),
    OpInfo("to_sparse_sparse_dim", lambda T, x: x.to_sparse(1), [S(3, 2)], grad_fn="ToSparseBackward0"),
    OpInfo("to_sparse_layout_csr", lambda T, x, m: _sp(x, m).to_sparse(layout=T.sparse_csr), [S(3, 4), M34],
           grad_fn="ToSparseBackward1"),
    OpInfo("to_sparse_layout_bsc", lambda T, x, m: _sp(x, m).to_sparse(layout=T.sparse_bsc, blocksize=(2, 2)),
           [S(4, 4), M44], grad_fn="ToSparseBackward1"),
    OpInfo("to_sparse_csr", lambda T, x, m: _sp(x, m).to_sparse_csr(), [S(3, 4), M34],
           grad_fn="ToSparseCsrBackward0"),
    OpInfo("to_sparse_csc", lambda T, x, m: _sp(x, m).to_sparse_csc(), [S(3, 4), M34],
           grad_fn="ToSparseCscBackward0"),
    OpInfo("to_sparse_bsr", lambda T, x, m: _sp(x, m).to_sparse_bsr((2, 1)), [S(4, 4), M44],
           grad_fn="ToSparseBsrBackward0"),
    OpInfo("to_sparse_bsc", lambda T, x, m: _sp(x, m).to_sparse_bsc((1, 2)), [S(4, 4), M44],
           grad_fn="ToSparseBscBackward0"),
    OpInfo("csr_to_coo", lambda T, x, m: _sp(x, m).to_sparse_csr().to_sparse(), [S(3, 4), M34],
           grad_fn="ToSparseBackward1"),
    OpInfo("coo_to_csc", lambda T, x, m: _sp(x, m).to_sparse().to_sparse_csc(), [S(3, 4), M34],
           grad_fn="ToSparseCscBackward0"),
    OpInfo("to_dense", lambda T, x, m: _sp(x, m).to_sparse().to_dense(), [S(3, 4), M34],
           grad_fn="ToDenseBackward0"),
    OpInfo("to_dense_hybrid", lambda T, x: x.to_sparse(1).to_dense(), [S(3, 2)], grad_fn="ToDenseBackward0"),
    OpInfo("to_dense_csr", lambda T, x, m: _sp(x, m).to_sparse_csr().to_dense(), [S(3, 4), M34],
           grad_fn="ToDenseBackward0"),
    OpInfo("to_dense_bsr", lambda T, x, m: _sp(x, m).to_sparse_bsr((2, 2)).to_dense(), [S(4, 4), M44],
           grad_fn="ToDenseBackward0"),
    OpInfo("to_dense_unmasked", lambda T, x, m: _sp(x, m).to_sparse().to_dense(masked_grad=False),
           [S(3, 4), M34], grad_fn="ToDenseBackward0"),
    # accessors and constructors
    OpInfo("coalesce", lambda T, i, v: T.sparse_coo_tensor(i, v, (3,)).coalesce(), [I(values=[[0, 2, 0]]), S(3)],
           grad_fn="CoalesceBackward0"),
    OpInfo("coalesce_2d", _coalesce_2d, [S(4)], grad_fn="CoalesceBackward0"),
    OpInfo("values", lambda T, x, m: _sp(x, m).to_sparse().values(), [S(3, 4), M34], grad_fn="ValuesBackward0"),
    OpInfo("values_csr", lambda T, x, m: _sp(x, m).to_sparse_csr().values(), [S(3, 4), M34],
           grad_fn="ValuesBackward0"),
    OpInfo("values_bsr", lambda T, x, m: _sp(x, m).to_sparse_bsr((2, 2)).values(), [S(4, 4), M44],
           grad_fn="ValuesBackward0"),
    OpInfo("sparse_mask", lambda T, x, m: x.sparse_mask(m.to_sparse()), [S(3, 4), M34],
           grad_fn="SparseMaskBackward0"),
    # torch's backward refuses compressed masks ("is_coalesced expected sparse coordinate tensor layout")
    OpInfo("sparse_mask_csc", lambda T, x, m: x.sparse_mask(m.to_sparse_csc()), [S(3, 4), M34],
           grad_fn="SparseMaskBackward0", torch_parity=False),
    OpInfo("sparse_coo_tensor", lambda T, i, v: T.sparse_coo_tensor(i, v, (4,)), [I(values=[[0, 2, 3]]), S(3)],
           grad_fn="SparseCooTensorWithDimsAndTensorsBackward0"),
    OpInfo("sparse_coo_tensor_duplicates", lambda T, i, v: T.sparse_coo_tensor(i, v, (2, 3)),
           [I(values=[[0, 1, 0], [2, 0, 2]]), S(3)], grad_fn="SparseCooTensorWithDimsAndTensorsBackward0"),
    OpInfo("sparse_coo_tensor_hybrid", lambda T, i, v: T.sparse_coo_tensor(i, v, (3, 3)),
           [I(values=[[0, 2]]), S(2, 3)], grad_fn="SparseCooTensorWithDimsAndTensorsBackward0"),
    OpInfo("sparse_csr_tensor", lambda T, c, p, v: T.sparse_csr_tensor(c, p, v, (2, 3)),
           [I(values=[0, 1, 3]), I(values=[2, 0, 1]), S(3)], grad_fn="SparseCompressedTensorBackward0"),
    OpInfo("sparse_bsc_tensor", lambda T, c, p, v: T.sparse_bsc_tensor(c, p, v, (4, 4)),
           [I(values=[0, 1, 2]), I(values=[1, 0]), S(2, 2, 2)], grad_fn="SparseCompressedTensorBackward0"),
    OpInfo("sparse_compressed_tensor_csc", lambda T, c, p, v: T.sparse_compressed_tensor(
        c, p, v, (3, 2), layout=T.sparse_csc), [I(values=[0, 2, 3]), I(values=[0, 2, 1]), S(3)],
        grad_fn="SparseCompressedTensorBackward0"),
    # torch.sparse
    OpInfo("sparse_sum_dim", lambda T, x, m: T.sparse.sum(_sp(x, m).to_sparse(), dim=0), [S(3, 4), M34],
           grad_fn="SparseSumBackward0"),
    OpInfo("sparse_sum_dim1", lambda T, x, m: T.sparse.sum(_sp(x, m).to_sparse(), 1), [S(3, 4), M34],
           grad_fn="SparseSumBackward0"),
    OpInfo("sparse_sum_all_dims", lambda T, x, m: T.sparse.sum(_sp(x, m).to_sparse(), (0, 1)), [S(3, 4), M34],
           grad_fn="SparseSumBackward0"),
    OpInfo("sparse_sum_3d", lambda T, x: T.sparse.sum(x.to_sparse(), (0, 2)), [S(2, 3, 2)],
           grad_fn="SparseSumBackward0"),
    OpInfo("sparse_sum_no_dim", lambda T, x, m: T.sparse.sum(_sp(x, m).to_sparse()), [S(3, 4), M34],
           grad_fn="SumBackward0", forward_ad=False),
    OpInfo("sparse_softmax", lambda T, x, m: T.sparse.softmax(_sp(x, m).to_sparse(), 1), [S(3, 4), M34],
           grad_fn="SparseSoftmaxBackward0", gradgrad=False),
    OpInfo("sparse_softmax_dim0", lambda T, x, m: T.sparse.softmax(_sp(x, m).to_sparse(), 0), [S(3, 4), M34],
           grad_fn="SparseSoftmaxBackward0", gradgrad=False),
    OpInfo("sparse_log_softmax", lambda T, x, m: T.sparse.log_softmax(_sp(x, m).to_sparse(), 0), [S(3, 4), M34],
           grad_fn="SparseLogSoftmaxBackward0", gradgrad=False),
    OpInfo("sparse_log_softmax_dim1", lambda T, x, m: T.sparse.log_softmax(_sp(x, m).to_sparse(), 1),
           [S(3, 4), M34], grad_fn="SparseLogSoftmaxBackward0", gradgrad=False),
    OpInfo("sparse_sparse_mm", lambda T, x, m, y, n: T.sparse.mm(_sp(x, m).to_sparse(), _sp(y, n).to_sparse()),
           [S(3, 3), M33, S(3, 3), M33], grad_fn="SparseSparseMatmulBackward0"),
    OpInfo("sparse_mm_dense", lambda T, x, m, d: T.sparse.mm(_sp(x, m).to_sparse(), d), [S(3, 4), M34, S(4, 2)],
           grad_fn="SparseAddmmBackward0"),
    OpInfo("sparse_mm_csr_dense", lambda T, x, m, d: T.sparse.mm(_sp(x, m).to_sparse_csr(), d),
           [S(3, 4), M34, S(4, 2)], grad_fn="SparseAddmmBackward0"),
    OpInfo("sparse_addmm", lambda T, b, x, m, d: T.sparse.addmm(b, _sp(x, m).to_sparse(), d),
           [S(3, 2), S(3, 4), M34, S(4, 2)], grad_fn="SparseAddmmBackward0"),
    OpInfo("sparse_addmm_beta_alpha", lambda T, b, x, m, d: T.sparse.addmm(b, _sp(x, m).to_sparse(), d,
                                                                           beta=0.5, alpha=-2.0),
           [S(3, 2), S(3, 4), M34, S(4, 2)], grad_fn="SparseAddmmBackward0"),
    OpInfo("sampled_addmm", lambda T, c, m, a, b: T.sparse.sampled_addmm(_sp(c, m).to_sparse_csr(), a, b),
           # gradgrad=False: d(grad of mat1)/d(grad_output) disagrees with finite differences (found when
           # gradgradcheck became strict); torch cannot run this double backward on CSR to compare
           [S(2, 3), M23, S(2, 4), S(4, 3)], grad_fn="SparseSampledAddmmBackward0", gradgrad=False),
    OpInfo("sampled_addmm_beta_alpha", lambda T, c, m, a, b: T.sparse.sampled_addmm(
        _sp(c, m).to_sparse_csr(), a, b, beta=2.0, alpha=0.5), [S(2, 3), M23, S(2, 4), S(4, 3)],
        grad_fn="SparseSampledAddmmBackward0", gradgrad=False),
] + [
    OpInfo(f"sparse_mm_reduce_{r}", lambda T, c, m, d, r=r: T.sparse.mm(_sp(c, m).to_sparse_csr(), d, r),
           [S(3, 4), M34, S(4, 2)], grad_fn="SparseMmReduceImplBackward0", gradgrad=False)
    for r in ("sum", "mean", "amax", "amin")
]
