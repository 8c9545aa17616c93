"""The native pool (ndgrad/_pool.py): its helpers give NumPy's bits for the passes they take, refuse what
they cannot take, and stay correct across thread settings, Python threads, sleep, fork and exit."""
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import ndgrad
from ndgrad import _native, _parallel, _pool

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not _pool.ready(), reason="the native pool does not run here (one CPU, no CBLAS)")

_products = pytest.mark.skipif(not _pool._products, reason="NumPy's BLAS is not an OpenBLAS with CBLAS products")
_UINT = {4: np.uint32, 8: np.uint64}
_UFUNCS = {_pool.ADD: np.add, _pool.SUB: np.subtract, _pool.MUL: np.multiply, _pool.DIV: np.divide}


def _bits(a):
    return np.ascontiguousarray(a).view(_UINT[a.itemsize])


def _special(rs, shape, dtype):
    a = (rs.randn(*shape) * 3).astype(dtype)
    flat = a.reshape(-1)
    flat[::97], flat[::89], flat[::83], flat[::79] = np.nan, np.inf, -np.inf, -0.0
    flat[::71] = 0.0
    flat[::61] = np.finfo(dtype).tiny / 3   # subnormals
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", sorted(_UFUNCS))
def test_binary_gives_numpys_bits(dtype, kind):
    rs = np.random.RandomState(kind)
    a, b = _special(rs, (8, 128, 130), dtype), _special(rs, (8, 128, 130), dtype)   # (float32 above MIN_BINARY_BYTES)
    row, scalar = _special(rs, (130,), dtype), np.asarray(-0.75, dtype)
    cases = [(a, b), (a, row), (row, a), (a, row[None, None]), (a, scalar), (scalar, a), (a, 0.3), (7, a),
             (a, -0.0), (a, 0), (a[None], b[0, :1]), (a, a)]
    with np.errstate(all="ignore"):
        for x, y in cases:
            got, want = _pool.binary(kind, x, y), _UFUNCS[kind](x, y)
            assert got is not None, (np.shape(x), np.shape(y))
            assert got.dtype == want.dtype and got.shape == want.shape
            assert (_bits(got) == _bits(want)).all(), (np.shape(x), np.shape(y))


def test_binary_refuses_what_it_cannot_take():
    rs = np.random.RandomState(0)
    a = rs.randn(300, 400)
    for x, y in [(a, a.astype(np.float32)),          # mixed dtypes
                 (a.astype(np.int64), a.astype(np.int64)),
                 (a[:100, :100], a[:100, :100]),    # below MIN_BINARY_BYTES
                 (a[:256, :256].astype(np.float32), a[:256, :256].astype(np.float32)),   # (256 KB)
                 (a.T, a.T.copy()),                 # not C-contiguous
                 (a, a[:, :1]),                     # a column broadcast along rows
                 (a[None], a[:, None]),             # a broadcast that makes a larger shape
                 (a, 1j), (a, True), (a, np.float64(2.0))]:
        assert _pool.binary(_pool.ADD, x, y) is None, (np.shape(x), np.shape(y))
    assert _pool.binary(_pool.ADD, a[:256, :256].copy(), a[:256, :256].copy()) is not None   # float64: 512 KB


def test_tensor_ops_on_large_arrays_are_numpys():
    rs = np.random.RandomState(1)
    a, b = rs.randn(512, 300).astype(np.float32), rs.randn(300).astype(np.float32) + 2
    x, y = ndgrad.tensor(a, requires_grad=True), ndgrad.tensor(b)
    out = ((x + y) * x - 1.5) / y - x
    want = ((a + b) * a - np.float32(1.5)) / b - a
    assert (_bits(out.detach().numpy()) == _bits(want)).all()
    out.sum().backward()
    assert x.grad.shape == x.shape and np.isfinite(x.grad.numpy()).all()


