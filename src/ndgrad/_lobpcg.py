"""torch.lobpcg: a few extreme eigenpairs of a symmetric (Hermitian) positive-definite generalized
eigenproblem A x = lambda B x, by the Locally Optimal Block Preconditioned Conjugate Gradient method.

The iteration (Knyazev, "Toward the optimal preconditioned eigensolver: LOBPCG", SIAM J. Sci.
Comput. 23, 2001) keeps a block X of n approximate eigenvectors and, at each step, takes the best
n-dimensional subspace (Rayleigh-Ritz) of span[X, W, P]: W the preconditioned residuals, P the
previous step's direction. Two ways to make that basis B-orthonormal, as torch offers them:
- "basic": the Gram matrix of [X, W, P] is factored (its eigendecomposition, dropping directions
  it cannot tell apart), the generalized Rayleigh-Ritz problem solved in that basis;
- "ortho" (default): W and P are B-orthogonalized against X and among themselves by repeated
  projection and SVQB (Duersch, Shao, Yang, Gu, "A robust and efficient implementation of LOBPCG",
  SIAM J. Sci. Comput. 40, 2018), which the ortho_* parameters tune; Rayleigh-Ritz is then a
  standard eigenproblem.
The iteration runs on the tensors' arrays (NumPy); the result is differentiable in A (B = None)
through a custom Function whose backward is the derivative of a partial symmetric eigendecomposition,
written with differentiable operations, so that it has a backward of its own.
"""
import math

import numpy as np

from . import _dtype
from ._tensor import Tensor, _c_type
from .autograd.function import Function
from .ops.creation import eye
from .ops.random import randn
from .ops.linalg_decompositions import solve

__all__ = ["lobpcg", "LOBPCG"]



class LOBPCG:
    """The state of one LOBPCG run, which `lobpcg(..., tracker=f)` hands to ``f`` after each step.

    Attributes: ``iparams``, ``fparams``, ``bparams`` (the integer, float and bool parameters: m, n,
    k, niter, ortho_i_max, ortho_j_max; tol, ortho_tol, ortho_tol_drop, ortho_tol_replace; largest,
    ortho_use_drop), ``ivars``, ``fvars``, ``bvars``, ``tvars`` (iteration variables: istep,
    iterations_left, converged_count, converged_end, ortho_i, ortho_j; X_norm, A_norm, B_norm and
    the ortho checks' errors; rerr, the relative residual of each pair), the inputs ``A``, ``B``,
    ``iK`` and the iterates ``E`` (Ritz values), ``X`` (Ritz vectors), ``S`` (the basis of the
    last Rayleigh-Ritz step), ``R`` (the residuals), as Tensors.
    """

    def __init__(self, A, B, iK, iparams, fparams, bparams):
        self.A, self.B, self.iK = A, B, iK
        self.iparams, self.fparams, self.bparams = iparams, fparams, bparams
        self.ivars = {"istep": 0, "iterations_left": iparams["niter"], "converged_count": 0, "converged_end": 0,
                      "ortho_i": 0, "ortho_j": 0}
        self.fvars = {"_": 0.0}
        self.bvars = {"_": False}
        self.tvars = {}
        self.E = self.X = self.S = self.R = None

    def __repr__(self):
        lines = [f"{type(self).__name__}:"]
        for name in ("iparams", "fparams", "bparams", "ivars", "fvars", "bvars"):
            lines.append(f"  {name}={getattr(self, name)}")
        for name in ("A", "B", "iK", "E", "X", "S", "R"):
            t = getattr(self, name)
            if t is not None:
                lines.append(f"  {name}.shape={tuple(t.shape)}")
        return "\n".join(lines)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """The k largest (or smallest) eigenpairs of the symmetric positive-definite generalized
    eigenproblem ``A x = lambda B x``, by LOBPCG (see the module's docstring for the two methods).

    Args:
        A (Tensor): the matrix, ``(*, m, m)`` (dense or sparse), symmetric (Hermitian).
        k (int, optional): how many eigenpairs (default: X's columns, or 1).
        B (Tensor, optional): ``(*, m, m)``, symmetric positive definite (default: the identity).
        X (Tensor, optional): ``(*, m, n)``, the initial eigenvector approximation (default: random).
        n (int, optional): the size of the random initial block when X is not given (default: k);
            the method needs ``m >= 3 n``.
        iK (Tensor, optional): ``(*, m, m)``, a preconditioner (applied to the residuals).
        niter (int, optional): the most iterations (default 1000; -1: until convergence).
        tol (float, optional): the relative residual below which a pair has converged
            (default: the square root of the dtype's machine epsilon).
        largest (bool, optional): the largest eigenvalues (default) or the smallest.
        method (str, optional): ``"ortho"`` (default) or ``"basic"``.
        tracker (callable, optional): called with the :class:`LOBPCG` state after each step.
        ortho_iparams, ortho_fparams, ortho_bparams (dict, optional): the "ortho" method's
            ``ortho_i_max``, ``ortho_j_max`` (3, 3: rounds of projection and of SVQB),
            ``ortho_tol``, ``ortho_tol_drop``, ``ortho_tol_replace`` (default tol),
            ``ortho_use_drop`` (False: tiny directions are rescaled rather than dropped).

    Returns:
        (Tensor, Tensor): the eigenvalues ``(*, k)`` and eigenvectors ``(*, m, k)``. Differentiable
        in A when B is None (A's gradient is symmetric: A is symmetrized first, as torch does).

    Example::

        >>> A = torch.diag(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=torch.float64))
        >>> E, U = torch.lobpcg(A, k=2, X=torch.ones(6, 2, dtype=torch.float64).tril())
        >>> torch.allclose(E, torch.tensor([6.0, 5.0], dtype=torch.float64)), U.shape
        (True, torch.Size([6, 2]))
    """
    if A.requires_grad or (B is not None and B.requires_grad):
        # the gradient of a symmetric argument is made symmetric, so that a step along it keeps A symmetric
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A_sym, k, B_sym, X, n, iK, niter, tol, largest, method, tracker,
                                            ortho_iparams, ortho_fparams, ortho_bparams)
    return _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                   ortho_bparams)


