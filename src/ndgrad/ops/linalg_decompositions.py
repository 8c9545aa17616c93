"""Matrix decompositions and solvers (the ops behind `ndgrad.linalg`), batched over leading dims.

Each op is a forward on arrays (NumPy / SciPy LAPACK calls, batched) registered under the
derivatives.yaml entry torch records for the same call, so the grad_fn names match:
`linalg.solve` -> `_linalg_solve_ex`, `linalg.svd` / `svdvals` -> `_linalg_svd`, and so on.
The user-facing functions (argument forms, named tuples, error checking, and the norms, rank and
powers built on the decompositions) live in ndgrad/linalg.py and at the bottom of this file for the
top-level names (`torch.det`, `torch.svd`, ...). The products are in linalg.py.
"""

import math
import warnings

import numpy as np

from .. import _dtype
from ..autograd.forward_ad import tangent_of
from ..autograd.grad_mode import no_grad
from ..autograd.grad_mode import state as _grad_state
from ..backends.numpy_backend import linalg
from ._registry import autocast_as, op, register
from .creation import eye, tensor, zeros_like
from .linalg import _type_name, vdot
from .pointwise import where
from .random import randn
from .reduction import _linalg_vector_norm, _norm_dim, _structseq, amax, amin


class LinAlgError(RuntimeError):
    """The error a linear-algebra function raises when a factorization fails on the values of its input
    (a singular matrix, one not positive-definite...). A subclass of :class:`RuntimeError`.

    Example::

        >>> try:
        ...     torch.linalg.inv(torch.zeros(2, 2))
        ... except torch.linalg.LinAlgError as e:
        ...     print("singular:", isinstance(e, RuntimeError))
        singular: True
    """


return_types = {name: _structseq(name, fields) for name, fields in [
    ("linalg_cholesky_ex", ["L", "info"]), ("linalg_inv_ex", ["inverse", "info"]),
    ("linalg_solve_ex", ["result", "info"]), ("linalg_slogdet", ["sign", "logabsdet"]),
    ("slogdet", ["sign", "logabsdet"]), ("linalg_qr", ["Q", "R"]), ("qr", ["Q", "R"]),
    ("linalg_svd", ["U", "S", "Vh"]), ("svd", ["U", "S", "V"]), ("linalg_eigh", ["eigenvalues", "eigenvectors"]),
    ("linalg_eig", ["eigenvalues", "eigenvectors"]),
    ("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"]),
    ("linalg_lu_factor", ["LU", "pivots"]), ("linalg_lu_factor_ex", ["LU", "pivots", "info"]),
    ("linalg_lu", ["P", "L", "U"]), ("lu_unpack", ["P", "L", "U"]), ("geqrf", ["a", "tau"]),
    ("triangular_solve", ["solution", "cloned_coefficient"])]}


# ---- argument checks (torch's messages) ---------------------------------------------------
def _check_float(name, A, what="A"):
    if A.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_type_name(A)}")
    if A.dtype == np.float16:
        exc, message = _HALF_ERRORS.get(name, (NotImplementedError, f'"{name}" not implemented for \'Half\''))
        raise exc(message)


# torch's errors for half input, where its check or kernel is not named after the function
_LOW_PRECISION = "{}: Low precision dtypes not supported. Got Half"
_HALF_ERRORS = {
    "linalg.inv": (RuntimeError, _LOW_PRECISION.format("linalg.inv")),
    "linalg.slogdet": (RuntimeError, _LOW_PRECISION.format("linalg.slogdet")),
    "torch.linalg.lstsq": (RuntimeError, "This function doesn't handle types other than float and double"),
    **{name: (NotImplementedError, f"\"{kernel}\" not implemented for 'Half'") for name, kernel in (
        ("linalg.det", "lu_cpu"), ("linalg.solve", "lu_cpu"), ("linalg.cholesky", "cholesky_cpu"),
        ("linalg.qr", "geqrf_cpu"), ("linalg.svd", "linalg_svd_cpu"), ("linalg.cond", "linalg_svd_cpu"))},
}


def _check_matrix(name, A, square=True, what="A"):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    _check_float(name, A, what)
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: {what} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _check_same_dtype(name, A, B):
    if A.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type {_type_name(A)} "
                           f"and B of type {_type_name(B)} instead")


def _check_rhs(name, A, B, left=True):
    """B's rows (left) or columns (right) must match the square A."""
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")


def _broadcast_batch(A, B):
    """A and B with their batch dims (all but the last two) broadcast together."""
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    return np.broadcast_to(A, batch + A.shape[-2:]), np.broadcast_to(B, batch + B.shape[-2:])


def _raise_first(name, info, text, exc=LinAlgError):
    """LinAlgError (or `exc`) for the first failed matrix of a batch; `text(i)` words the failure for info i."""
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        k = int(bad[0])
        prefix = f"(Batch element {k}): " if info.ndim else ""
        raise exc(f"{name}: {prefix}{text(int(info.reshape(-1)[k]))}")


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _eye_like(a, n=None):
    n = a.shape[-1] if n is None else n
    return np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape[:-2] + (n, n))


# ---- Cholesky -----------------------------------------------------------------------------
def _cholesky_info(A):
    """LAPACK's potrf info per matrix: 0, or the order of the first leading minor that is not PD."""
    flat = A.reshape((-1,) + A.shape[-2:])
    potrf = linalg().get_lapack_funcs("potrf", (flat,))
    info = np.array([_potrf_info(*potrf(m, lower=True)) for m in flat], dtype=np.int32)
    return info.reshape(A.shape[:-2])


def _potrf_info(L, info):
    """potrf's info, with a NaN pivot counted as not PD (as torch's LAPACK does; SciPy's passes it)."""
    bad = np.flatnonzero(~np.isfinite(np.diagonal(L)))
    return info if info or not bad.size else bad[0] + 1


def _cholesky_partial(A):
    flat = A.reshape((-1,) + A.shape[-2:])
    potrf = linalg().get_lapack_funcs("potrf", (flat,))
    return np.stack([np.tril(potrf(m, lower=True)[0]) for m in flat]).reshape(A.shape)


@op("linalg_cholesky_ex", public=False)
def linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    _check_matrix("linalg.cholesky", A)
    try:
        L, info = np.linalg.cholesky(A), np.zeros(A.shape[:-2], dtype=np.int32)
        if not np.isfinite(L).all():   # NumPy lets NaN through; LAPACK's potrf reports it as not PD
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        info = _cholesky_info(A)
        if check_errors:
            _raise_not_pd("linalg.cholesky", info)
        L = _cholesky_partial(A)
    return (_mH(L) if upper else L), info


def _raise_not_pd(name, info):
    _raise_first(name, info, lambda i: "The factorization could not be completed because the input is not "
                 f"positive-definite (the leading minor of order {i} is not positive-definite).")


@op("cholesky", method=True)
def cholesky(input, upper=False):
    _check_matrix("cholesky", input)
    try:
        L = np.linalg.cholesky(input)
    except np.linalg.LinAlgError:
        _raise_not_pd("cholesky", _cholesky_info(input))
    return _mH(L) if upper else L


def _check_cholesky_pair(name, B, L):
    if B.ndim < 2 or L.ndim < 2:
        raise RuntimeError(f"{name}: Expected both tensors to have at least 2 dimensions, got {B.ndim} and {L.ndim}")
    _check_float(name, L)
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{L.shape[-2]} by {L.shape[-1]} matrices")
    if B.dtype != L.dtype:
        raise RuntimeError(f"{name}: Expected b and A to have the same dtype, but found b of type "
                           f"{_type_name(B)} and A of type {_type_name(L)} instead.")
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {L.shape[-2]} by {L.shape[-1]} "
                           f"but each b matrix is {B.shape[-2]} by {B.shape[-1]}")


@op("cholesky_solve", method=True)
def cholesky_solve(input, input2, upper=False):
    r"""Solves ``A X = B`` for `X`, given `B` (`input`) and the Cholesky factor of `A` (`input2`): the
    lower triangular ``L`` with ``A = L L^H``, or with ``upper=True`` the upper ``U`` with ``A = U^H U``.

    Args:
        input (Tensor): the right-hand sides `B`, (\*, n, k).
        input2 (Tensor): the Cholesky factor, (\*, n, n).
        upper (bool): whether `input2` is upper triangular. Default: ``False``.

    Returns:
        Tensor: the solution `X`, (\*, n, k).

    Example::

        >>> A = torch.tensor([[4.0, 2.0], [2.0, 3.0]])
        >>> L = torch.linalg.cholesky(A)
        >>> torch.cholesky_solve(torch.tensor([[6.0], [5.0]]), L).round(decimals=4)
        tensor([[1.],
                [1.]])
    """
    _check_cholesky_pair("cholesky_solve", input, input2)
    L, B = _broadcast_batch(input2, input)
    if B.size == 0:   # SciPy's cho_solve refuses empty batches
        return np.zeros(B.shape, input.dtype)
    return linalg().cho_solve((L, not upper), B, check_finite=False).astype(input.dtype, copy=False)


@op("cholesky_inverse", method=True)
def cholesky_inverse(input, upper=False):
    _check_matrix("cholesky_inverse", input)
    if input.size == 0:
        return np.zeros(input.shape, input.dtype)
    return linalg().cho_solve((input, not upper), _eye_like(input).copy(), check_finite=False).astype(input.dtype,
                                                                                                 copy=False)


# ---- inverse, determinants ----------------------------------------------------------------
def _lu_info(lu):
    """LAPACK getrf's info: 1-based index of the first zero on U's diagonal, 0 when there is none."""
    zero = np.diagonal(lu, axis1=-2, axis2=-1) == 0
    if zero.shape[-1] == 0:   # 0x0 matrices: nothing singular (argmax refuses an empty axis)
        return np.zeros(zero.shape[:-1], np.int32)
    return np.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32)


def _lu_factor(A):
    """(LU, 0-based LAPACK pivots) of a batch of (possibly rectangular) matrices; empty ones pass through."""
    if A.size == 0:
        return A.copy(), np.zeros(A.shape[:-2] + (min(A.shape[-2:]),), dtype=np.int32)
    with warnings.catch_warnings():    # singular inputs are reported through info, not warnings
        warnings.simplefilter("ignore", linalg().LinAlgWarning)
        lu, piv = linalg().lu_factor(A, check_finite=False)
    return lu.astype(A.dtype, copy=False), piv.astype(np.int32)


def _singular_text(i):
    return f"The diagonal element {i} is zero, the inversion could not be completed because the input matrix is singular."


@op("linalg_inv_ex", public=False)
def linalg_inv_ex(A, *, check_errors=False):
    _check_matrix("linalg.inv", A)
    try:
        return np.linalg.inv(A), np.zeros(A.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        info = _lu_info(_lu_factor(A)[0])
        if check_errors:
            _raise_first("linalg.inv", info, _singular_text)
        with np.errstate(all="ignore"):   # LAPACK stops at the zero pivot; the result is not meaningful
            inv = np.full(A.shape, np.nan, dtype=A.dtype)
        return inv, info


@op("linalg_det", public=False)
def linalg_det(A):
    _check_matrix("linalg.det", A)
    return np.linalg.det(A)


@op("linalg_slogdet", public=False)
def linalg_slogdet(A):
    _check_matrix("linalg.slogdet", A)
    sign, logabsdet = np.linalg.slogdet(A)
    return sign, logabsdet


# ---- solvers ------------------------------------------------------------------------------
def _is_vector_rhs(A, B):
    """torch's rule: B is a (batch of) vector(s) when 1-D, or when it is A's shape without the last dim."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


@op("_linalg_solve_ex")
def _linalg_solve_ex(A, B, *, left=True, check_errors=False):
    _check_matrix("linalg.solve", A)
    _check_same_dtype("linalg.solve", A, B)
    vector = _is_vector_rhs(A, B)
    B2 = B[..., None] if vector else B
    if B2.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 1 dimension.")
    _check_rhs("linalg.solve", A, B2, left)
    A2, B2 = _broadcast_batch(A, B2)
    lu, piv = _lu_factor(A2)
    info = _lu_info(lu)
    if check_errors and info.any():
        raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    with np.errstate(all="ignore"):
        if left:
            X = linalg().lu_solve((lu, piv), B2, check_finite=False) if B2.size else np.zeros(B2.shape, A.dtype)
        else:   # X A = B  <=>  A^T X^T = B^T
            X = np.swapaxes(linalg().lu_solve((lu, piv), np.swapaxes(B2, -1, -2), trans=1, check_finite=False), -1, -2)
    X = X.astype(A.dtype, copy=False)
    return (X[..., 0] if vector else X), lu, piv + 1, info


@op("linalg_solve_triangular", public=False)
def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    name = "linalg.solve_triangular"
    _check_matrix(name, A)
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    _check_same_dtype(name, A, B)
    _check_rhs(name, A, B, left)
    return _tri_solve(A, B, upper, left, unitriangular)


def _tri_solve(A, B, upper, left, unit, trans=0):
    """op(A) X = B (left) or X A = B, for triangular A; trans: op is 0 identity, 1 transpose, 2 adjoint."""
    A, B = _broadcast_batch(A, B)
    if B.size == 0:
        return np.zeros(B.shape, A.dtype)
    with np.errstate(all="ignore"):
        if left:
            X = linalg().solve_triangular(A, B, trans=trans, lower=not upper, unit_diagonal=unit, check_finite=False)
        else:   # X A = B  <=>  A^T X^T = B^T
            X = np.swapaxes(linalg().solve_triangular(A, np.swapaxes(B, -1, -2), trans=1, lower=not upper,
                                                 unit_diagonal=unit, check_finite=False), -1, -2)
    return X.astype(A.dtype, copy=False)


@op("triangular_solve", method=True)
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    if input.ndim < 2 or A.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{input.ndim} dimensions instead" if input.ndim < 2 else
                           f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A.ndim} dimensions instead")
    _check_float("triangular_solve", A)
    if input.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {A.shape[-2]} by "
                           f"{A.shape[-1]} but each b matrix is {input.shape[-2]} by {input.shape[-1]}")
    _check_same_dtype("triangular_solve", A, input)
    X = _tri_solve(A, input, upper, True, unitriangular, trans=1 if transpose else 0)
    batch = X.shape[:-2]
    return X, np.broadcast_to(A, batch + A.shape[-2:]).copy()


# ---- LU -----------------------------------------------------------------------------------
def _permutation(piv, m):
    """The row order P^T applies (A[perm] = L U) from LAPACK's 1-based sequence of row swaps."""
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    n_batch = int(np.prod(batch))   # explicit: reshape(-1, 0) is ambiguous for 0x0 matrices
    flat_perm = perm.reshape(n_batch, m)
    flat_piv = piv.reshape(n_batch, piv.shape[-1]).astype(np.int64) - 1
    idx = np.arange(flat_perm.shape[0])
    for i in range(piv.shape[-1]):   # the swaps are sequential: one vectorized step per pivot
        j = flat_piv[:, i]
        a, b = flat_perm[idx, i].copy(), flat_perm[idx, j].copy()
        flat_perm[idx, i], flat_perm[idx, j] = b, a
    return flat_perm.reshape(batch + (m,))


def _perm_matrix(piv, m, dtype):
    perm = _permutation(piv, m)
    P = np.zeros(perm.shape + (m,), dtype=dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)   # rows of P^T; P[perm[i], i] = 1
    return np.swapaxes(P, -1, -2)


def _unpack(LU, piv, unpack_data=True, unpack_pivots=True):
    m, n = LU.shape[-2:]
    k = min(m, n)
    batch = LU.shape[:-2]
    if unpack_data:
        L = np.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=LU.dtype)
        U = np.triu(LU[..., :k, :])
    else:
        L = U = np.zeros((0,), dtype=LU.dtype)
    P = _perm_matrix(piv, m, LU.dtype) if unpack_pivots else np.zeros((0,), dtype=LU.dtype)
    return P, np.broadcast_to(L, batch + L.shape[-2:]) if unpack_data else L, U


def _check_pivot_cpu(pivot, name):
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def _lu_singular(i):
    """torch's words for a singular U in lu_factor(_ex), raised as a plain RuntimeError (not LinAlgError)."""
    return (f"U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. If you still want to "
            "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


@op("linalg_lu_factor_ex", public=False)
def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} "
                           "instead")
    if A.dtype.kind not in "fc" or A.dtype == np.float16:
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{_type_name(A)}\'')
    _check_pivot_cpu(pivot, "linalg.lu_factor")
    lu, piv = _lu_factor(A)
    info = _lu_info(lu)
    if check_errors:
        _raise_first("torch.linalg.lu_factor_ex", info, _lu_singular, RuntimeError)
    return lu, piv + 1, info


@op("linalg_lu", public=False)
def linalg_lu(A, *, pivot=True):
    if A.ndim < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    if A.dtype.kind not in "fc" or A.dtype == np.float16:
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{_type_name(A)}\'')
    _check_pivot_cpu(pivot, "linalg.lu_factor")
    lu, piv = _lu_factor(A)
    return _unpack(lu, piv + 1)


@op("lu_unpack")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if LU_pivots.dtype != np.int32:
        raise RuntimeError(f"torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. "
                           f"Note: this function is intended to be used with the output produced by torch.linalg.lu_factor")
    return _unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


@op("linalg_lu_solve", public=False)
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    name = "linalg.lu_solve"
    _check_matrix(name, LU, what="LU")
    if B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    _check_same_dtype(name, LU, B)
    _check_rhs(name, LU, B, left)
    batch = np.broadcast_shapes(LU.shape[:-2], B.shape[:-2], pivots.shape[:-1])
    n = LU.shape[-1]
    lu = np.broadcast_to(LU, batch + (n, n))
    piv = np.broadcast_to(pivots, batch + (n,)).astype(np.int64) - 1
    Bb = np.broadcast_to(B, batch + B.shape[-2:])
    if Bb.size == 0:
        return np.zeros(Bb.shape, LU.dtype)
    cplx = LU.dtype.kind == "c"
    if left:
        X = linalg().lu_solve((lu, piv), Bb, trans=(2 if cplx else 1) if adjoint else 0, check_finite=False)
    else:   # X op(A) = B  <=>  op(A)^H X^H = B^H
        X = _mH(linalg().lu_solve((lu, piv), _mH(Bb), trans=0 if adjoint else (2 if cplx else 1), check_finite=False))
    return X.astype(LU.dtype, copy=False)


# ---- QR, Householder ----------------------------------------------------------------------
_QR_MODES = ("reduced", "complete", "r")


@op("linalg_qr", public=False)
def linalg_qr(A, mode="reduced"):
    if mode not in _QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    _check_matrix("linalg.qr", A, square=False)
    Q, R = np.linalg.qr(A, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        Q = np.zeros((0,), dtype=A.dtype)
    return Q, R


def _householder_q(A, tau, full):
    """H_1 H_2 ... H_k (H_i = I - tau_i v_i v_i^H, v_i from column i below the diagonal) as (m, m) or (m, n)."""
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    batch = np.broadcast_shapes(A.shape[:-2], tau.shape[:-1])
    Q = np.broadcast_to(np.eye(m, m if full else n, dtype=np.result_type(A, tau)), batch + (m, m if full else n))
    Q = Q.copy()
    for i in reversed(range(k)):    # apply H_i on the left, the last reflector first
        v = np.concatenate([np.zeros(batch + (i,), A.dtype), np.ones(batch + (1,), A.dtype),
                            np.broadcast_to(A[..., i + 1:, i], batch + (m - i - 1,))], axis=-1)
        Q -= tau[..., i, None, None] * v[..., :, None] * (np.conj(v)[..., None, :] @ Q)
    return Q


@op("linalg_householder_product", public=False)
def linalg_householder_product(A, tau):
    name = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {A.ndim}")
    _check_float(name, A)
    if A.dtype != tau.dtype:
        raise RuntimeError(f"{name}: tau dtype {_type_name(tau)} does not match input dtype {_type_name(A)}")
    return _householder_q(A, tau, full=False)


@op("ormqr", method=True)
def ormqr(input, input2, input3, left=True, transpose=False):
    r"""The product of the matrix ``Q`` of a QR factorization, given as Householder reflectors
    (:func:`ndgrad.geqrf`'s result), with `input3`: ``Q @ C`` (``C @ Q`` with ``left=False``; ``Q^H`` with `transpose`).

    Args:
        input (Tensor): the reflectors, (\*, m, n).
        input2 (Tensor): their scalar factors tau, (\*, min(m, n)).
        input3 (Tensor): the matrix `C` to multiply.
        left (bool): multiply from the left. Default: ``True``.
        transpose (bool): use the conjugate transpose of ``Q``. Default: ``False``.

    Returns:
        Tensor: the product.

    Example::

        >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
        >>> a, tau = torch.geqrf(A)
        >>> Q = torch.ormqr(a, tau, torch.eye(2, dtype=torch.float64))
        >>> torch.allclose(Q, torch.linalg.qr(A).Q)
        True
    """
    name = "torch.ormqr"
    if input.ndim < 2 or input3.ndim < 2:
        raise RuntimeError(f"{name}: input and other must have at least 2 dimensions.")
    m = input3.shape[-2] if left else input3.shape[-1]
    if input.shape[-2] != m:
        raise RuntimeError(f"{name}: input.shape[-2] must be equal to other.shape[{-2 if left else -1}]")
    side = -2 if left else -1
    if input2.shape[-1] != min(input3.shape[side], input.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    _check_float(name, input)
    Q = _householder_q(input, input2, full=True)
    if transpose:
        Q = _mH(Q)
    return Q @ input3 if left else input3 @ Q


@op("geqrf", method=True)
def geqrf(input):
    _check_matrix("geqrf", input, square=False)
    m, n = input.shape[-2:]
    flat = input.reshape((-1, m, n))
    outs = [linalg().qr(a, mode="raw", check_finite=False)[0] for a in flat]   # LAPACK geqrf, one matrix at a time
    a = np.stack([o[0] for o in outs]) if outs else flat.copy()
    tau = np.stack([o[1] for o in outs]) if outs else np.zeros((0, min(m, n)), input.dtype)
    return (np.ascontiguousarray(a).reshape(input.shape).astype(input.dtype, copy=False),
            tau.reshape(input.shape[:-2] + (min(m, n),)).astype(input.dtype, copy=False))


# ---- spectral: SVD, eigen-decompositions --------------------------------------------------
_SVD_DRIVERS = (None, "gesvd", "gesvdj", "gesvda", "gesvdj_batched")


@op("_linalg_svd")
def _linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None):
    _check_matrix("linalg.svd", A, square=False)
    if not np.isfinite(A).all():   # NumPy raises its own LinAlgError ("SVD did not converge")
        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix contained "
                          "non-finite values.")
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    if not compute_uv:
        S = np.linalg.svd(A, compute_uv=False)
        return np.zeros((0,), A.dtype), S, np.zeros((0,), A.dtype)
    U, S, Vh = np.linalg.svd(A, full_matrices=full_matrices)
    return U, S, Vh


def _check_uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@op("_linalg_eigh")
def _linalg_eigh(A, UPLO="L", compute_v=True):
    _check_uplo(UPLO)
    if A.ndim < 2:
        raise RuntimeError("linalg.eigh: The input tensor A must have at least 2 dimensions.")
    if A.dtype.kind not in "fc" or A.dtype == np.float16:
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_type_name(A)}\'')
    _check_matrix("linalg.eigh", A)
    if not compute_v:
        return np.linalg.eigvalsh(A, UPLO=UPLO), np.zeros((0,), A.dtype)
    w, V = np.linalg.eigh(A, UPLO=UPLO)
    return w, V


@op("linalg_eig", public=False)
def linalg_eig(A):
    if A.ndim >= 2 and (A.dtype.kind not in "fc" or A.dtype == np.float16):
        raise RuntimeError(f"Unknown Complex ScalarType for {_type_name(A)}")
    _check_matrix("linalg.eig", A)
    w, V = np.linalg.eig(A)
    cplx = np.complex64 if A.dtype in (np.float32, np.complex64) else np.complex128
    return w.astype(cplx, copy=False), V.astype(cplx, copy=False)


def _pinv_tolerance(S, atol, rtol, m, n):
    """The cut-off below which singular (or eigen) values are treated as zero, per matrix."""
    smax = S.max(-1, initial=0.0)
    if rtol is None:
        rtol = np.finfo(S.dtype).eps * max(m, n) if atol is None or np.all(np.asarray(atol) <= 0) else 0.0
    atol = 0.0 if atol is None else np.asarray(atol)
    return np.maximum(atol, np.asarray(rtol) * smax)[..., None]


@op("linalg_pinv.atol_rtol_tensor", public=False)
def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False):
    if A.ndim < 2 or A.dtype.kind not in "fc" or A.dtype == np.float16:
        raise RuntimeError(f"linalg.pinv({_type_name(A)}{{{list(A.shape)}}}): expected a tensor with 2 or more "
                           "dimensions of float, double, cfloat or cdouble types")
    m, n = A.shape[-2:]
    if hermitian:
        w, V = np.linalg.eigh(A)
        keep = np.abs(w) > _pinv_tolerance(np.abs(w), atol, rtol, m, n)
        winv = np.where(keep, 1 / np.where(keep, w, 1), 0)
        return ((V * winv[..., None, :]) @ _mH(V)).astype(A.dtype, copy=False)
    if A.size == 0:
        return np.zeros(A.shape[:-2] + (n, m), A.dtype)
    U, S, Vh = np.linalg.svd(A, full_matrices=False)
    keep = S > _pinv_tolerance(S, atol, rtol, m, n)
    sinv = np.where(keep, 1 / np.where(keep, S, 1), 0).astype(S.dtype)
    return ((_mH(Vh) * sinv[..., None, :]) @ _mH(U)).astype(A.dtype, copy=False)


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@op("linalg_lstsq", public=False)
def linalg_lstsq(A, B, rcond=None, *, driver=None):
    name = "torch.linalg.lstsq"
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    _check_float(name, A)
    if A.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{_type_name(A)} and other's dtype {_type_name(B)}")
    vector = B.ndim == A.ndim - 1
    B2 = B[..., None] if vector else B
    if B2.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    A2, B2 = _broadcast_batch(A, B2)
    m, n = A.shape[-2:]
    U, S, Vh = np.linalg.svd(A2, full_matrices=False)
    if rcond is None:
        rcond = np.finfo(S.dtype).eps * max(m, n)
    keep = S > rcond * S.max(-1, initial=0.0)[..., None]
    sinv = np.where(keep, 1 / np.where(keep, S, 1), 0).astype(S.dtype)
    X = (_mH(Vh) * sinv[..., None, :]) @ (_mH(U) @ B2)
    rank = keep.sum(-1).astype(np.int64)
    real = S.dtype
    full_rank = bool(np.all(rank == n))
    if driver != "gelsy" and m > n and full_rank:
        residuals = (np.abs(A2 @ X - B2) ** 2).sum(-2).astype(real)
    else:
        residuals = np.zeros((0,), real)
    if driver == "gels":
        rank = np.zeros((0,), np.int64)
    sv = S if driver in ("gelsd", "gelss") else np.zeros((0,), real)
    X = X.astype(A.dtype, copy=False)
    return (X[..., 0] if vector else X), residuals, rank, sv


# ---- matrix functions and small ops -------------------------------------------------------
@op("linalg_matrix_exp", public=False)
def linalg_matrix_exp(A):
    _check_matrix("linalg.matrix_exp", A)
    if A.size == 0:
        return A.copy()
    return linalg().expm(A).astype(A.dtype, copy=False)


@op("linalg_cross", public=False)
def linalg_cross(input, other, *, dim=-1):
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions. Got {input.ndim} and "
                           f"{other.ndim}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(input)} but found {_type_name(other)}")
    ndim = max(input.ndim, 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    if input.dtype == np.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and "
                           f"{other.shape[dim]}")
    try:
        shape = np.broadcast_shapes(input.shape, other.shape)
    except ValueError:
        raise RuntimeError(f"linalg.cross: inputs with shapes {list(input.shape)} and {list(other.shape)} cannot "
                           "be broadcast together") from None
    out = np.cross(np.broadcast_to(input, shape), np.broadcast_to(other, shape), axis=dim)
    return out.astype(input.dtype, copy=False)


@op("trace", method=True)
def trace(input):
    if input.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    out_dtype = np.int64 if input.dtype.kind in "biu" else input.dtype
    return np.trace(input).astype(out_dtype)


# ---- public functions: argument forms, named tuples, composites ---------------------------
def _rt(name, values):
    return return_types[name](*values)


def _requires_grad(t):
    """Whether t may need a backward or forward-mode derivative (then U and V are computed too)."""
    return _grad_state.enabled and t.requires_grad or tangent_of(t) is not None


def cholesky_ex(A, *, upper=False, check_errors=False):
    return _rt("linalg_cholesky_ex", linalg_cholesky_ex(A, upper=upper, check_errors=check_errors))


def linalg_cholesky(A, *, upper=False):
    return linalg_cholesky_ex(A, upper=upper, check_errors=True)[0]


def inv_ex(A, *, check_errors=False):
    return _rt("linalg_inv_ex", linalg_inv_ex(A, check_errors=check_errors))


def inv(A):
    return linalg_inv_ex(A, check_errors=True)[0]