@_products
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(300, 200, 100), (90, 120, 700), (1000, 41, 65), (64, 1024, 64)])
def test_matmul_blocks_are_one_thread_openblas_products(dtype, m, k, n):
    rs = np.random.RandomState(m)
    a, b = rs.randn(m, k).astype(dtype), rs.randn(k, n).astype(dtype)
    for x, y in [(a, b), (np.asfortranarray(a), b), (a, np.asfortranarray(b)),
                 (np.ascontiguousarray(a.T).T, np.ascontiguousarray(b.T).T), (a[:, :k - 1], b[:k - 1])]:
        got = _pool.matmul(x, y)
        assert got is not None and got.shape == (m, n)
        assert (_bits(got) == _bits(_blockwise(x, y))).all()
        np.testing.assert_allclose(got, x @ y, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-3)


def _blockwise(x, y):
    """x @ y in the pool's blocks, each product by OpenBLAS alone on this thread."""
    by_cols, piece, count = _pool.blocks(x.shape[0], y.shape[1])
    with _native.one_blas_thread():
        parts = [x @ y[:, i:i + piece] if by_cols else x[i:i + piece] @ y
                 for i in range(0, piece * count, piece)]
    return np.concatenate(parts, axis=1 if by_cols else 0)


@_products
def test_matmul_refuses_other_layouts_and_small_products():
    rs = np.random.RandomState(0)
    a = rs.randn(300, 400)
    assert _pool.matmul(a[:, ::2], a[:200]) is None                # column stride 2
    assert _pool.matmul(a[:10, :10], a[:10, :10]) is None          # small
    assert _pool.matmul(a, a.T.astype(np.float32)) is None         # mixed dtypes
    assert _pool.matmul(a.astype(np.int64), a.T.astype(np.int64)) is None
    assert _pool.matmul(np.broadcast_to(a[:1], (300, 400)), a.T) is None   # zero stride
    got = _pool.matmul(a[::2], a.T)                                # a row stride: BLAS's leading dimension
    assert got is not None and (_bits(got) == _bits(_blockwise(a[::2], a.T))).all()


@_products
def test_a_busy_pool_computes_the_same_blocks():
    rs = np.random.RandomState(5)
    a, b = rs.randn(700, 90), rs.randn(90, 650)
    shared = _pool.matmul(a, b)
    with _pool._busy:   # (another Python thread's job running)
        alone = _pool.matmul(a, b)
        stack = _pool.bmm(np.stack([a] * 3), np.stack([b] * 3))
        summed = _pool.binary(_pool.ADD, alone, alone)
        assert summed is not None and (_bits(summed) == _bits(alone + alone)).all()
    with _native.one_blas_thread():   # (a stack's products whole, each as OpenBLAS computes it alone)
        whole = a @ b
    assert (_bits(shared) == _bits(alone)).all() and all((_bits(p) == _bits(whole)).all() for p in stack)


@_products
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bmm_gives_one_thread_openblas_bits(dtype):
    rs = np.random.RandomState(2)
    s, t = rs.randn(30, 64, 48).astype(dtype), rs.randn(30, 48, 80).astype(dtype)
    for x, y in [(s, t), (s, np.ascontiguousarray(t.transpose(0, 2, 1)).transpose(0, 2, 1)),
                 (np.ascontiguousarray(s.transpose(0, 2, 1)).transpose(0, 2, 1), t),
                 (np.broadcast_to(s[:1], s.shape), t)]:
        got = _pool.bmm(x, y)
        with _native.one_blas_thread():
            want = np.matmul(x, y)
        assert got is not None and (_bits(got) == _bits(want)).all()
    x = ndgrad.tensor(s, requires_grad=True)
    ndgrad.bmm(x, ndgrad.tensor(t)).sum().backward()
    with _native.one_blas_thread():
        assert (_bits(x.grad.numpy()) == _bits(np.matmul(np.ones((30, 64, 80), dtype), t.transpose(0, 2, 1)))).all()


