"""torch.lobpcg: eigenpairs as torch's (and NumPy's eigh) give them, its parameters, errors, tracker
and gradients (first and second order, B = None)."""
import numpy as np
import pytest

import ndgrad
from ndgrad.autograd import gradcheck, gradgradcheck
from parity import both, same_error


def _spd(m, seed=0, batch=()):
    a = np.random.default_rng(seed).random(batch + (m, m))
    return a @ np.swapaxes(a, -1, -2) / 10 + np.eye(m) * 0.01


def _fix_sign(U):
    """Each eigenvector with its largest-magnitude entry positive (eigenvectors are known up to sign)."""
    idx = np.abs(U).argmax(-2)[..., None, :]
    return U * np.sign(np.take_along_axis(U, idx, -2))


def _eigh(a, k, largest):
    w, v = np.linalg.eigh(a)
    order = np.argsort(-w if largest else w, axis=-1)[..., :k]
    return np.take_along_axis(w, order, -1), np.take_along_axis(v, order[..., None, :], -1)


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k, m", [(1, 6), (2, 10), (3, 12)])
def test_eigenpairs_match_torch_and_eigh(method, largest, k, m):
    a = _spd(m, seed=k)
    x0 = np.random.default_rng(5).standard_normal((m, k))

    def s(T):
        E, U = T.lobpcg(T.tensor(a), k=k, X=T.tensor(x0), largest=largest, method=method)
        return [E, _fix_sign(U.numpy())]
    # torch's "basic" Rayleigh-Ritz factors a Gram matrix that loses definiteness on these (a repeated
    # eigenvalue, or a Cholesky error): ndgrad's drops the directions it cannot tell apart; eigh decides
    E, U = both(s, rtol=1e-6, atol=1e-6) if method == "ortho" else s(ndgrad)
    E, U = np.asarray(E), np.asarray(U)
    w, v = _eigh(a, k, largest)
    np.testing.assert_allclose(E, w, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(U, _fix_sign(v), atol=1e-6)


def test_generalized_problem_preconditioner_and_random_start():
    a, m = _spd(12, seed=3), 12
    b = np.diag(np.linspace(1.0, 3.0, m))
    ik = np.linalg.inv(a + np.eye(m))
    ndgrad.manual_seed(0)
    E, U = ndgrad.lobpcg(ndgrad.tensor(a), k=2, B=ndgrad.tensor(b), largest=False)
    w = np.sort(np.linalg.eigvals(np.linalg.solve(b, a)).real)[:2]
    np.testing.assert_allclose(E.numpy(), w, rtol=1e-8)
    # B-orthonormal eigenvectors of A x = l B x
    np.testing.assert_allclose(U.numpy().T @ b @ U.numpy(), np.eye(2), atol=1e-8)
    np.testing.assert_allclose(a @ U.numpy(), b @ U.numpy() * E.numpy(), atol=1e-6)
    E, _ = ndgrad.lobpcg(ndgrad.tensor(a), k=2, iK=ndgrad.tensor(ik), largest=False, method="basic")
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(a)[:2], rtol=1e-8)


def test_batches_float32_and_a_larger_block():
    a = _spd(9, seed=1, batch=(2, 2))
    E, U = ndgrad.lobpcg(ndgrad.tensor(a), k=1, X=ndgrad.eye(9, 1, dtype=ndgrad.float64).expand(2, 2, 9, 1))
    assert tuple(E.shape) == (2, 2, 1) and tuple(U.shape) == (2, 2, 9, 1)
    np.testing.assert_allclose(E.numpy()[..., 0], np.linalg.eigvalsh(a)[..., -1], rtol=1e-8)
    E, U = ndgrad.lobpcg(ndgrad.tensor(a[0, 0]).float(), k=2, n=3)
    assert E.dtype == ndgrad.float32 and tuple(U.shape) == (9, 2)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(a[0, 0])[::-1][:2], rtol=1e-4)


def test_tracker_sees_torchs_state_each_step():
    a = _spd(10)
    x0 = np.random.default_rng(1).standard_normal((10, 2))

    def s(T):
        seen = []

        def tracker(w):
            seen.append([type(w).__name__, sorted(w.iparams.items()), sorted(w.fparams), sorted(w.bparams.items()),
                         sorted(w.ivars), w.ivars["istep"], list(w.E.shape), list(w.X.shape), list(w.R.shape),
                         list(w.tvars["rerr"].shape)])
        T.lobpcg(T.tensor(a), k=2, X=T.tensor(x0), niter=3, tracker=tracker)
        return seen
    seen = both(s)
    assert [step[5] for step in seen] == [1, 2, 3]
    assert seen[0][2] == ["ortho_tol", "ortho_tol_drop", "ortho_tol_replace", "tol"]


def test_stops_at_niter_and_tol():
    a = _spd(10)
    steps = []
    ndgrad.lobpcg(ndgrad.tensor(a), k=2, niter=2, tracker=lambda w: steps.append(w.ivars["istep"]))
    assert steps == [1, 2]
    last = []
    ndgrad.lobpcg(ndgrad.tensor(a), k=2, niter=-1, tracker=lambda w: last.append(w.ivars["converged_count"]))
    assert last[-1] >= 2 and last[:-1] == [c for c in last[:-1] if c < 2]


@pytest.mark.parametrize("call, exc", [
    (lambda T: T.lobpcg(T.ones(4, 3)), AssertionError),
    (lambda T: T.lobpcg(T.eye(10), k=4), ValueError),
    (lambda T: T.lobpcg(T.eye(10), B=T.eye(9)), AssertionError),
    (lambda T: T.lobpcg(T.eye(10), X=T.ones(10, 1, dtype=T.float64)), RuntimeError),
])
def test_errors_are_torchs(call, exc):
    same_error(call, exc)


def test_gradient_matches_torch_and_is_symmetric():
    a = _spd(9, seed=2)
    x0 = np.eye(9, 2)
    gd, gu = np.random.default_rng(3).random(2), np.random.default_rng(4).random((9, 2))

    def s(T):
        A = T.tensor(a, requires_grad=True)
        E, U = T.lobpcg(A, k=2, X=T.tensor(x0))
        sign = T.tensor(np.sign(_fix_sign(U.detach().numpy())[0] / U.detach().numpy()[0]))
        ((E * T.tensor(gd)).sum() + (U * sign * T.tensor(gu)).sum()).backward()
        return [E.grad_fn.name(), A.grad]
    name, g = both(s, rtol=1e-5, atol=1e-7)
    assert name == "LOBPCGAutogradFunctionBackward"
    np.testing.assert_allclose(g, g.T, atol=1e-12)


@pytest.mark.parametrize("largest", [True, False])
def test_gradcheck_and_gradgradcheck(largest):
    a = _spd(6, seed=7)
    A = ndgrad.tensor(a, requires_grad=True)

    def f(A):
        D, U = ndgrad.lobpcg(A, k=2, X=ndgrad.eye(6, 2, dtype=ndgrad.float64), largest=largest)
        idx = U.abs().argmax(-2, keepdim=True)
        return D, U * U.gather(-2, idx).sign()
    assert gradcheck(f, (A,))
    assert gradgradcheck(f, (A,), atol=1e-4)


def test_backward_refuses_b():
    A = ndgrad.tensor(_spd(6), requires_grad=True)
    E, _ = ndgrad.lobpcg(A, k=1, B=ndgrad.eye(6, dtype=ndgrad.float64), X=ndgrad.ones(6, 1, dtype=ndgrad.float64))
    with pytest.raises(ValueError, match="lobpcg.backward does not support backward with B != I yet."):
        E.sum().backward()


def test_sparse_and_complex_inputs():
    a = np.diag(np.arange(1.0, 13.0))
    a[0, 1] = a[1, 0] = 0.5

    def s(T):
        E, _ = T.lobpcg(T.tensor(a).to_sparse(), k=2, X=T.tensor(np.eye(12, 2) + 0.1))
        Ec, Uc = T.lobpcg(T.tensor(a + 0j), k=1, X=T.tensor(np.ones((12, 1)) + 0j))
        return [E, str(Ec.dtype), Ec.real, str(Uc.dtype)]
    E, dtype, Ec, udtype = both(s, rtol=1e-6)
    np.testing.assert_allclose(E, [12.0, 11.0], rtol=1e-8)
    assert dtype == udtype == "torch.complex128"
    np.testing.assert_allclose(Ec, [12.0], rtol=1e-8)
