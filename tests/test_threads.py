"""Thread safety: backward passes from several threads, per-thread grad modes, worker threads
recording graphs, hooks on the thread that runs them.

Each scenario is written against the torch API and run by `parity.both` on ndgrad and (when it
is installed) on torch: the values must agree. The switch interval is made tiny while a test runs,
so that threads interleave inside the engine and the accumulation instead of running one after
the other; the suite is meant to stay green when repeated (`pytest tests/test_threads.py --count 50`).
"""
import queue
import sys
import threading
import time

import pytest

from parity import both, parity

N_THREADS = 8
WAIT = 30   # seconds: a scenario that breaks fails instead of hanging


@pytest.fixture(autouse=True)
def _interleave():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def run_threads(target, n=N_THREADS):
    """Run target(i) on n threads started together; re-raise the first error any of them hit."""
    barrier = threading.Barrier(n)
    errors = []

    def body(i):
        try:
            barrier.wait(WAIT)
            target(i)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    if errors:
        raise errors[0]


# --- concurrent backward ---------------------------------------------------------------------

def test_backward_into_shared_leaf_loses_nothing():
    def scenario(T):
        # large enough that NumPy's in-place add releases the GIL: unserialised additions would overlap
        x = T.zeros(1 << 18, dtype=T.float64, requires_grad=True)

        def work(i):
            for _ in range(5):
                (x * 2).sum().backward()
        run_threads(work)
        return x.grad

    g = both(scenario)
    assert (g == 2.0 * N_THREADS * 5).all()


def test_backward_into_shared_leaf_first_accumulation():
    # the first gradient to arrive is stored, not added: two threads arriving at once must not both store
    def scenario(T):
        sums = []
        for _ in range(20):
            x = T.zeros(3, dtype=T.float64, requires_grad=True)
            run_threads(lambda i: (x * (i + 1)).sum().backward(), n=4)
            sums.append(x.grad.sum().item())
        return sums

    assert both(scenario) == [3 * (1 + 2 + 3 + 4)] * 20


def test_backward_on_separate_graphs():
    def scenario(T):
        results = [None] * N_THREADS

        def work(i):
            w = T.arange(1.0, 6.0, dtype=T.float64).mul(i + 1).requires_grad_()
            y = w
            for _ in range(50):
                y = T.tanh(y * 0.9) + w * 0.01
            y.pow(2).sum().backward()
            results[i] = w.grad
        run_threads(work)
        return results

    parity(scenario)


def test_shared_graph_backward_from_threads_with_retain_graph():
    # one forward, then every thread backpropagates through the same graph (torch needs retain_graph)
    def scenario(T):
        w = T.tensor([1.0, -2.0, 3.0], dtype=T.float64, requires_grad=True)
        y = (w.exp() * w).sum()
        run_threads(lambda i: y.backward(retain_graph=True))
        return w.grad

    g = both(scenario)
    assert g[0] == pytest.approx(N_THREADS * 2 * 2.718281828459045)


def test_autograd_grad_from_threads_sees_own_inputs():
    def scenario(T):
        results = [None] * N_THREADS
        w = T.tensor([0.5, 1.5], dtype=T.float64, requires_grad=True)

        def work(i):
            out = (w ** (i + 1)).sum()
            results[i], = T.autograd.grad(out, w, create_graph=True)
            results[i] = T.autograd.grad(results[i].sum(), w)[0]
        run_threads(work)
        return results + [w.grad]

    out = both(scenario)
    assert out[-1] is None   # autograd.grad accumulates nothing


def test_post_accumulate_hooks_run_once_per_backward_from_threads():
    # as in torch, the hooks run outside the leaf's lock: what each one reads of .grad may already
    # include another thread's gradient, so only the calls and the final value are compared
    def scenario(T):
        x = T.ones(2, dtype=T.float64, requires_grad=True)
        calls = []
        x.register_post_accumulate_grad_hook(lambda t: calls.append(threading.get_ident()))
        run_threads(lambda i: (x * 3).sum().backward())
        return [len(calls), len(set(calls)), x.grad]

    assert both(scenario)[:2] == [N_THREADS, N_THREADS]


# --- grad modes are per thread ---------------------------------------------------------------