register("inverse", method=True)(inv)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The pseudoinverse (Moore-Penrose inverse) of a matrix (or of each in a batch), by its SVD.

    Singular values below ``max(atol, rtol * largest)`` count as zero. `rcond` is the older name
    of `rtol` (give one of them).

    Args:
        A (Tensor): the matrices, of shape ``(*, m, n)``.
        rcond (float or Tensor, optional): the same as `rtol`.
        hermitian (bool, optional): `A` is Hermitian (symmetric), so use its eigendecomposition.
            Default: ``False``.
        atol (float or Tensor, optional): the absolute tolerance. Default: ``0``.
        rtol (float or Tensor, optional): the relative tolerance (default: ``eps * max(m, n)``,
            or 0 when `atol` is given).

    Returns:
        Tensor: the pseudoinverses, of shape ``(*, n, m)``.

    Example::

        >>> A = torch.tensor([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
        >>> torch.linalg.pinv(A)
        tensor([[1.0000, 0.0000, 0.0000],
                [0.0000, 0.5000, 0.0000]])
    """
    if rcond is not None:
        if rtol is not None:
            raise RuntimeError("linalg.pinv: cannot specify both rcond and rtol")
        rtol = rcond
    return linalg_pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)


@register(method=True)
@autocast_as("pinverse")
def pinverse(input, rcond=1e-15):
    return linalg_pinv(input, rtol=rcond)


def det(A):
    return linalg_det(A)


register("det", method=True)(det)


def slogdet(A):
    return _rt("linalg_slogdet", linalg_slogdet(A))


@register("slogdet", method=True)
def _slogdet(input):
    return _rt("slogdet", linalg_slogdet(input))


@register(method=True)
def logdet(input):
    r"""The log of the determinant of a square matrix (or of each of a batch): NaN where the determinant is
    negative, -inf where it is 0 (see :func:`ndgrad.linalg.slogdet` for the sign and the log of its magnitude).

    Args:
        input (Tensor): the matrices, (\*, n, n).

    Returns:
        Tensor: the log-determinants.

    Example::

        >>> torch.logdet(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
        tensor(1.7918)
        >>> torch.logdet(torch.tensor([[-1.0, 0.0], [0.0, 1.0]]))
        tensor(nan)
    """
    sign, logabsdet = linalg_slogdet(input)
    if input.is_complex():
        return sign.log() + logabsdet
    return where(sign == -1, float("nan"), logabsdet)


def qr(A, mode="reduced"):
    return _rt("linalg_qr", linalg_qr(A, mode))


@register("qr", method=True)
def _qr(input, some=True):
    return _rt("qr", linalg_qr(input, "reduced" if some else "complete"))


def svd(A, full_matrices=True, *, driver=None):
    return _rt("linalg_svd", _linalg_svd(A, full_matrices, True, driver=driver))


def svdvals(A, *, driver=None):
    return _linalg_svd(A, False, _requires_grad(A), driver=driver)[1]


@register("svd", method=True)
def _svd(input, some=True, compute_uv=True):
    r"""The singular value decomposition ``input = U diag(S) V^H`` of a matrix (or batch), with `V` (not
    ``V^H`` as :func:`ndgrad.linalg.svd` gives); reduced unless ``some=False``. Without `compute_uv`,
    `U` and `V` are zero-filled.

    Args:
        input (Tensor): the matrices, (\*, m, n).
        some (bool): the reduced decomposition (k = min(m, n) columns), else the full one. Default: ``True``.
        compute_uv (bool): compute `U` and `V`. Default: ``True``.

    Returns:
        (Tensor, Tensor, Tensor): a named tuple ``(U, S, V)``, S in decreasing order.

    Example::

        >>> A = torch.tensor([[3.0, 0.0], [0.0, -2.0]])
        >>> U, S, V = torch.svd(A)
        >>> S
        tensor([3., 2.])
        >>> torch.allclose(U @ torch.diag(S) @ V.T, A)
        True
    """
    U, S, Vh = _linalg_svd(input, not some, True)
    if not compute_uv:
        return _rt("svd", (zeros_like(U), S, zeros_like(Vh.mH)))
    return _rt("svd", (U, S, Vh.mH))


def eigh(A, UPLO="L"):
    return _rt("linalg_eigh", _linalg_eigh(A, UPLO, True))


def eigvalsh(A, UPLO="L"):
    return _linalg_eigh(A, UPLO, _requires_grad(A))[0]


def eig(A):
    return _rt("linalg_eig", linalg_eig(A))


def eigvals(A):
    return linalg_eig(A)[0]


def lstsq(A, B, rcond=None, *, driver=None):
    return _rt("linalg_lstsq", linalg_lstsq(A, B, rcond, driver=driver))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    return _rt("linalg_lu_factor_ex", linalg_lu_factor_ex(A, pivot=pivot, check_errors=check_errors))


def lu_factor(A, *, pivot=True):
    LU, pivots, info = linalg_lu_factor_ex(A, pivot=pivot)
    _raise_first("torch.linalg.lu_factor", info.numpy(), _lu_singular, RuntimeError)   # batches too
    return _rt("linalg_lu_factor", (LU, pivots))


def lu(A, *, pivot=True):
    return _rt("linalg_lu", linalg_lu(A, pivot=pivot))


@register("lu", method=True)
def _lu(A, pivot=True, get_infos=False):
    r"""The LU factorization of a matrix (or batch) as a compact matrix and pivots (deprecated in torch in
    favour of :func:`ndgrad.linalg.lu_factor`, and warns); :func:`ndgrad.lu_unpack` gives P, L and U.

    Args:
        A (Tensor): the matrices, (\*, m, n).
        pivot (bool): whether to pivot. Default: ``True``.
        get_infos (bool): also return the error codes of :func:`ndgrad.linalg.lu_factor_ex`. Default: ``False``.

    Returns:
        (Tensor, IntTensor) or (Tensor, IntTensor, IntTensor): the factors ``LU``, the `pivots` (counted
        from 1) and, with `get_infos`, the `infos`.

    Example::

        >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> LU, pivots = torch.lu(A)
        >>> P, L, U = torch.lu_unpack(LU, pivots)
        >>> torch.allclose(P @ L @ U, A)
        True
    """
    if not _lu_warned:   # once per process, as torch's warning
        _lu_warned.append(True)
        warnings.warn(_LU_DEPRECATED, UserWarning, stacklevel=3)
    LU, pivots, info = linalg_lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


_lu_warned = []
_LU_DEPRECATED = ("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                  "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                  "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                  "torch.linalg.lu_factor_ex(A, compute_pivots)")


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    return linalg_lu_solve(LU, pivots, B, left=left, adjoint=adjoint)


@register("lu_solve", method=True)
def _lu_solve(input, LU_data, LU_pivots):
    return linalg_lu_solve(LU_data, LU_pivots, input)


register("lu_unpack")(lambda LU_data, LU_pivots, unpack_data=True, unpack_pivots=True: _rt(
    "lu_unpack", lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)))


def solve_ex(A, B, *, left=True, check_errors=False):
    result, _, _, info = _linalg_solve_ex(A, B, left=left, check_errors=check_errors)
    return _rt("linalg_solve_ex", (result, info))


def solve(A, B, *, left=True):
    return _linalg_solve_ex(A, B, left=left, check_errors=True)[0]


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    return linalg_solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


register("triangular_solve", method=True)(
    lambda input, A, upper=True, transpose=False, unitriangular=False: _rt(
        "triangular_solve", triangular_solve(input, A, upper, transpose, unitriangular)))


def matrix_exp(A):
    return linalg_matrix_exp(A)


register("matrix_exp", method=True)(matrix_exp)


def householder_product(A, tau):
    return linalg_householder_product(A, tau)


register("orgqr", method=True)(householder_product)
register("geqrf", method=True)(lambda input: _rt("geqrf", geqrf(input)))


def cross(input, other, *, dim=-1):
    return linalg_cross(input, other, dim=dim)


@register("cross", method=True)
def _cross(input, other, dim=None):
    """The cross product of the 3-vectors of `input` and `other` along `dim` (the two broadcast).

    Without `dim`, torch uses the first dimension of size 3 and warns that this default is deprecated;
    :func:`ndgrad.linalg.cross` (``dim=-1``) is the recommended form.

    Args:
        input (Tensor): the first vectors.
        other (Tensor): the second vectors.
        dim (int, optional): the dimension of size 3 that holds the vectors.

    Returns:
        Tensor: the cross products.

    Example::

        >>> a = torch.tensor([[1.0, 0.0, 0.0]])
        >>> b = torch.tensor([[0.0, 1.0, 0.0]])
        >>> torch.cross(a, b, dim=1)
        tensor([[0., 0., 1.]])
    """
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((d for d, s in enumerate(shape) if s == 3), -1)
    return linalg_cross(input, other, dim=dim)


@autocast_as("linalg_vecdot")
def vecdot(x, y, *, dim=-1):
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_type_name(x._array)} and y of type {_type_name(y._array)} instead")
    if x.ndim == 1 and y.ndim == 1:
        return vdot(x, y)
    return (x.conj() * y).sum(dim)


@register(method=True)
def matrix_power(input, n):
    """The `n`-th power of a square matrix (or of each in a batch), by repeated squaring.

    A negative `n` raises the inverse to ``-n``; ``n = 0`` gives the identity.

    Args:
        input (Tensor): the matrices, of shape ``(*, m, m)``.
        n (int): the exponent.

    Returns:
        Tensor: the powers, the shape of `input`.

    Example::

        >>> A = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
        >>> torch.linalg.matrix_power(A, 3)
        tensor([[1., 3.],
                [0., 1.]])
        >>> torch.linalg.matrix_power(A, -1)
        tensor([[ 1., -1.],
                [ 0.,  1.]])
    """
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        if input.ndim < 2:
            raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input.shape[-2]} by {input.shape[-1]} matrices")
    if n == 0:
        return input.clone().copy_(eye(input.shape[-1], dtype=input.dtype).expand(input.shape))
    if n < 0:
        input, n = inv(input), -n
        if n == 1:
            return input
    elif n == 1:
        return input.clone()
    result, z = None, input
    while True:
        if n & 1:
            result = z if result is None else result.matmul(z)
        n >>= 1
        if not n:
            return result
        z = z.matmul(z)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    nd = A.ndim
    d0, d1 = (d % nd for d in dim)
    if ord == "fro":
        return _linalg_vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        S = svdvals(A.movedim((d0, d1), (-2, -1)))
        out = S.sum(-1) if ord == "nuc" else amax(S, -1) if ord == 2 else amin(S, -1)
        if keepdim:
            for d in sorted((d0, d1)):
                out = out.unsqueeze(d)
        return out
    if ord not in (1, -1, float("inf"), float("-inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == float("inf"):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    reduce = amax if ord > 0 else amin
    return reduce(A.abs().sum(d0, keepdim), d1, keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return _linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or dim is None and ord is not None and A.ndim == 2:
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if ord is not None and dim is None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The numerical rank of a matrix (or of each in a batch): its number of singular values above a tolerance.

    The tolerance is ``max(atol, rtol * largest singular value)``; by default ``atol = 0`` and
    ``rtol = eps(dtype) * max(m, n)``. The result is an integer, so it has no gradient.

    Args:
        A (Tensor): the matrices, of shape ``(*, m, n)``.
        atol (float or Tensor, optional): the absolute tolerance.
        rtol (float or Tensor, optional): the tolerance relative to the largest singular value.
        hermitian (bool, optional): `A` is Hermitian (symmetric), so use its eigenvalues. Default: ``False``.

    Returns:
        Tensor: the ranks, of dtype ``int64`` and shape ``(*)``.

    Example::

        >>> torch.linalg.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
        tensor(1)
        >>> torch.linalg.matrix_rank(torch.eye(3))
        tensor(3)
    """
    with no_grad():
        S = eigvalsh(A).abs() if hermitian else svdvals(A)
        data = S._array
        m, n = A.shape[-2:]
        tol = _pinv_tolerance(data, atol, rtol, m, n)
        return tensor((data > tol).sum(-1).astype(np.int64))


# ---- composites: condition number, tensor inverse and solve ------------------------------------
@autocast_as("linalg_cond")
def cond(A, p=None):
    """The condition number of a matrix (or of each in a batch) in the norm `p`.

    It is ``norm(A, p) * norm(inv(A), p)``; for ``p = 2`` (the default) the largest singular value
    divided by the smallest, and for ``p = -2`` the reverse.

    Args:
        A (Tensor): the matrices, of shape ``(*, m, n)`` (square unless `p` is ``None``, 2 or -2).
        p (int, float, inf, -inf, 'fro' or 'nuc', optional): the norm. Default: ``None`` (the 2-norm).

    Returns:
        Tensor: the condition numbers, real, of shape ``(*)``.

    Example::

        >>> A = torch.tensor([[2.0, 0.0], [0.0, 0.5]])
        >>> torch.linalg.cond(A)
        tensor(4.)
        >>> torch.linalg.cond(A, 1)
        tensor(4.)
    """
    _check_matrix("linalg.cond", A._array, square=p not in (None, 2, -2))
    if p is None or p in (2, -2):
        S = svdvals(A)
        big, small = S.narrow(-1, 0, 1).squeeze(-1), S.narrow(-1, S.shape[-1] - 1, 1).squeeze(-1)
        return big / small if p != -2 else small / big
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def _prod(shape):
    return math.prod(int(s) for s in shape)


def tensorinv(A, ind=2):
    """The inverse of a tensor for `tensordot`: `A` read as a matrix of its first `ind` dimensions
    by the rest, inverted.

    ``tensordot(tensorinv(A, ind), A, ind)`` is the identity of shape ``A.shape[ind:] * 2``.

    Args:
        A (Tensor): the tensor; the product of its first `ind` sizes must equal that of the rest.
        ind (int, optional): the number of leading dimensions. Default: ``2``.

    Returns:
        Tensor: the inverse, of shape ``A.shape[ind:] + A.shape[:ind]``.

    Example::

        >>> A = torch.eye(4).reshape(4, 2, 2) * 2
        >>> Ainv = torch.linalg.tensorinv(A, ind=1)
        >>> Ainv.shape
        torch.Size([2, 2, 4])
        >>> torch.tensordot(Ainv, A, 1)
        tensor([[[[1., 0.],
                  [0., 0.]],
        <BLANKLINE>
                 [[0., 1.],
                  [0., 0.]]],
        <BLANKLINE>
        <BLANKLINE>
                [[[0., 0.],
                  [1., 0.]],
        <BLANKLINE>
                 [[0., 0.],
                  [0., 1.]]]])
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    front, back = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if _prod(front) != _prod(back):
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           "prod(self.shape[:ind]), but got " f"{_prod(back)} != {_prod(front)}")
    return inv(A.reshape(_prod(front), _prod(back))).reshape(back + front)


def tensorsolve(A, B, dims=None):
    """The solution `X` of ``tensordot(A, X, X.ndim) == B``.

    Args:
        A (Tensor): the tensor; the product of its first ``B.ndim`` sizes must equal that of the rest.
        B (Tensor): the right-hand side, of shape ``A.shape[:B.ndim]``.
        dims (Tuple[int], optional): dimensions of `A` to move to the end first.

    Returns:
        Tensor: X, of shape ``A.shape[B.ndim:]``.

    Example::

        >>> A = torch.eye(4).reshape(2, 2, 2, 2) * 2
        >>> B = torch.tensor([[2.0, 4.0], [6.0, 8.0]])
        >>> torch.linalg.tensorsolve(A, B)
        tensor([[1., 2.],
                [3., 4.]])
    """
    if dims is not None:
        n = A.ndim
        dims = [d % n for d in dims]
        A = A.movedim(dims, list(range(n - len(dims), n)))
    out_shape = tuple(A.shape[B.ndim:])
    if _prod(A.shape[:B.ndim]) != _prod(out_shape):
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {_prod(out_shape)} != "
                           f"{_prod(A.shape[:B.ndim])}")
    return solve(A.reshape(B.numel(), _prod(out_shape)), B.reshape(-1)).reshape(out_shape)


# ---- api: the deprecated aten norms torch keeps for the JIT (they warn and route to linalg)
@register()
def frobenius_norm(input, dim, keepdim=False):
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed "
                  "in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead")
    return _norm_dim(input, 2, dim, keepdim)   # aten's norm, as torch's (NormBackward1)


@register()
def nuclear_norm(input, dim=None, keepdim=False):
    """nuclear_norm(input, keepdim=False) -> Tensor
    nuclear_norm(input, dim, keepdim=False) -> Tensor

    The nuclear norm (the sum of the singular values) of a matrix, or of the matrices in the two
    dimensions `dim`. Deprecated in torch, which warns: use ``torch.linalg.matrix_norm(A, 'nuc')``.

    Args:
        input (Tensor): the input.
        dim (tuple of two ints, optional): the matrix dimensions (default: a 2-D `input`).
        keepdim (bool): keep the reduced dimensions with size 1. Default: ``False``.

    Returns:
        Tensor: the norms.

    Example::

        >>> torch.nuclear_norm(torch.tensor([[3.0, 0.0], [0.0, -4.0]]))
        tensor(7.)
    """
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed "
                  "in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):   # the (input, keepdim) overload
        dim, keepdim = None, dim
    return matrix_norm(input, "nuc", (0, 1) if dim is None else tuple(dim), keepdim)


# ---- LDL (Bunch-Kaufman) ------------------------------------------------------------------
return_types.update({name: _structseq(name, fields) for name, fields in [
    ("linalg_ldl_factor_ex", ["LD", "pivots", "info"]), ("linalg_ldl_factor", ["LD", "pivots"])]})


def _ldl_routine(name, A, hermitian):
    # LAPACK's sytrf/sytrs for symmetric matrices, hetrf/hetrs for Hermitian complex ones
    kind = "he" if hermitian and A.dtype.kind == "c" else "sy"
    return linalg().get_lapack_funcs(kind + name, (A,))


@op("linalg_ldl_factor_ex", public=False)
def linalg_ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """LAPACK's compact LDL^T (LDL^H) factorization of the lower triangle: LD holds L's
    off-diagonal and the blocks of D, pivots are LAPACK's (1-based, negative for 2x2 blocks)."""
    name = "torch.linalg.ldl_factor_ex"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if A.dtype.kind not in "fc" or A.dtype == np.float16:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_type_name(A)}")
    flat = A.reshape((-1,) + A.shape[-2:])
    LD, piv = np.zeros_like(flat), np.zeros(flat.shape[:-1], dtype=np.int32)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    if flat.shape[-1]:
        sytrf = _ldl_routine("trf", flat, hermitian)
        for k, m in enumerate(flat):
            ld, p, info[k] = sytrf(m, lower=1)
            LD[k], piv[k] = np.tril(ld), p
    return LD.reshape(A.shape), piv.reshape(A.shape[:-1]), info.reshape(A.shape[:-2])


@op("linalg_ldl_solve", public=False)
def linalg_ldl_solve(LD, pivots, B, *, hermitian=False):
    """The solution X of A X = B from A's ldl_factor (batched over the leading dimensions)."""
    name = "torch.linalg.ldl_solve"
    if LD.ndim < 2 or B.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {'LD' if LD.ndim < 2 else 'B'} must have at least 2 dimensions.")
    if LD.dtype != B.dtype:
        raise RuntimeError(f"{name}: Expected LD and B to have the same dtype, but found LD of type "
                           f"{_type_name(LD)} and B of type {_type_name(B)} instead")
    batch = np.broadcast_shapes(LD.shape[:-2], B.shape[:-2])
    LDs = np.broadcast_to(LD, batch + LD.shape[-2:]).reshape((-1,) + LD.shape[-2:])
    ps = np.broadcast_to(pivots, batch + pivots.shape[-1:]).reshape((-1,) + pivots.shape[-1:])
    Bs = np.broadcast_to(B, batch + B.shape[-2:]).reshape((-1,) + B.shape[-2:])
    X = np.empty(Bs.shape, dtype=B.dtype)
    if Bs.size:
        sytrs = _ldl_routine("trs", LDs, hermitian)
        for k in range(Bs.shape[0]):
            X[k] = sytrs(LDs[k], ps[k], Bs[k], lower=1)[0]
    return X.reshape(batch + B.shape[-2:])


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    return _rt("linalg_ldl_factor_ex", linalg_ldl_factor_ex(A, hermitian=hermitian, check_errors=check_errors))


def ldl_factor(A, *, hermitian=False):
    LD, pivots, _ = linalg_ldl_factor_ex(A, hermitian=hermitian)
    return _rt("linalg_ldl_factor", (LD, pivots))


def ldl_solve(LD, pivots, B, *, hermitian=False):
    return linalg_ldl_solve(LD, pivots, B, hermitian=hermitian)


# ---- randomized low-rank factorizations (Halko, Martinsson & Tropp 2009), composed of
# differentiable ops: gradients flow through the range finder's QRs and the small SVD
def _range_basis(A, q, niter, M):
    """An orthonormal basis Q (..., m, q) of the range of A - M, from a random Gaussian probe
    refined by `niter` subspace (power) iterations, each re-orthonormalized by QR."""
    dtype = A.dtype if A.is_floating_point() or A.is_complex() else _dtype.get_default_dtype()
    probe = randn(A.shape[-1], q, dtype=dtype)

    def apply(X, left):   # (A - M) @ X, or (A - M)^H @ X
        Ax = (A if left else A.mH) @ X
        return Ax if M is None else Ax - (M if left else M.mH) @ X
    Q = linalg_qr(apply(probe, True))[0]
    for _ in range(niter):
        Q = linalg_qr(apply(Q, False))[0]
        Q = linalg_qr(apply(Q, True))[0]
    return Q


@register()
def svd_lowrank(A, q=6, niter=2, M=None):
    r"""An approximate SVD of rank `q`, ``A - M ~ U diag(S) V^H``, from a random projection (exact, up to
    rounding, when the rank of ``A - M`` is at most `q`). Its factors depend on the random numbers
    drawn, except where the decomposition is unique.

    Args:
        A (Tensor): the matrices, (\*, m, n).
        q (int): the rank of the approximation. Default: ``6``.
        niter (int): the number of subspace iterations. Default: ``2``.
        M (Tensor, optional): subtracted from `A` (broadcast) first.

    Returns:
        (Tensor, Tensor, Tensor): ``U`` (\*, m, q), ``S`` (\*, q) and ``V`` (\*, n, q).

    Example::

        >>> A = torch.tensor([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=torch.float64)
        >>> U, S, V = torch.svd_lowrank(A, q=2)
        >>> S
        tensor([2.0000, 1.0000], dtype=torch.float64)
    """
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:   # factor A^H, whose range is the smaller space
        A, M = A.mH, (None if M is None else M.mH)
    Q = _range_basis(A, q, 2 if niter is None else niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = _linalg_svd(B, False, True)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if wide else (U, S, V)


@register()
def pca_lowrank(A, q=None, center=True, niter=2):
    r"""A principal component analysis of the rows of `A` by :func:`ndgrad.svd_lowrank`: the SVD of `A`
    minus its column means (with `center`), of rank `q`.

    Args:
        A (Tensor): the data, (\*, m, n): m observations of n features.
        q (int, optional): the rank (default: ``min(6, m, n)``).
        center (bool): subtract the column means first. Default: ``True``.
        niter (int): the number of subspace iterations. Default: ``2``.

    Returns:
        (Tensor, Tensor, Tensor): ``U``, ``S``, ``V``; the columns of ``V`` are the principal directions.

    Example::

        >>> A = torch.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], dtype=torch.float64)
        >>> U, S, V = torch.pca_lowrank(A, q=1)
        >>> S
        tensor([2.], dtype=torch.float64)
    """
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return svd_lowrank(A, q, niter=niter)