class LOBPCGAutogradFunction(Function):
    """lobpcg as a differentiable function of A (and B, whose gradient is not supported)."""

    @staticmethod
    def forward(ctx, A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                ortho_bparams):
        D, U = _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams,
                       ortho_bparams)
        ctx.save_for_backward(A, B, D, U)
        ctx.largest = largest
        return D, U

    @staticmethod
    def backward(ctx, D_grad, U_grad):
        A, B, D, U = ctx.saved_tensors
        if A.is_sparse or (B is not None and B.is_sparse and ctx.needs_input_grad[2]):
            raise ValueError("lobpcg.backward does not support sparse input yet. Note that lobpcg.forward does though.")
        if A.is_complex() or B is not None and B.is_complex():
            raise ValueError("lobpcg.backward does not support complex input yet. "
                             "Note that lobpcg.forward does though.")
        if B is not None:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        return (_partial_eigh_backward(D_grad, U_grad, A, D, U),) + (None,) * 13


def _partial_eigh_backward(D_grad, U_grad, A, D, U):
    """The gradient in A of k eigenpairs (D, U) of the symmetric A, the other m - k unknown.

    With the full decomposition, A's gradient is V (diag(gD) + F o (V^T gV)) V^T, F_ij = 1/(l_j - l_i)
    off the diagonal and gV zero on the unknown vectors. Its known block is U (diag(gD) + F o (U^T gU)) U^T;
    the rest, sum_i x_i u_i^T, has x_i = sum over unknown j of u_j u_j^T gu_i / (l_i - l_j), the solution
    in the unknown subspace of (l_i I - A) x_i = P gu_i (P = I - U U^T). It is found without the unknown
    vectors: (l_i I - A + c U U^T) keeps both subspaces, is invertible for c > l_max - l_min, and
    acts on the unknown one as (l_i I - A). Every step is a differentiable operation, so this gradient
    has one too (double backward)."""
    grad = None
    if D_grad is not None:
        grad = (U * D_grad.unsqueeze(-2)) @ U.mT
    if U_grad is not None:
        k, m = U.shape[-1], U.shape[-2]
        UtG = U.mT @ U_grad
        diff = D.unsqueeze(-2) - D.unsqueeze(-1)          # [i, j] = l_j - l_i
        off = 1 - eye(k, dtype=D.dtype)
        F = off / (diff + eye(k, dtype=D.dtype))          # 1 / (l_j - l_i), zero on the diagonal
        known = U @ (F * UtG) @ U.mT
        grad = known if grad is None else grad + known
        rhs = U_grad - U @ UtG                            # P gU
        spread = (D.detach().amax(-1) - D.detach().amin(-1) + 1).unsqueeze(-1).unsqueeze(-1).unsqueeze(-1)
        M = D.unsqueeze(-1).unsqueeze(-1) * eye(m, dtype=A.dtype) - A.unsqueeze(-3) \
            + spread * (U @ U.mT).unsqueeze(-3)          # (*, k, m, m): one system per eigenpair
        x = solve(M, rhs.mT.unsqueeze(-1)).squeeze(-1).mT  # (*, m, k)
        grad = grad + x @ U.mT
    return grad


def _lobpcg(A, k, B, X, n, iK, niter, tol, largest, method, tracker, ortho_iparams, ortho_fparams, ortho_bparams):
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = A.dtype
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
                         f"than 3 x the number of requested eigenpairs (={n})")
    if X is None:   # as torch's, drawn in A's floating dtype, float32 for another (a complex A then meets a real block)
        X = randn(*A.shape[:-2], m, n, dtype=dtype if dtype.is_floating_point else _dtype.float32)
    for other in (X, B, iK):
        if other is not None and other.dtype != dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_type(dtype)}"
                               f" != {_c_type(other.dtype)}")
    tol = math.sqrt(np.finfo(A._array.dtype).eps) if tol is None else float(tol)
    iparams = {"m": m, "n": n, "k": k, "niter": 1000 if niter is None else niter,
               "ortho_i_max": 3, "ortho_j_max": 3, **(ortho_iparams or {})}
    fparams = {"tol": tol, "ortho_tol": tol, "ortho_tol_drop": tol, "ortho_tol_replace": tol, **(ortho_fparams or {})}
    bparams = {"largest": True if largest is None else bool(largest), "ortho_use_drop": False,
               **(ortho_bparams or {})}
    method = "ortho" if method is None else method

    def dense(t):
        return None if t is None else (t.to_dense() if t.is_sparse else t).detach().numpy()

    a, b, ik, x0 = dense(A), dense(B), dense(iK), dense(X)
    batch = A.shape[:-2]
    E = np.empty(tuple(batch) + (min(k, n),), dtype=a.dtype)   # (complex for a complex A, as torch)
    V = np.empty(tuple(batch) + (m, min(k, n)), dtype=a.dtype)
    for idx in np.ndindex(*batch):
        def at(arr):
            return None if arr is None else arr[idx] if arr.ndim > 2 else arr
        worker = LOBPCG(A[idx] if batch else A, B[idx] if B is not None and batch else B,
                        iK[idx] if iK is not None and batch else iK, iparams, fparams, bparams)
        e, v = _run(worker, at(a), at(b), at(ik), np.array(at(x0), dtype=a.dtype), method, tracker)
        E[idx], V[idx] = e[:k], v[:, :k]
    return Tensor._make(E, False, None, 0), Tensor._make(V, False, None, 0)


def _herm(M):
    return M.conj().T


def _run(w, A, B, iK, X, method, tracker):
    """One matrix's iteration; returns the Ritz values (sorted as asked) and vectors, n of each."""
    ip, fp, bp = w.iparams, w.fparams, w.bparams
    n, k, niter, tol, largest = ip["n"], ip["k"], ip["niter"], fp["tol"], bp["largest"]
    mulB = (lambda V: V) if B is None else (lambda V: B @ V)
    w.fvars["X_norm"] = x_norm = float(np.linalg.norm(X))
    w.fvars["A_norm"] = a_norm = float(np.linalg.norm(A @ X) / x_norm) if x_norm else 0.0
    w.fvars["B_norm"] = b_norm = float(np.linalg.norm(mulB(X)) / x_norm) if x_norm and B is not None else 1.0

    def rayleigh_ritz(S, gram):
        """The n best Ritz pairs in span(S) ((values, coefficients), sorted as asked); gram: S^H B S,
        None where S is B-orthonormal."""
        H = _herm(S) @ (A @ S)
        if gram is None:
            theta, Z = np.linalg.eigh(_hermitize(H))
        else:
            T = _gram_basis(gram, fp["ortho_tol_drop"])
            theta, Z = np.linalg.eigh(_hermitize(_herm(T) @ H @ T))
            Z = T @ Z
        order = np.argsort(-theta if largest else theta, kind="stable")[:n]
        return theta[order], Z[:, order]

    X = _svqb(X, mulB, fp["ortho_tol_replace"], fp["ortho_tol_drop"], False)
    E, C = rayleigh_ritz(X, _herm(X) @ mulB(X))
    X = X @ C
    P = None
    istep = 0
    while True:
        AX, BX = A @ X, mulB(X)
        R = AX - BX * E
        rerr = np.linalg.norm(R, axis=0) / ((a_norm + np.abs(E) * b_norm) * np.linalg.norm(X, axis=0))
        converged = rerr < tol
        count = 0
        while count < n and converged[count]:
            count += 1
        istep += 1
        w.ivars["istep"], w.ivars["converged_count"] = istep, count
        w.ivars["iterations_left"] = niter - istep if niter >= 0 else -1
        if tracker is not None:
            w.E, w.X, w.R = _wrap(E), _wrap(X), _wrap(R)
            w.tvars["rerr"] = _wrap(rerr)
            tracker(w)
        if count >= k or 0 <= niter <= istep:
            break
        active = ~converged
        W = R[:, active]
        if iK is not None:
            W = iK @ W
        if method == "ortho":
            U = W if P is None else np.concatenate([W, P], axis=1)
            U = _ortho(w, U, X, mulB)
            S = np.concatenate([X, U], axis=1)
            gram = None   # B-orthonormal by construction
        else:
            S = np.concatenate([X, W] if P is None else [X, W, P], axis=1)
            gram = _herm(S) @ mulB(S)
        w.ivars["converged_end"] = S.shape[1]
        E, C = rayleigh_ritz(S, gram)
        X = S @ C
        P = S[:, n:] @ C[n:]   # the step taken from X: the next search direction
        if tracker is not None:
            w.S = _wrap(S)
    return E, X