def test_new_thread_starts_with_grad_enabled():
    def scenario(T):
        seen = []
        with T.no_grad():
            t = threading.Thread(target=lambda: seen.append((T.is_grad_enabled(), T.is_inference_mode_enabled())))
            t.start()
            t.join()
        with T.inference_mode():
            t = threading.Thread(target=lambda: seen.append((T.is_grad_enabled(), T.is_inference_mode_enabled())))
            t.start()
            t.join()
        return seen

    assert both(scenario) == [[True, False], [True, False]]


def test_grad_mode_set_in_one_thread_is_not_seen_in_another():
    def scenario(T):
        x = T.ones(2, requires_grad=True)
        modes_set, recorded = threading.Event(), threading.Event()
        out = {}

        def switcher():
            T.set_grad_enabled(False)
            with T.autograd.set_multithreading_enabled(False):
                modes_set.set()
                assert recorded.wait(WAIT)
                out["switcher"] = (T.is_grad_enabled(), (x * 2).requires_grad,
                                   T.autograd.is_multithreading_enabled())

        def recorder():
            assert modes_set.wait(WAIT)
            out["recorder"] = (T.is_grad_enabled(), (x * 2).requires_grad, T.autograd.is_multithreading_enabled())
            recorded.set()

        threads = [threading.Thread(target=switcher), threading.Thread(target=recorder)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [out["switcher"], out["recorder"], T.is_grad_enabled()]

    assert both(scenario) == [[False, False, False], [True, True, True], True]


def test_backward_does_not_switch_grad_mode_of_other_threads():
    # while one thread's backward is inside a hook (grad mode off there), another thread records
    def scenario(T):
        x = T.ones(3, dtype=T.float64, requires_grad=True)
        in_hook, recorded = threading.Event(), threading.Event()
        out = {}

        def hook(g):
            out["mode in hook"] = T.is_grad_enabled()
            in_hook.set()
            assert recorded.wait(WAIT)
            return g

        def backward_thread():
            y = x * 2
            y.register_hook(hook)
            y.sum().backward()

        def recording_thread():
            assert in_hook.wait(WAIT)
            z = x * 5
            out["recorded"] = (T.is_grad_enabled(), z.requires_grad, type(z.grad_fn).__name__)
            recorded.set()

        threads = [threading.Thread(target=backward_thread), threading.Thread(target=recording_thread)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [out["mode in hook"], out["recorded"], x.grad]

    assert both(scenario)[:2] == [False, [True, True, "MulBackward0"]]


def test_decorated_function_called_from_threads():
    def scenario(T):
        x = T.ones(2, requires_grad=True)

        @T.no_grad
        def frozen(t):
            return t * 2

        @T.enable_grad()
        def tracked(t):
            return t * 2

        res = [None] * N_THREADS

        def work(i):
            if i % 2:
                with T.no_grad():
                    res[i] = (tracked(x).requires_grad, T.is_grad_enabled())
            else:
                res[i] = (frozen(x).requires_grad, T.is_grad_enabled())
        run_threads(work)
        return res

    assert both(scenario) == [[False, True], [True, False]] * (N_THREADS // 2)


def test_inference_mode_is_per_thread():
    def scenario(T):
        res = [None] * N_THREADS

        def work(i):
            if i % 2:
                with T.inference_mode():
                    t = T.ones(2) * 2
                    res[i] = (T.is_inference_mode_enabled(), t.is_inference())
            else:
                t = T.ones(2) * 2
                res[i] = (T.is_inference_mode_enabled(), t.is_inference())
        run_threads(work)
        return res

    assert both(scenario) == [[False, False], [True, True]] * (N_THREADS // 2)


# --- worker threads, hooks ---------------------------------------------------------------------

def test_dataloader_style_workers_record_and_backward():
    # batches from a queue, shared parameters, each worker records its own graph and backpropagates
    def scenario(T):
        w = T.linspace(-1.0, 1.0, 12, dtype=T.float64).reshape(4, 3).requires_grad_()
        b = T.zeros(3, dtype=T.float64, requires_grad=True)
        batches = queue.Queue()
        for k in range(32):
            batches.put(T.arange(8.0, dtype=T.float64).reshape(2, 4) / (k + 1))
        losses = []

        def worker(i):
            while True:
                try:
                    xb = batches.get_nowait()
                except queue.Empty:
                    return
                loss = T.nn.functional.softplus(xb @ w + b).pow(2).mean()
                loss.backward()
                losses.append(loss.item())
        run_threads(worker, n=4)
        return [w.grad, b.grad, T.tensor(sorted(losses), dtype=T.float64)]

    parity(scenario, rtol=1e-10)


def test_hooks_run_on_the_thread_that_runs_backward():
    def scenario(T):
        idents = {}

        def work(i):
            x = T.ones(2, requires_grad=True)
            y = x * 2
            calls = []
            y.register_hook(lambda g: calls.append(("tensor", threading.get_ident())))
            y.grad_fn.register_hook(lambda gi, go: calls.append(("node", threading.get_ident())))
            x.register_post_accumulate_grad_hook(lambda t: calls.append(("post-acc", threading.get_ident())))
            y.sum().backward()
            idents[i] = [kind for kind, ident in calls if ident == threading.get_ident()]
        run_threads(work)
        return [idents[i] for i in range(N_THREADS)]

    assert both(scenario) == [["tensor", "node", "post-acc"]] * N_THREADS


def test_final_callbacks_belong_to_the_thread_that_queued_them():
    def scenario(T):
        ran = [None] * N_THREADS

        def work(i):
            x = T.ones(2, requires_grad=True)
            y = x * (i + 1)

            def hook(g):
                T.autograd.Variable._execution_engine.queue_callback(
                    lambda: ran.__setitem__(i, (i, threading.get_ident() == me)))
                return g
            me = threading.get_ident()
            y.register_hook(hook)
            y.sum().backward()
        run_threads(work)
        return ran

    assert both(scenario) == [[i, True] for i in range(N_THREADS)]


# ---- intra-op threads (ndgrad/_parallel.py) --------------------------------------------------------
def test_kernels_split_from_many_threads_at_once_give_the_serial_results(monkeypatch):
    """Kernels called from several threads: one at a time gets the workers, the others compute their
    slices themselves; every result equals the one-thread result."""
    import numpy as np
    import ndgrad
    from ndgrad import _parallel
    monkeypatch.setattr(_parallel, "MIN_WORK", 256)
    rs = np.random.RandomState(0)
    xs = [ndgrad.tensor(rs.randn(6, 4, 12, 12).astype(np.float32), requires_grad=True) for _ in range(N_THREADS)]
    w = ndgrad.tensor(rs.randn(8, 4, 3, 3).astype(np.float32), requires_grad=True)

    def step(x):
        y = ndgrad.nn.functional.max_pool2d(ndgrad.relu(ndgrad.nn.functional.conv2d(x, w, padding=1)), 2)
        gx, gw = ndgrad.autograd.grad(y.sum(), (x, w))
        return y.detach().numpy(), gx.numpy(), gw.numpy()
    monkeypatch.setattr(_parallel, "threads", 1)
    want = [step(x) for x in xs]
    monkeypatch.setattr(_parallel, "threads", 3)
    got = [None] * N_THREADS

    def target(i):
        for _ in range(5):
            got[i] = step(xs[i])
    run_threads(target)
    for g, e in zip(got, want):
        for a, b in zip(g, e):
            assert (a == b).all()


def test_compiled_convolutions_from_many_threads_at_once_give_the_serial_results(monkeypatch):
    """The compiled convolution kernels (wide grid, per tap: their BLAS products held to one thread by
    one_blas_thread, counted across threads) called from several threads at once: every result equals
    the one-thread result."""
    import numpy as np
    import ndgrad
    from ndgrad import _parallel
    from ndgrad.ops import _fused
    monkeypatch.setattr(_fused, "MIN_SIZE", 1)
    rs = np.random.RandomState(1)
    F = ndgrad.nn.functional
    cases = [(rs.randn(4, 8, 10, 11), rs.randn(16, 8, 3, 3), 1), (rs.randn(4, 32, 9, 10), rs.randn(32, 32, 3, 3), 1),
             (rs.randn(4, 32, 11, 10), rs.randn(48, 32, 3, 3), 2)]

    def step(i):
        x0, w0, stride = cases[i % len(cases)]
        x = ndgrad.tensor(x0.astype(np.float32), requires_grad=True)
        w = ndgrad.tensor(w0.astype(np.float32), requires_grad=True)
        y = F.conv2d(x, w, stride=stride, padding=1)
        gx, gw = ndgrad.autograd.grad((y * y).sum(), (x, w))
        return y.detach().numpy(), gx.numpy(), gw.numpy()
    monkeypatch.setattr(_parallel, "threads", 1)
    want = [step(i) for i in range(N_THREADS)]
    monkeypatch.setattr(_parallel, "threads", 2)
    got = [None] * N_THREADS

    def target(i):
        for _ in range(5):
            got[i] = step(i)
    run_threads(target)
    for g, e in zip(got, want):
        for a, b in zip(g, e):
            assert (a == b).all()


def test_thread_count_follows_set_num_threads_and_omp_num_threads():
    import os
    import subprocess
    code = ("import ndgrad, ndgrad._parallel as p; a = (ndgrad.get_num_threads(), p.threads); "
            "ndgrad.set_num_threads(1); print(*a, p.threads, p.parts(100, 100 * p.MIN_WORK))")
    env = {**os.environ, "OMP_NUM_THREADS": "3"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "3", "1", "1"]


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_splits_kernels_on_workers_of_its_own():
    import multiprocessing
    import numpy as np
    import ndgrad
    from ndgrad import _parallel
    x = np.random.RandomState(0).randn(4 * _parallel.MIN_WORK).astype(np.float32)
    old = _parallel.threads
    _parallel.threads = 2
    try:
        want = ndgrad.relu(ndgrad.tensor(x)).sum().item()   # the parent's workers exist now
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(1) as pool:
            got = pool.apply_async(_relu_sum, (x,)).get(WAIT)
    finally:
        _parallel.threads = old
    assert got == want


def _relu_sum(x):
    import ndgrad
    return ndgrad.relu(ndgrad.tensor(x)).sum().item()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_child_forked_inside_a_one_blas_thread_block_gets_the_blas_thread_count_back():
    import multiprocessing
    from ndgrad import _native
    setter = (_native._threads_setters() or [None])[0]   # (NumPy's)
    if not setter:
        pytest.skip("NumPy's BLAS is not an OpenBLAS with openblas_set_num_threads_local")
    before = setter(3)   # a count of the user's
    try:
        with _native.one_blas_thread():   # (the fork comes from this thread, inside the block)
            with multiprocessing.get_context("fork").Pool(1) as pool:
                got = pool.apply_async(_blas_count).get(WAIT)
        assert got == 3 and setter(3) == 3
    finally:
        setter(before)


def _blas_count():
    from ndgrad import _native
    setter = (_native._threads_setters() or [None])[0]   # (NumPy's)
    count = setter(1)   # the count the child runs with (set back at once)
    setter(count)
    return count


def test_threads_sharing_fresh_tensors_at_once_share_one_version_counter(monkeypatch):
    """A tensor's version counter is made when first shared (autograd/node.version_counter): threads that
    detach, view or save the same fresh tensors at once must all get its one counter, so that an in-place
    change through any alias is seen by every alias and saved copy (torch's one counter per tensor). Making
    a counter is slowed here (it yields the GIL) so that the threads meet inside it."""
    import ndgrad
    from ndgrad.autograd import node

    made = node._output_counter
    monkeypatch.setattr(node, "_output_counter", lambda t: time.sleep(0) or made(t))
    x = ndgrad.randn(4, dtype=ndgrad.float64, requires_grad=True)
    ys = [x.exp() if k % 2 else x * 2 for k in range(60)]   # a compact saved result; an output nothing saved
    aliases, products = [[] for _ in ys], [[] for _ in ys]

    def share(i):
        for k, y in enumerate(ys):
            if i % 3 == 2:
                products[k].append(y * y)   # saves y
            else:
                aliases[k].append(y.detach() if i % 3 else y[1:])
    run_threads(share)
    for k, y in enumerate(ys):
        y.detach().add_(1)   # one change through one more alias
        assert {a._version for a in aliases[k]} == {1}, k
        for p in products[k] + ([y] if k % 2 else []):
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                p.sum().backward()
