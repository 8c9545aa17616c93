"""linalg.ldl_factor(_ex) and ldl_solve against torch: LAPACK's compact factors and pivots, solves
that agree with linalg.solve, torch's errors, and no derivative (as torch)."""
import numpy as np
import pytest

from parity import both, same_error

rng = np.random.default_rng(5)
M = rng.standard_normal((2, 4, 4))
SYM = M + np.swapaxes(M, -1, -2)
C = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
RHS = rng.standard_normal((2, 4, 3))


@pytest.mark.parametrize("hermitian", [False, True])
def test_factor_and_solve_real_batched(hermitian):
    def scenario(T):
        A = T.tensor(SYM)
        LD, pivots, info = T.linalg.ldl_factor_ex(A, hermitian=hermitian)
        X = T.linalg.ldl_solve(LD, pivots, T.tensor(RHS), hermitian=hermitian)
        return LD, pivots, info, X, T.linalg.ldl_factor(A[0]).LD
    LD, pivots, info, X, _ = both(scenario, rtol=1e-10, atol=1e-12)
    assert np.allclose(SYM @ X, RHS) and not info.any() and np.allclose(np.triu(LD, 1), 0)


@pytest.mark.parametrize("hermitian", [False, True])
def test_complex_symmetric_and_hermitian(hermitian):
    A = C + (C.conj().T if hermitian else C.T)

    def scenario(T):
        LD, pivots = T.linalg.ldl_factor(T.tensor(A), hermitian=hermitian)
        return LD, pivots, T.linalg.ldl_solve(LD, pivots, T.tensor(RHS[0].astype(complex)), hermitian=hermitian)
    LD, pivots, X = both(scenario, rtol=1e-10, atol=1e-12)
    assert np.allclose(A @ X, RHS[0])


def test_errors_and_no_derivative():
    same_error(lambda T: T.linalg.ldl_factor(T.ones(2, 3)))
    same_error(lambda T: T.linalg.ldl_factor(T.ones(2, 2, dtype=T.int64)))

    def scenario(T):
        A = T.tensor(SYM[0], requires_grad=True)
        LD, pivots = T.linalg.ldl_factor(A)
        return LD.requires_grad, type(LD.grad_fn).__name__
    assert both(scenario) == [True, "NotImplemented"]
    same_error(lambda T: T.linalg.ldl_factor(T.tensor(SYM[0], requires_grad=True)).LD.sum().backward())