def _wrap(arr):
    return Tensor._make(np.array(arr), False, None, 0)


def _hermitize(M):
    return (M + _herm(M)) / 2


def _gram_basis(gram, tol_drop):
    """T with T^H gram T = I on the directions the Gram matrix tells apart."""
    d = np.sqrt(np.abs(np.diagonal(gram)).real)
    d = np.where(d > 0, 1 / np.where(d > 0, d, 1), 0)
    g, Z = np.linalg.eigh(_hermitize(gram * d[:, None] * d[None, :]))
    keep = g > max(tol_drop, np.finfo(g.dtype).eps * len(g)) * g.max()
    return (d[:, None] * Z[:, keep]) / np.sqrt(g[keep])


def _svqb(U, mulB, tol_replace, tol_drop, drop):
    """U made B-orthonormal by SVQB: scaled by its Gram matrix's diagonal, then by that matrix's
    eigendecomposition; a direction with a tiny eigenvalue is dropped (drop) or has it raised."""
    if U.shape[1] == 0:
        return U
    G = _herm(U) @ mulB(U)
    d = np.sqrt(np.abs(np.diagonal(G)).real)
    d = np.where(d > 0, 1 / np.where(d > 0, d, 1), 0)
    g, Z = np.linalg.eigh(_hermitize(G * d[:, None] * d[None, :]))
    top = np.abs(g).max() if len(g) else 0
    if drop:
        keep = g > tol_drop * top
        return U @ ((d[:, None] * Z[:, keep]) / np.sqrt(g[keep]))
    g = np.maximum(g, tol_replace * top) if top else np.ones_like(g)
    return U @ ((d[:, None] * Z) / np.sqrt(g))


def _ortho(w, U, V, mulB):
    """U made B-orthonormal and B-orthogonal to the B-orthonormal V: rounds of projection against V
    (ortho_i_max) each followed by rounds of SVQB (ortho_j_max), until the checks pass ortho_tol."""
    ip, fp, bp = w.iparams, w.fparams, w.bparams
    BV = mulB(V)
    tol = fp["ortho_tol"]
    for i in range(ip["ortho_i_max"]):
        U = U - V @ (_herm(BV) @ U)
        for j in range(ip["ortho_j_max"]):
            U = _svqb(U, mulB, fp["ortho_tol_replace"], fp["ortho_tol_drop"], bp["ortho_use_drop"])
            if U.shape[1] == 0:
                break
            BU = mulB(U)
            err = np.linalg.norm(_herm(U) @ BU - np.eye(U.shape[1])) / max(np.linalg.norm(U) * np.linalg.norm(BU), 1)
            w.fvars[f"ortho_UBUmI_rerr[{i}, {j}]"] = float(err)
            w.ivars["ortho_j"] = j
            if err < tol:
                break
        w.ivars["ortho_i"] = i
        if U.shape[1] == 0:
            break
        vbu = np.linalg.norm(_herm(BV) @ U) / max(np.linalg.norm(BV) * np.linalg.norm(U), 1)
        w.fvars[f"ortho_VBU_rerr[{i}]"] = float(vbu)
        if vbu < tol:
            break
    return U
