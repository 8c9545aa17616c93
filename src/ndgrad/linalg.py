"""ndgrad.linalg: torch.linalg's functions (decompositions, solvers, norms, products).

The ops and their argument handling live in ndgrad/ops/linalg_decompositions.py (and the products,
matmul to multi_dot, in ndgrad/ops/linalg.py); this module only gives them torch.linalg's names.
"""
from .ops.linalg import matmul, multi_dot, vander  # noqa: F401
from .ops.linalg_decompositions import (LinAlgError, cholesky_ex, cross, det, eig, eigh, eigvals, eigvalsh,  # noqa: F401
                                householder_product, inv, inv_ex, lstsq, lu, lu_factor, lu_factor_ex, lu_solve,
                                matrix_exp, matrix_norm, matrix_power, matrix_rank, norm, pinv, qr,
                                slogdet, solve, solve_ex, solve_triangular, svd, svdvals, vecdot, vector_norm,
                                cond, tensorinv, tensorsolve, ldl_factor, ldl_factor_ex, ldl_solve)
from .ops.linalg_decompositions import linalg_cholesky as cholesky  # noqa: F401
from .ops.shape import diagonal as _diagonal


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _diagonal(A, offset, dim1, dim2)