def test_one_thread_keeps_numpy():
    a = np.ones((400, 400), np.float32)
    before = ndgrad.get_num_threads()
    try:
        ndgrad.set_num_threads(1)
        assert _pool.binary(_pool.ADD, a, a) is None and _pool.matmul(a, a) is None
    finally:
        ndgrad.set_num_threads(before)
    assert _pool.binary(_pool.ADD, a, a) is not None


def test_python_threads_share_the_pool():
    rs = np.random.RandomState(3)
    arrays = [rs.randn(256, 512) for _ in range(4)]
    errors = []

    def work(a):
        for _ in range(50):   # (a thread that finds the pool busy runs the job's chunks alone)
            for kind, want in ((_pool.MUL, a * a), (_pool.SUB, a - 1.0)):
                got = _pool.binary(kind, a, a if kind == _pool.MUL else 1.0)
                if got is None or not np.array_equal(got, want):
                    errors.append(kind)
    threads = [threading.Thread(target=work, args=(a,)) for a in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_helpers_wake_from_sleep():
    a = np.arange(1 << 18, dtype=np.float64)
    for pause in (0.0, 0.005, 0.05):
        time.sleep(pause)   # longer than the helpers' spin: they sleep on the condition variable
        assert np.array_equal(_pool.binary(_pool.ADD, a, a), a + a)


_CHILD = textwrap.dedent("""
    import os, sys, threading
    import numpy as np
    from ndgrad import _parallel, _pool
    a = np.arange(1 << 18, dtype=np.float32)
    first = [threading.Thread(target=_pool.binary, args=(_pool.MUL, a, a)) for _ in range(4)]
    for t in first:   # (four first uses at once: one set of helpers)
        t.start()
    for t in first:
        t.join()
    assert len(_pool._helpers) == min(_parallel.threads, _pool.MAX_THREADS) - 1
    assert _pool.ready() and np.array_equal(_pool.binary(_pool.MUL, a, a), a * a)
    pid = os.fork()
    if pid == 0:   # the child starts helpers of its own
        ok = _pool.ready() and np.array_equal(_pool.binary(_pool.MUL, a, a), a * a)
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    print("done")
""")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork")
def test_fork_and_exit():
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "done", out.stderr[-2000:]


def test_split_counts_follow_threads():
    assert _parallel.threads >= 2 and len(_pool._helpers) >= 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_jobs_give_the_bits_of_the_serial_kernels(dtype, monkeypatch):
    """layer norm and its backward, softmax's backward and masked_fill as the pool's compiled jobs: the bits
    the same kernels give on _parallel's threads (the reference: the pool refused)."""
    from ndgrad.ops import _fused
    rs = np.random.RandomState(7)
    x, g = _special(rs, (2, 300, 256), dtype), rs.randn(2, 300, 256).astype(dtype)
    w, b = rs.randn(256).astype(dtype), rs.randn(256).astype(dtype)
    s = rs.randn(600, 128).astype(dtype)
    y = np.exp(s - s.max(1, keepdims=True))
    y /= y.sum(1, keepdims=True)
    mask = rs.rand(300, 256) > 0.5

    def all_of():
        out, mean, rstd, xhat = _fused.layer_norm(x, 256, w, b, 1e-5, True)
        grads = _fused.layer_norm_backward(g, x, 256, mean, rstd, w, None)
        gi = np.empty_like(s)
        assert _fused.softmax_backward_rows(s, y, gi)
        return [out, mean, rstd, xhat, *grads, gi, _fused.masked_fill(x, mask, np.asarray(-np.inf, dtype))]
    with np.errstate(all="ignore"):
        pooled = all_of()
        monkeypatch.setattr(_pool, "run", lambda *a: False)
        serial = all_of()
    assert all(p.shape == q.shape and (_bits(p) == _bits(q)).all() for p, q in zip(pooled, serial))


def test_in_place_passes_and_overlapping_views():
    rs = np.random.RandomState(9)
    a, b = rs.randn(400, 300), rs.randn(300)
    for kind, ufunc in _UFUNCS.items():
        x = a.copy()
        assert _pool.binary(kind, x, b, out=x) is x and (_bits(x) == _bits(ufunc(a, b))).all()
        x = a.copy()
        assert _pool.binary(kind, x, x, out=x) is x and (_bits(x) == _bits(ufunc(a, a))).all()
    flat = a.reshape(-1).copy()
    assert _pool.binary(_pool.SUB, flat[1:], flat[:-1], out=flat[1:]) is None   # (another view of its memory)
    into = np.empty_like(a)                                                       # (a separate output)
    assert _pool.binary(_pool.ADD, a, b, out=into) is into and (_bits(into) == _bits(a + b)).all()
    c = a.copy()
    assert _pool.binary(_pool.ADD, a, c, out=c) is None                         # (out is the second operand)
    # Tensor-level in-place updates (an optimizer's p -= lr * g, and a shifted view's) as NumPy computes them
    p, g = ndgrad.tensor(a.copy()), ndgrad.tensor(rs.randn(400, 300))
    with ndgrad.no_grad():
        p -= 0.1 * g
        p.add_(g, alpha=-0.5)
        p.mul_(0.9)
    assert (_bits(p.numpy()) == _bits((a - 0.1 * g.numpy() - 0.5 * g.numpy()) * 0.9)).all()
    v = ndgrad.arange(300000.0)
    with ndgrad.no_grad():
        v[1:] -= v[:-1]
    assert (v.numpy()[1:] == 1.0).all() and v.numpy()[0] == 0.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_and_its_backward_are_numpys(dtype, monkeypatch):
    from ndgrad.ops import _fused, activation
    rs = np.random.RandomState(11)
    x, g = _special(rs, (520, 260), dtype), _special(rs, (520, 260), dtype)
    want = activation._relu_into(x)
    got = _pool.relu(x)
    assert got is not None and (_bits(got) == _bits(want)).all()
    y = x.copy()
    assert _pool.relu(y, out=y) is y and (_bits(y) == _bits(want)).all()
    z = np.empty_like(x)
    assert _pool.relu(x, out=z) is z and (_bits(z) == _bits(want)).all()
    assert _pool.relu(x, out=x[::-1].copy()[::-1]) is None   # (not C-contiguous)
    with np.errstate(all="ignore"):
        pooled = _fused.threshold_backward(g, x, 0.0)
        monkeypatch.setattr(_pool, "run", lambda *a: False)
        serial = _fused.threshold_backward(g, x, 0.0)
    assert (_bits(pooled) == _bits(serial)).all()


@_products
def test_training_steps_from_several_threads_give_one_threads_bits():
    """Products, elementwise passes and updates from four Python threads at once (the pool shared, busy, or
    its blocks computed alone): every step's bits as the same step run alone."""
    rs = np.random.RandomState(13)
    w1, w2 = rs.randn(384, 384).astype(np.float32) * 0.05, rs.randn(384, 384).astype(np.float32) * 0.05
    xs = [rs.randn(256, 384).astype(np.float32) for _ in range(4)]

    def step(i):
        a, b = ndgrad.tensor(w1, requires_grad=True), ndgrad.tensor(w2, requires_grad=True)
        h = ndgrad.relu(ndgrad.tensor(xs[i]) @ a + 0.1) * 1.5
        y = (h @ b - 0.2) / 3.0
        (y * y).mean().backward()
        with ndgrad.no_grad():
            a -= 0.1 * a.grad
        return [_bits(a.detach().numpy()), _bits(b.grad.numpy())]

    alone = [step(i) for i in range(4)]
    bad = []

    def work(i):
        for _ in range(8):
            if not all((p == q).all() for p, q in zip(step(i), alone[i])):
                bad.append(i)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad
