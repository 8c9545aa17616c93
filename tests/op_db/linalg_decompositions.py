"""Registry entries for decompositions and solvers (see op_db/__init__.py for the format).

Inputs are random, so the calls shape them first where the math needs it: `_wc` adds n*I
(well-conditioned, nonsingular), `_spd` builds x x^H + I (Hermitian positive-definite), `_sym`
x + x^H (Hermitian). Those are differentiable, so gradcheck runs through them.
"""
from . import OpInfo, S

C = "complex128"


def _eye(T, x):
    return T.eye(x.shape[-1], dtype=x.dtype)


def _wc(T, x):
    return x + _eye(T, x) * x.shape[-1]


def _spd(T, x):
    return x @ x.mH + _eye(T, x)


def _sym(T, x):
    return x + x.mH


def _tri(T, x, upper=False):
    """x's triangle, well-conditioned (a masked product: tril/triu are another family's)."""
    import numpy as np
    n = x.shape[-1]
    mask = np.triu(np.ones((n, n))) if upper else np.tril(np.ones((n, n)))
    return x * T.tensor(mask) + _eye(T, x) * n


def _fix_signs(U, V):
    """Singular/eigen-vectors are defined up to sign: flip each pair so U's first row is >= 0
    (LAPACK builds may differ in sign, so parity compares these)."""
    s = U[..., :1, :].sign()
    return U * s, V * s


def _svd_fixed(T, a, full_matrices=True):
    U, S, Vh = T.linalg.svd(a, full_matrices=full_matrices)
    k = S.shape[-1]
    s = U[..., :1, :k].sign()
    return S, U[..., :, :k] * s, Vh[..., :k, :] * s.mT


def _eigh_fixed(T, a, UPLO="L"):
    w, V = T.linalg.eigh(a, UPLO=UPLO)
    return w, _fix_signs(V, V)[0]


def _chol(T, x, upper=False):
    return T.linalg.cholesky(_spd(T, x), upper=upper)


def _solve_ops():
    return [
        OpInfo("linalg_solve", lambda T, a, b: T.linalg.solve(_wc(T, a), b), [S(3, 3), S(3, 2)],
               grad_fn="LinalgSolveExBackward0"),
        OpInfo("linalg_solve_vector", lambda T, a, b: T.linalg.solve(_wc(T, a), b), [S(3, 3), S(3)],
               grad_fn="LinalgSolveExBackward0"),
        OpInfo("linalg_solve_batched_vector", lambda T, a, b: T.linalg.solve(_wc(T, a), b), [S(2, 3, 3), S(2, 3)],
               grad_fn="LinalgSolveExBackward0"),
        OpInfo("linalg_solve_broadcast", lambda T, a, b: T.linalg.solve(_wc(T, a), b), [S(2, 1, 2, 2), S(3, 2, 1)],
               grad_fn="LinalgSolveExBackward0"),
        OpInfo("linalg_solve_right", lambda T, a, b: T.linalg.solve(_wc(T, a), b, left=False), [S(3, 3), S(2, 3)],
               grad_fn="LinalgSolveExBackward0"),
        OpInfo("linalg_solve_const_a", lambda T, a, b: T.linalg.solve(_wc(T, a), b),
               [S(3, 3, requires_grad=False), S(3, 2)], grad_fn="LinalgSolveExBackward0"),
        OpInfo("linalg_solve_ex", lambda T, a, b: T.linalg.solve_ex(_wc(T, a), b), [S(2, 2), S(2, 1)],
               grad_fn="LinalgSolveExBackward0"),
        OpInfo("linalg_solve_complex", lambda T, a, b: T.linalg.solve(_wc(T, a), b), [S(2, 2, dtype=C), S(2, 1, dtype=C)],
               grad_fn="LinalgSolveExBackward0", check_grad=False),
        OpInfo("linalg_solve_triangular_upper", lambda T, a, b: T.linalg.solve_triangular(_tri(T, a, True), b, upper=True),
               [S(3, 3), S(3, 2)], grad_fn="LinalgSolveTriangularBackward0"),
        OpInfo("linalg_solve_triangular_lower_right",
               lambda T, a, b: T.linalg.solve_triangular(_tri(T, a), b, upper=False, left=False),
               [S(3, 3), S(2, 3)], grad_fn="LinalgSolveTriangularBackward0"),
        OpInfo("linalg_solve_triangular_unit", lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
               [S(2, 3, 3), S(3, 1)], grad_fn="LinalgSolveTriangularBackward0"),
        OpInfo("triangular_solve", lambda T, b, a: T.triangular_solve(b, _tri(T, a, True)), [S(3, 2), S(3, 3)],
               grad_fn="TriangularSolveBackward0"),
        OpInfo("triangular_solve_lower_transpose",
               lambda T, b, a: T.triangular_solve(b, _tri(T, a), upper=False, transpose=True),
               [S(3, 2), S(3, 3)], grad_fn="TriangularSolveBackward0"),
        OpInfo("triangular_solve_unit_method", lambda T, b, a: b.triangular_solve(a, unitriangular=True),
               [S(2, 3, 1), S(3, 3)], grad_fn="TriangularSolveBackward0"),
    ]


def _inv_det_ops():
    return [
        OpInfo("linalg_inv", lambda T, a: T.linalg.inv(_wc(T, a)), [S(3, 3)], grad_fn="LinalgInvExBackward0"),
        OpInfo("linalg_inv_batched", lambda T, a: T.linalg.inv(_wc(T, a)), [S(2, 2, 2)], grad_fn="LinalgInvExBackward0"),
        OpInfo("linalg_inv_ex", lambda T, a: T.linalg.inv_ex(_wc(T, a)), [S(2, 2)], grad_fn="LinalgInvExBackward0"),
        OpInfo("inverse_method", lambda T, a: _wc(T, a).inverse(), [S(2, 2)], grad_fn="LinalgInvExBackward0"),
        OpInfo("linalg_inv_complex", lambda T, a: T.linalg.inv(_wc(T, a)), [S(2, 2, dtype=C)],
               grad_fn="LinalgInvExBackward0", check_grad=False),
        OpInfo("linalg_det", lambda T, a: T.linalg.det(a), [S(3, 3)], grad_fn="LinalgDetBackward0"),
        OpInfo("det_batched", lambda T, a: T.det(a), [S(2, 2, 2)], grad_fn="LinalgDetBackward0"),
        OpInfo("det_method", lambda T, a: a.det(), [S(1, 1)], grad_fn="LinalgDetBackward0"),
        OpInfo("linalg_slogdet", lambda T, a: T.linalg.slogdet(a), [S(3, 3)], grad_fn="LinalgSlogdetBackward0"),
        OpInfo("slogdet_batched", lambda T, a: T.slogdet(a)[1], [S(2, 2, 2)], grad_fn="LinalgSlogdetBackward0"),
        OpInfo("slogdet_complex", lambda T, a: T.linalg.slogdet(a), [S(2, 2, dtype=C)],
               grad_fn="LinalgSlogdetBackward0", check_grad=False),
        OpInfo("logdet", lambda T, a: T.logdet(_spd(T, a)), [S(3, 3)], grad_fn="WhereBackward0"),
    ]


def _cholesky_ops():
    return [
        OpInfo("linalg_cholesky", lambda T, a: _chol(T, a), [S(3, 3)], grad_fn="LinalgCholeskyExBackward0"),
        OpInfo("linalg_cholesky_upper_batched", lambda T, a: _chol(T, a, upper=True), [S(2, 2, 2)],
               grad_fn="LinalgCholeskyExBackward0"),
        OpInfo("linalg_cholesky_ex", lambda T, a: T.linalg.cholesky_ex(_spd(T, a)), [S(2, 2)],
               grad_fn="LinalgCholeskyExBackward0"),
        OpInfo("cholesky", lambda T, a: T.cholesky(_spd(T, a)), [S(3, 3)], grad_fn="CholeskyBackward0"),
        OpInfo("cholesky_upper_method", lambda T, a: _spd(T, a).cholesky(upper=True), [S(2, 2)],
               grad_fn="CholeskyBackward0"),
        OpInfo("linalg_cholesky_complex", lambda T, a: _chol(T, a), [S(2, 2, dtype=C)],
               grad_fn="LinalgCholeskyExBackward0", check_grad=False),
        OpInfo("cholesky_solve", lambda T, b, a: T.cholesky_solve(b, _chol(T, a)), [S(3, 2), S(3, 3)],
               grad_fn="CholeskySolveBackward0"),
        OpInfo("cholesky_solve_upper_batched", lambda T, b, a: b.cholesky_solve(_chol(T, a, True), upper=True),
               [S(2, 2, 1), S(2, 2)], grad_fn="CholeskySolveBackward0"),
        OpInfo("cholesky_inverse", lambda T, a: T.cholesky_inverse(_chol(T, a)), [S(3, 3)],
               grad_fn="CholeskyInverseBackward0"),
        OpInfo("cholesky_inverse_upper", lambda T, a: _chol(T, a, True).cholesky_inverse(upper=True), [S(2, 2)],
               grad_fn="CholeskyInverseBackward0"),
        # zero-size batches (SciPy's cho_solve refuses them)
        OpInfo("cholesky_solve_empty_batch", lambda T, b, a: T.cholesky_solve(b, a), [S(0, 3, 2), S(0, 3, 3)],
               grad_fn="CholeskySolveBackward0"),
        OpInfo("cholesky_inverse_empty_batch", lambda T, a: T.cholesky_inverse(a), [S(0, 2, 2)],
               grad_fn="CholeskyInverseBackward0"),
    ]


def _lowrank_invariants(usv):
    U, S, V = usv
    return U @ V.mH, S


def _qr_svd_eig_ops():
    return [
        OpInfo("linalg_qr_tall", lambda T, a: T.linalg.qr(a), [S(3, 2)], grad_fn="LinalgQrBackward0"),
        OpInfo("linalg_qr_square_batched", lambda T, a: T.linalg.qr(a), [S(2, 3, 3)], grad_fn="LinalgQrBackward0"),
        OpInfo("linalg_qr_wide", lambda T, a: T.linalg.qr(a), [S(2, 4)], grad_fn="LinalgQrBackward0"),
        OpInfo("linalg_qr_complete_square", lambda T, a: T.linalg.qr(a, mode="complete"), [S(3, 3)],
               grad_fn="LinalgQrBackward0"),
        OpInfo("qr_method", lambda T, a: a.qr(), [S(3, 2)], grad_fn="LinalgQrBackward0"),
        OpInfo("linalg_qr_complex", lambda T, a: T.linalg.qr(a), [S(3, 2, dtype=C)], grad_fn="LinalgQrBackward0",
               check_grad=False),
        OpInfo("linalg_svd_tall", lambda T, a: _svd_fixed(T, a, full_matrices=False), [S(3, 2)],
               grad_fn="LinalgSvdBackward0"),
        OpInfo("linalg_svd_wide_batched", lambda T, a: _svd_fixed(T, a, full_matrices=False), [S(2, 2, 3)],
               grad_fn="LinalgSvdBackward0"),
        OpInfo("linalg_svd_full_square", lambda T, a: _svd_fixed(T, a), [S(3, 3)], grad_fn="LinalgSvdBackward0"),
        OpInfo("linalg_svdvals", lambda T, a: T.linalg.svdvals(a), [S(3, 2)], grad_fn="LinalgSvdBackward0"),
        OpInfo("svd_old", lambda T, a: (lambda u, s, v: (s,) + _fix_signs(u, v))(*T.svd(a)), [S(2, 3)],
               grad_fn="LinalgSvdBackward0"),
        OpInfo("linalg_svd_complex_invariant", lambda T, a: (lambda u, s, vh: (s, (u @ vh).real))(*T.linalg.svd(
            a, full_matrices=False)), [S(3, 2, dtype=C)], grad_fn="LinalgSvdBackward0", check_grad=False),
        # randomized low-rank SVD of a rank-2 product with q = 2: determined (U V^H and S) whatever the
        # random probe, so comparable with torch; wide inputs are factored through their transpose
        OpInfo("svd_lowrank_exact_rank", lambda T, a, b: _lowrank_invariants(T.svd_lowrank(a @ b.mT, q=2)),
               [S(5, 2), S(4, 2)], grad_fn="MmBackward0"),
        OpInfo("svd_lowrank_wide_no_power_iteration",
               lambda T, a, b: _lowrank_invariants(T.svd_lowrank(a @ b.mT, q=2, niter=0)), [S(3, 2), S(5, 2)],
               grad_fn="MmBackward0"),
        OpInfo("pca_lowrank_centered_batched", lambda T, a, b: _lowrank_invariants(T.pca_lowrank(a @ b.mT, q=2)),
               [S(2, 3, 2), S(2, 6, 2)], grad_fn="UnsafeViewBackward0"),
        OpInfo("linalg_eigh", lambda T, a: _eigh_fixed(T, _sym(T, a)), [S(3, 3)], grad_fn="LinalgEighBackward0"),
        OpInfo("linalg_eigh_upper_batched", lambda T, a: _eigh_fixed(T, _sym(T, a), UPLO="U"), [S(2, 2, 2)],
               grad_fn="LinalgEighBackward0"),
        OpInfo("linalg_eigvalsh", lambda T, a: T.linalg.eigvalsh(_sym(T, a)), [S(3, 3)], grad_fn="LinalgEighBackward0"),
        OpInfo("linalg_eigh_complex_values", lambda T, a: T.linalg.eigh(_sym(T, a))[0], [S(2, 2, dtype=C)],
               grad_fn="LinalgEighBackward0", check_grad=False),
        OpInfo("linalg_eig", lambda T, a: (lambda w, v: (w, v.abs()))(*T.linalg.eig(a)), [S(3, 3)],
               grad_fn="LinalgEigBackward0", check_grad=False),
        OpInfo("linalg_eig_real_loss", lambda T, a: (lambda w, v: (T.view_as_real(w), v.abs()))(*T.linalg.eig(a)),
               [S(3, 3)]),
        OpInfo("linalg_eigvals", lambda T, a: T.linalg.eigvals(a), [S(2, 2)], grad_fn="LinalgEigBackward0",
               check_grad=False),
        OpInfo("linalg_eigvals_real_loss", lambda T, a: T.view_as_real(T.linalg.eigvals(a)), [S(2, 3, 3)]),
    ]


def _pinv_lstsq_ops():
    return [
        OpInfo("linalg_pinv_wide", lambda T, a: T.linalg.pinv(a), [S(2, 3)], grad_fn="LinalgPinvBackward0"),
        OpInfo("linalg_pinv_tall_batched", lambda T, a: T.linalg.pinv(a), [S(2, 3, 2)], grad_fn="LinalgPinvBackward0"),
        OpInfo("linalg_pinv_hermitian", lambda T, a: T.linalg.pinv(_spd(T, a), hermitian=True), [S(3, 3)],
               grad_fn="LinalgPinvBackward0"),
        OpInfo("pinverse", lambda T, a: a.pinverse(), [S(3, 2)], grad_fn="LinalgPinvBackward0"),
        OpInfo("linalg_lstsq_tall", lambda T, a, b: T.linalg.lstsq(a, b), [S(4, 2), S(4, 1)],
               grad_fn="LinalgLstsqBackward0"),
        OpInfo("linalg_lstsq_square_vector", lambda T, a, b: T.linalg.lstsq(_wc(T, a), b).solution, [S(3, 3), S(3)],
               grad_fn="LinalgLstsqBackward0"),
        OpInfo("linalg_lstsq_gelsd_residuals", lambda T, a, b: T.linalg.lstsq(a, b, driver="gelsd")[:2],
               [S(2, 4, 2), S(2, 4, 2)], grad_fn="LinalgLstsqBackward0"),
        OpInfo("linalg_lstsq_gelss_batched", lambda T, a, b: T.linalg.lstsq(a, b, driver="gelss")[:2],
               [S(2, 4, 2), S(2, 4, 3)], grad_fn="LinalgLstsqBackward0"),
    ]


def _lu_ops():
    def factor(T, a):
        LU, piv = T.linalg.lu_factor(_wc(T, a).detach())
        return LU.requires_grad_(), piv
    return [
        OpInfo("linalg_lu_factor", lambda T, a: T.linalg.lu_factor(_wc(T, a)), [S(3, 3)],
               grad_fn="LinalgLuFactorExBackward0"),
        OpInfo("linalg_lu_factor_ex_batched", lambda T, a: T.linalg.lu_factor_ex(_wc(T, a)), [S(2, 2, 2)],
               grad_fn="LinalgLuFactorExBackward0"),
        OpInfo("lu_old", lambda T, a: T.lu(_wc(T, a)), [S(3, 3)], grad_fn="LinalgLuFactorExBackward0"),
        OpInfo("linalg_lu_factor_tall", lambda T, a: T.linalg.lu_factor(a + 2 * T.eye(4, 2, dtype=a.dtype)), [S(4, 2)],
               grad_fn="LinalgLuFactorExBackward0"),
        OpInfo("linalg_lu_square", lambda T, a: T.linalg.lu(_wc(T, a))[1:], [S(3, 3)], grad_fn="LinalgLuBackward0"),
        OpInfo("linalg_lu_tall", lambda T, a: T.linalg.lu(a + 2 * T.eye(4, 2, dtype=a.dtype))[1:], [S(4, 2)],
               grad_fn="LinalgLuBackward0"),
        OpInfo("linalg_lu_wide_batched", lambda T, a: T.linalg.lu(a + 2 * T.eye(2, 3, dtype=a.dtype))[1:],
               [S(2, 2, 3)], grad_fn="LinalgLuBackward0"),
        OpInfo("linalg_lu_solve", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(_wc(T, a)), b),
               [S(3, 3), S(3, 2)], grad_fn="LinalgLuSolveBackward0"),
        OpInfo("linalg_lu_solve_adjoint", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(_wc(T, a)), b,
                                                                            adjoint=True),
               [S(3, 3), S(3, 2)], grad_fn="LinalgLuSolveBackward0"),
        OpInfo("linalg_lu_solve_right", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(_wc(T, a)), b,
                                                                          left=False),
               [S(2, 2), S(3, 2)], grad_fn="LinalgLuSolveBackward0"),
        OpInfo("linalg_lu_solve_right_adjoint", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(_wc(T, a)), b,
                                                                                  left=False, adjoint=True),
               [S(2, 2), S(3, 2)], grad_fn="LinalgLuSolveBackward0"),
        OpInfo("linalg_lu_solve_0x0", lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b),
               [S(0, 0), S(0, 4)], grad_fn="LinalgLuSolveBackward0"),
        OpInfo("linalg_solve_0x0", lambda T, a, b: T.linalg.solve(a, b), [S(2, 0, 0), S(2, 0, 3)],
               grad_fn="LinalgSolveExBackward0"),
        OpInfo("lu_solve_old", lambda T, a, b: b.lu_solve(*T.linalg.lu_factor(_wc(T, a))),
               [S(2, 2), S(2, 1)], grad_fn="LinalgLuSolveBackward0"),
        OpInfo("lu_unpack_square", lambda T, a: T.lu_unpack(*T.linalg.lu_factor(_wc(T, a)))[1:], [S(3, 3)],
               grad_fn="LuUnpackBackward0"),
        OpInfo("lu_unpack_tall", lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a))[1:], [S(4, 2)],
               grad_fn="LuUnpackBackward0"),
        OpInfo("lu_unpack_wide", lambda T, a: T.lu_unpack(*T.linalg.lu_factor(a))[1:], [S(2, 3)],
               grad_fn="LuUnpackBackward0"),
    ]


def _householder_ops():
    return [
        OpInfo("linalg_householder_product", lambda T, a, tau: T.linalg.householder_product(a, tau),
               [S(3, 2), S(2)], grad_fn="LinalgHouseholderProductBackward0"),
        OpInfo("orgqr_batched_short_tau", lambda T, a, tau: T.orgqr(a, tau), [S(2, 3, 3), S(2, 2)],
               grad_fn="LinalgHouseholderProductBackward0"),
        OpInfo("ormqr", lambda T, a, tau, c: T.ormqr(a, tau, c), [S(3, 2), S(2), S(3, 2)], grad_fn="OrmqrBackward0"),
        OpInfo("ormqr_transpose", lambda T, a, tau, c: T.ormqr(a, tau, c, transpose=True), [S(3, 2), S(2), S(3, 1)],
               grad_fn="OrmqrBackward0"),
        # a wide input: only its first rows-many columns hold reflectors (the others get a zero gradient)
        OpInfo("ormqr_wide", lambda T, a, tau, c: T.ormqr(a, tau, c, transpose=True), [S(2, 5), S(2), S(2, 5)],
               grad_fn="OrmqrBackward0"),
        OpInfo("ormqr_right", lambda T, a, tau, c: a.ormqr(tau, c, left=False), [S(3, 3), S(3), S(2, 3)],
               grad_fn="OrmqrBackward0"),
        OpInfo("ormqr_right_transpose", lambda T, a, tau, c: T.ormqr(a, tau, c, left=False, transpose=True),
               [S(3, 2), S(2), S(1, 3)], grad_fn="OrmqrBackward0"),
        # torch defines no derivative for geqrf: the node exists, its backward raises
        OpInfo("geqrf", lambda T, a: T.geqrf(a), [S(3, 2)], grad_fn="GeqrfBackward0", check_grad=False,
               torch_parity=False),
        OpInfo("geqrf_values", lambda T, a: T.geqrf(a), [S(3, 2, requires_grad=False)], check_grad=False),
        OpInfo("geqrf_wide_method_values", lambda T, a: a.geqrf(), [S(2, 2, 3, requires_grad=False)],
               check_grad=False),
    ]


def _misc_ops():
    return [
        OpInfo("linalg_matrix_exp", lambda T, a: T.linalg.matrix_exp(a), [S(3, 3)], grad_fn="LinalgMatrixExpBackward0"),
        OpInfo("matrix_exp_batched_method", lambda T, a: a.matrix_exp(), [S(2, 2, 2)],
               grad_fn="LinalgMatrixExpBackward0"),
        OpInfo("linalg_cross", lambda T, a, b: T.linalg.cross(a, b), [S(2, 3), S(2, 3)], grad_fn="LinalgCrossBackward0"),
        OpInfo("linalg_cross_broadcast_dim", lambda T, a, b: T.linalg.cross(a, b, dim=0), [S(3, 2), S(3, 1)],
               grad_fn="LinalgCrossBackward0"),
        OpInfo("cross_dim", lambda T, a, b: T.cross(a, b, dim=1), [S(2, 3), S(2, 3)], grad_fn="LinalgCrossBackward0"),
        OpInfo("cross_method", lambda T, a, b: a.cross(b, dim=-1), [S(3), S(3)], grad_fn="LinalgCrossBackward0"),
        OpInfo("trace", lambda T, a: T.trace(a), [S(2, 3)], grad_fn="TraceBackward0"),
        OpInfo("trace_method", lambda T, a: a.trace(), [S(3, 3)], grad_fn="TraceBackward0"),
        OpInfo("linalg_vecdot", lambda T, a, b: T.linalg.vecdot(a, b), [S(2, 3), S(3)], grad_fn="SumBackward1"),
        OpInfo("linalg_vecdot_1d", lambda T, a, b: T.linalg.vecdot(a, b), [S(3), S(3)], grad_fn="VdotBackward0"),
        OpInfo("linalg_vecdot_dim", lambda T, a, b: T.linalg.vecdot(a, b, dim=0), [S(3, 2), S(3, 2)],
               grad_fn="SumBackward1"),
        OpInfo("matrix_power_0", lambda T, a: T.linalg.matrix_power(a, 0), [S(2, 2)],
               grad_fn="torch::autograd::CopyBackwards"),
        OpInfo("matrix_power_0_empty_batch", lambda T, a: T.linalg.matrix_power(a, 0), [S(0, 2, 2)],
               grad_fn="torch::autograd::CopyBackwards"),
        OpInfo("matrix_power_1", lambda T, a: T.matrix_power(a, 1), [S(2, 2)], grad_fn="CloneBackward0"),
        OpInfo("matrix_power_3", lambda T, a: a.matrix_power(3), [S(2, 2)], grad_fn="MmBackward0"),
        OpInfo("matrix_power_2_batched", lambda T, a: T.linalg.matrix_power(a, 2), [S(2, 2, 2)],
               grad_fn="UnsafeViewBackward0"),
        OpInfo("matrix_power_neg1", lambda T, a: T.linalg.matrix_power(_wc(T, a), -1), [S(2, 2)],
               grad_fn="LinalgInvExBackward0"),
        OpInfo("matrix_power_neg2", lambda T, a: T.linalg.matrix_power(_wc(T, a), -2), [S(2, 2)],
               grad_fn="MmBackward0"),
        OpInfo("kron", lambda T, a, b: T.kron(a, b), [S(2, 2), S(2, 3)], grad_fn="UnsafeViewBackward0"),
        OpInfo("kron_mixed_ndim", lambda T, a, b: a.kron(b), [S(3), S(2, 2)], grad_fn="UnsafeViewBackward0"),
        OpInfo("tensordot", lambda T, a, b: T.tensordot(a, b, dims=1), [S(2, 3), S(3, 2)], grad_fn="ViewBackward0"),
        # a size-1 contracted dim broadcasts against the other's (summed first)
        OpInfo("tensordot_size1_broadcast", lambda T, a, b: T.tensordot(a, b, dims=([0, 1], [2, 0])),
               [S(1, 1, 3), S(2, 4, 2)], grad_fn="ViewBackward0"),
        OpInfo("tensordot_lists", lambda T, a, b: T.tensordot(a, b, dims=([0, 2], [1, 0])), [S(2, 3, 2), S(2, 2, 3)]),
        OpInfo("linalg_norm_fro", lambda T, a: T.linalg.norm(a), [S(2, 3)], grad_fn="LinalgVectorNormBackward0"),
        OpInfo("linalg_norm_vector_ord", lambda T, a: T.linalg.norm(a, 3), [S(4)], grad_fn="LinalgVectorNormBackward0"),
        OpInfo("linalg_norm_nuc", lambda T, a: T.linalg.norm(a, "nuc"), [S(3, 2)], grad_fn="SumBackward1"),
        OpInfo("linalg_norm_2", lambda T, a: T.linalg.norm(a, 2), [S(3, 2)], grad_fn="AmaxBackward0"),
        OpInfo("linalg_norm_1_keepdim", lambda T, a: T.linalg.norm(a, 1, dim=(0, 1), keepdim=True), [S(2, 3)],
               grad_fn="AmaxBackward0"),
        OpInfo("linalg_matrix_norm_inf", lambda T, a: T.linalg.matrix_norm(a, float("inf")), [S(2, 2, 3)],
               grad_fn="AmaxBackward0"),
        OpInfo("linalg_matrix_norm_neg1_dims", lambda T, a: T.linalg.matrix_norm(a, -1, dim=(2, 0)), [S(2, 2, 3)],
               grad_fn="AminBackward0"),
        OpInfo("linalg_matrix_norm_fro", lambda T, a: T.linalg.matrix_norm(a), [S(2, 2, 3)],
               grad_fn="LinalgVectorNormBackward0"),
        OpInfo("linalg_vector_norm", lambda T, a: T.linalg.vector_norm(a, 1, dim=-1), [S(2, 3)],
               grad_fn="LinalgVectorNormBackward0"),
        OpInfo("linalg_multi_dot", lambda T, a, b, c: T.linalg.multi_dot([a, b, c]), [S(2, 3), S(3, 2), S(2)],
               grad_fn="ViewBackward0"),
        OpInfo("linalg_multi_dot_4", lambda T, a, b: T.linalg.multi_dot([b, a, b, a]), [S(2, 3), S(3, 2)],
               grad_fn="ViewBackward0"),
        OpInfo("linalg_matrix_rank", lambda T, a: T.linalg.matrix_rank(a), [S(3, 2, requires_grad=False)],
               check_grad=False),
    ]


OPS = _solve_ops() + _inv_det_ops() + _cholesky_ops() + _qr_svd_eig_ops() + _pinv_lstsq_ops() + _lu_ops() \
    + _householder_ops() + _misc_ops()

# composites: condition numbers, tensor inverse/solve, the nuclear norm. Where torch's graph ends in
# other nodes (a squeeze of the singular values, nan_to_num, _reshape_alias, a permute) parity is off:
# the values and gradients of these match torch's in tests/opinfo_runner.py
OPS += [
    OpInfo("linalg_cond", lambda T, a: T.linalg.cond(_wc(T, a)), [S(3, 3)], grad_fn="DivBackward0",
           torch_parity=False),
    OpInfo("linalg_cond_fro", lambda T, a: T.linalg.cond(_wc(T, a), "fro"), [S(2, 3, 3)], grad_fn="MulBackward0",
           torch_parity=False),
    OpInfo("linalg_tensorinv", lambda T, a: T.linalg.tensorinv(_wc(T, a.reshape(4, 4)).reshape(2, 2, 4)),
           [S(16)], grad_fn="ViewBackward0", torch_parity=False),
    OpInfo("linalg_tensorsolve", lambda T, a, b: T.linalg.tensorsolve(_wc(T, a.reshape(6, 6)).reshape(2, 3, 6), b),
           [S(36), S(2, 3)], grad_fn="ViewBackward0"),
    OpInfo("norm_nuc", lambda T, a: T.norm(a, "nuc"), [S(3, 4)], grad_fn="SumBackward1"),
    OpInfo("norm_nuc_dims", lambda T, a: a.norm("nuc", (0, 2), keepdim=True), [S(3, 2, 4)],
           grad_fn="UnsqueezeBackward0", torch_parity=False),
]
