"""ndgrad.compile's replay fast paths: arrays freed after their last use, elementwise steps without
checks and with folded Python numbers, `.backward()` without the engine's pass. Each must give eager
mode's numbers to the last bit, and hand back to the general path wherever something could see the
difference (hooks, retain_graph, anomaly mode, forward AD, non-leaf inputs, several outputs)."""
import warnings

import numpy as np
import pytest

import ndgrad
from ndgrad import _fusion, compiler, nn
from ndgrad.ops import normalization
from ndgrad.autograd import forward_ad as fwAD


def bits(t):
    return t.detach().numpy().tobytes()


def params(seed=0, dtype=ndgrad.float64):
    g = ndgrad.Generator().manual_seed(seed)
    return [ndgrad.randn(5, 4, dtype=dtype, generator=g).requires_grad_(),
            ndgrad.randn(4, dtype=dtype, generator=g).requires_grad_()]


def loss_of(w, b):
    def loss(x):
        return ((x @ w + b).tanh() * 1.0001 - 0.5).pow(2).mean()
    return loss


def grads_after(fn, ps, x, calls=1, **backward_kwargs):
    for p in ps:
        p.grad = None
    values = []
    for _ in range(calls):
        out = fn(x)
        out.backward(**backward_kwargs)
        values.append(bits(out))
    return values, [bits(p.grad) for p in ps]


@pytest.mark.parametrize("dtype", [ndgrad.float64, ndgrad.float32])
def test_replayed_steps_and_the_fast_backward_equal_eager_to_the_bit(dtype, monkeypatch):
    monkeypatch.setattr(_fusion, "enabled", False)   # (the steps counted below, unfused: see test_compile_fusion)
    ps = params(dtype=dtype)
    eager, compiled = loss_of(*ps), ndgrad.compile(loss_of(*ps))
    x = ndgrad.randn(3, 5, dtype=dtype)
    compiled(x)   # the trace
    assert grads_after(compiled, ps, x, calls=3) == grads_after(eager, ps, x, calls=3)   # accumulated 3 times
    (program,) = compiled.cache.values()
    # the elementwise ufunc steps (tanh, the product, and the add and sub, np.add and np.subtract with
    # alpha=1) are written without checks, the others with
    steps = program.fwd.steps
    unchecked = [type(getattr(s.forward, "replay", None) or getattr(s.forward, "kernel", None)) is np.ufunc
                 and s.shapes[0] != () for s in steps]
    assert sum(unchecked) == 2 and program.fwd.source.count("raise _Mismatch") == len(steps) - 4


def test_python_numbers_folded_into_ufunc_steps_give_eager_values():
    def f(x, n):
        return (x * 1.0001 + 3, x / 7.3, 2 ** x, x > 0.25, n * 3 - 1, n // 2, n * 0.5, (x * 1e40).abs())

    g = ndgrad.compile(f)
    for dtype in (ndgrad.float16, ndgrad.float32, ndgrad.float64):
        x, n = ndgrad.linspace(-2, 2, 7, dtype=dtype), ndgrad.arange(-3, 4, dtype=ndgrad.int32)
        expected = f(x, n)
        for _ in range(2):
            got = g(x, n)
            assert [(r.dtype, bits(r)) for r in got] == [(r.dtype, bits(r)) for r in expected]


def test_forwards_with_keyword_only_arguments_are_called_directly(monkeypatch):
    monkeypatch.setattr(_fusion, "enabled", False)   # (the unfused tape's calls are counted below)
    def f(x, y):
        return (ndgrad.add(x, y, alpha=2) - ndgrad.sub(y, x, alpha=0.5) * y).sum()

    g = ndgrad.compile(f)
    x = ndgrad.randn(4, dtype=ndgrad.float64, requires_grad=True)
    y = ndgrad.randn(4, dtype=ndgrad.float64)
    for _ in range(3):
        ga, gb = ndgrad.autograd.grad(f(x, y), x)[0], ndgrad.autograd.grad(g(x, y), x)[0]
        assert bits(f(x, y)) == bits(g(x, y)) and bits(ga) == bits(gb)
    (program,) = g.cache.values()
    # add's and sub's alpha, sum's dtype: without the glue's wrapper; `-` (alpha=1) is np.subtract itself
    assert program.fwd.source.count("**kw") == 3
    assert np.subtract in program.fwd.__globals__.values()


def test_the_same_tensor_passed_twice_gets_its_gradient_once():
    w = ndgrad.tensor([1.0, 2.0], requires_grad=True)
    f = ndgrad.compile(lambda a, b: (a * b).sum())
    for _ in range(3):   # the trace, then replays
        w.grad = None
        out = f(w, w)
        out.backward()
        assert w.grad.tolist() == [2.0, 4.0]
    # one edge per input tensor, as a custom Function's node has (here the same leaf's, twice)
    assert [n.name() for n, _ in out.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"] * 2
    x = ndgrad.ones(2)
    f(x, w)
    assert [n and n.name() for n, _ in f(x, w).grad_fn.next_functions] == [None, "torch::autograd::AccumulateGrad"]


def test_a_replay_keeps_only_the_values_its_backward_reads():
    w = ndgrad.randn(4, 4, dtype=ndgrad.float64, requires_grad=True)
    f = ndgrad.compile(lambda x: (x @ w).exp().sin().sum())
    x = ndgrad.randn(3, 4, dtype=ndgrad.float64)
    f(x)
    out = f(x)
    node = out.grad_fn
    kept = [v for v in node.vals if v is not None]
    assert 0 < len(kept) < len(node.program.fwd.steps)   # (x, w, the matmul, exp and sin values, ...)
    out.backward()
    assert node.vals is None   # freed with the graph, as saved tensors are
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        out.backward()
    out, w.grad = f(x), None
    out.backward(retain_graph=True)
    first = w.grad.clone()
    out.backward()                # retained: runs again, and accumulates
    assert np.array_equal(w.grad.numpy(), 2 * first.numpy())


def test_hooks_retain_grad_and_post_accumulate_hooks_see_what_eager_gives():
    def run(fn, w, b, x):
        seen = []
        handles = [w.register_hook(lambda g: seen.append(("w", g.clone())) or g * 2),
                   b.register_post_accumulate_grad_hook(lambda p: seen.append(("b", p.grad.clone())))]
        w.grad = b.grad = None
        out = fn(x)
        out.retain_grad()
        out.backward()
        for h in handles:
            h.remove()
        return sorted((k, bits(v)) for k, v in seen) + [bits(out.grad), bits(w.grad), bits(b.grad)]

    ps = params(1)
    compiled = ndgrad.compile(loss_of(*ps))
    x = ndgrad.randn(2, 5, dtype=ndgrad.float64)
    compiled(x)
    assert run(compiled, *ps, x) == run(loss_of(*ps), *ps, x)
    # and afterwards, without hooks, the fast path accumulates as before
    assert grads_after(compiled, ps, x) == grads_after(loss_of(*ps), ps, x)


def test_post_accumulate_hooks_run_inside_the_engines_pass():
    w = ndgrad.randn(3, dtype=ndgrad.float64, requires_grad=True)
    f = ndgrad.compile(lambda x: (x * w).sum())
    x = ndgrad.randn(3, dtype=ndgrad.float64)
    f(x)
    ids = []
    w.register_post_accumulate_grad_hook(lambda p: ids.append(ndgrad._C._current_graph_task_id()))
    f(x).backward()
    assert len(ids) == 1 and ids[0] >= 0   # (-1 outside a backward pass)
    assert w.grad.tolist() == x.tolist()


def test_non_leaf_inputs_several_outputs_and_autograd_grad_take_the_engine():
    w = ndgrad.randn(3, dtype=ndgrad.float64, requires_grad=True)

    def f(x):
        return (x * x).sum(), (x.exp() * 2).sum()

    g = ndgrad.compile(f)
    for _ in range(3):
        for fn in (f, g):
            w.grad = None
            a, b = fn(w * 3)             # a non-leaf input: its gradient flows on through MulBackward0
            a.backward()                 # only one of two outputs: the other's gradient is zeros
            ga = bits(w.grad)
            (gb,) = ndgrad.autograd.grad(fn(w * 3)[1], w)
            if fn is f:
                expected = (ga, bits(gb))
            else:
                assert (ga, bits(gb)) == expected


def test_create_graph_and_anomaly_mode():
    w = ndgrad.randn(3, dtype=ndgrad.float64, requires_grad=True)
    f = ndgrad.compile(lambda x: (x * w).tanh().sum())
    x = ndgrad.randn(3, dtype=ndgrad.float64)
    f(x)
    with pytest.raises(RuntimeError, match="^torch.compile with aot_autograd does not currently support double "
                                           "backward$"), pytest.warns(UserWarning, match="create_graph=True"):
        f(x).backward(create_graph=True)
    w.grad = None
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), ndgrad.autograd.detect_anomaly():
        out = f(x)
        assert "traceback_" in out.grad_fn.metadata   # the forward's stack, recorded as for any node
        out.backward()
    expected = ndgrad.autograd.grad((x * w).tanh().sum(), w)[0]
    assert bits(w.grad) == bits(expected)


def test_forward_ad_runs_the_function_eagerly():
    f = ndgrad.compile(lambda x: (x * 2).sin())
    x, t = ndgrad.tensor([0.5, 1.0], dtype=ndgrad.float64), ndgrad.tensor([1.0, -1.0], dtype=ndgrad.float64)
    f(x)
    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, t))
        tangent = fwAD.unpack_dual(out).tangent
    assert np.array_equal(tangent.numpy(), (2 * (x * 2).cos() * t).numpy())


def test_a_compiled_module_trains_as_eager_with_the_fast_backward():
    def make():
        ndgrad.manual_seed(3)
        return nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)).double()

    eager, model = make(), make()
    compiled = ndgrad.compile(lambda x, y: nn.functional.cross_entropy(model(x), y))   # the loss's node: the tape's
    g = ndgrad.Generator().manual_seed(0)
    for _ in range(4):
        x, y = ndgrad.randn(6, 5, dtype=ndgrad.float64, generator=g), ndgrad.randint(0, 3, (6,), generator=g)
        losses = []
        for m, fn in ((eager, lambda x, y: nn.functional.cross_entropy(eager(x), y)), (model, compiled)):
            m.zero_grad()
            loss = fn(x, y)
            loss.backward()
            with ndgrad.no_grad():
                for p in m.parameters():
                    p -= 0.1 * p.grad
            losses.append(bits(loss))
        assert losses[0] == losses[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for p, q in zip(eager.parameters(), model.parameters()):
            assert bits(p) == bits(q)


def test_replay_kernels_skip_the_checks_the_guard_made_and_give_eager_bits():
    # mm, addmm (nn.Linear), relu, sum over dims and nll_loss (a step with two outputs) run their
    # check-free `replay` kernels in the tapes: the same values and gradients as eager mode
    ndgrad.manual_seed(5)
    lin = nn.Linear(6, 5).double()
    w = ndgrad.randn(5, 4, dtype=ndgrad.float64, requires_grad=True)

    def loss(x, y):
        h = (lin(x).relu() @ w).relu()
        return nn.functional.cross_entropy(h, y) + h.sum((-1,), keepdim=True).sum((0, 1)) * 1e-3 + h.sum(())

    compiled = ndgrad.compile(loss)
    ps = list(lin.parameters()) + [w]
    g = ndgrad.Generator().manual_seed(1)
    for k in range(3):
        x, y = ndgrad.randn(7, 6, dtype=ndgrad.float64, generator=g), ndgrad.randint(0, 4, (7,), generator=g)
        got = []
        for fn in (loss, compiled):
            for p in ps:
                p.grad = None
            out = fn(x, y)
            out.backward()
            got.append((bits(out), [bits(p.grad) for p in ps]))
        assert got[0] == got[1]
    (program,) = compiled.cache.values()
    called = {getattr(v, "__name__", None) for v in program.fwd.__globals__.values()} | \
        {getattr(v, "__name__", None) for v in program.bwd[0].__globals__.values()}
    assert {"_product", "_addmm_replay", "_relu_replay", "_sum_dim_replay", "_nll_loss_replay"} <= called
    # a target out of range is still found by the replay (a check on values): eager's error
    with pytest.raises(IndexError, match="^Target 9 is out of bounds.$"):
        compiled(x, ndgrad.tensor([0, 1, 2, 3, 0, 1, 9]))


def test_large_elementwise_steps_reuse_dead_buffers_and_give_eager_bits_and_layouts():
    # an add, sub, product or relu over a large intermediate that nothing reads afterwards writes into its
    # buffer (out=); one another value or a returned view still sees, or a non-contiguous one, is left alone
    g = ndgrad.Generator().manual_seed(3)
    for dtype in (ndgrad.float64, ndgrad.float32):
        w = ndgrad.randn(128, 128, dtype=dtype, generator=g).requires_grad_()
        b = ndgrad.randn(128, dtype=dtype, generator=g).requires_grad_()
        c = ndgrad.randn(128, 160, dtype=dtype, generator=g)

        def f(x):
            h = (x @ w + b).relu()               # the add into the product, the relu into the sum
            seen = h[:, :5]                      # a returned view of the relu's result: it keeps its buffer
            t = (x @ w).t() + c                  # a transposed operand: a fresh result, as eager's
            u = (h * 2 - 1) @ w                  # (h is saved by the product's backward: not reused)
            rows = (x @ w)[16:] * 3              # rows of a dead buffer: a result with a storage of its own
            full = (x @ w).reshape(-1) * 3       # all of it, reshaped: the product is written there
            return (u + 1).pow(2).mean() + t.sum(), seen, t, rows, full

        compiled = ndgrad.compile(f)
        x = ndgrad.randn(160, 128, dtype=dtype, generator=g)
        compiled(x)
        for _ in range(2):
            got, want = [], []
            for fn, into in ((compiled, got), (f, want)):
                w.grad = b.grad = None
                loss, seen, t, rows, full = fn(x)
                loss.backward()
                into += [bits(loss), bits(seen), bits(t), t.stride(), seen.stride(), bits(w.grad), bits(b.grad),
                         bits(rows), rows.storage_offset(), rows.untyped_storage().nbytes(), bits(full),
                         full.untyped_storage().nbytes()]
                reused = full._array.base is not None   # (the product's buffer, seen through the reshape)
            assert got == want and not reused
            loss, seen, t, rows, full = compiled(x)
            # (where reference counts are exact: CPython with the GIL, before 3.14)
            assert (full._array.base is not None) == compiler._COUNTS_EXACT and rows._array.base is None
        (program,) = compiled.cache.values()
        if compiler._COUNTS_EXACT:
            assert program.fwd.source.count("out=") >= 3 and "out=" in program.bwd[0].source


def test_gelu_tanh_keeps_its_tanh_for_the_backward_with_eager_bits():
    # the tape's forward keeps GELU(tanh)'s tanh and its backward reads it (not computed twice); the
    # exact form recomputes as eager does; both give eager mode's bits, values and gradients
    g = ndgrad.Generator().manual_seed(4)
    for dtype in (ndgrad.float64, ndgrad.float32):
        w = ndgrad.randn(16, 24, dtype=dtype, generator=g).requires_grad_()

        def f(x):
            h = x @ w
            gelu = nn.functional.gelu
            # (a transposed input: the kept tanh is C-contiguous, as the kernels' blocks are)
            return (gelu(h, approximate="tanh") * gelu(h * 0.5)).sum() + gelu(h.t(), approximate="tanh").mean()

        compiled = ndgrad.compile(f)
        x = ndgrad.randn(40, 16, dtype=dtype, generator=g)
        compiled(x)
        for fn in (compiled, f):
            w.grad = None
            out = fn(x)
            out.backward()
            if fn is compiled:
                got = (bits(out), bits(w.grad))
        assert got == (bits(out), bits(w.grad))
        (program,) = compiled.cache.values()
        names = [getattr(v, "__name__", "") for v in program.fwd.__globals__.values()]
        back = [getattr(v, "__name__", "") for v in program.bwd[0].__globals__.values()]
        assert names.count("_gelu_tanh_keeping") == 2 and back.count("_gelu_tanh_backward_kept") == 2
        assert back.count("_gelu_backward") == 1   # the exact GELU's backward, as eager's


def test_layer_norm_keeps_its_normalized_input_for_the_backward_with_eager_bits():
    # with a weight, the tape's forward keeps xhat = (x - mean) * rstd for the backward (which then
    # does not compute it again); without one, the backward recomputes it as eager's does
    g = ndgrad.Generator().manual_seed(6)
    F = nn.functional
    for dtype in (ndgrad.float64, ndgrad.float32):
        w = ndgrad.randn(6, 8, dtype=dtype, generator=g).requires_grad_()
        lw = ndgrad.randn(8, dtype=dtype, generator=g).requires_grad_()
        lb = ndgrad.randn(8, dtype=dtype, generator=g).requires_grad_()
        w2 = ndgrad.randn(4, 8, dtype=dtype, generator=g).requires_grad_()
        ps = [w, lw, lb, w2]

        def f(x):
            h = x @ w
            a = F.layer_norm(h, (8,), lw, lb)                      # kept
            b = F.layer_norm(h * 2, (8,), lw)                      # kept (no bias)
            c = F.layer_norm(h - 1, (8,))                          # recomputed (no weight)
            d = F.layer_norm(h.reshape(5, 4, 8), (4, 8), w2)       # kept, over two dims
            return (a * b).sum() + (c * c).mean() + d.pow(2).sum(), a

        compiled = ndgrad.compile(f)
        x = ndgrad.randn(20, 6, dtype=dtype, generator=g)
        compiled(x)
        got = []
        for fn in (compiled, f):
            for p in ps:
                p.grad = None
            out, a = fn(x)
            out.backward()
            got.append([bits(out), bits(a)] + [bits(p.grad) for p in ps])
        assert got[0] == got[1]
        (program,) = compiled.cache.values()
        names = [getattr(v, "__name__", "") for v in program.fwd.__globals__.values()]
        assert names.count("_layer_norm_keeping") == 3 and names.count("native_layer_norm") == 1
        assert sum(getattr(getattr(v, "__self__", None), "forward", None) is normalization._layer_norm_backward_kept
                   for v in program.bwd[0].__globals__.values()) == 3


def test_softmax_and_its_backward_write_into_dead_operands_with_eager_bits():
    # attention-like scores: softmax writes into its dead input, its backward into the dead incoming
    # gradient; where the scores are read again (the second softmax's input), a fresh result, as eager's
    g = ndgrad.Generator().manual_seed(7)
    F = nn.functional
    for dtype in (ndgrad.float64, ndgrad.float32):
        w = ndgrad.randn(64, 64, dtype=dtype, generator=g).requires_grad_()
        mask = ndgrad.rand(128, 128, generator=g) > 0.7

        def f(x):
            scores = (x @ w @ x.t()).masked_fill(mask, float("-inf"))
            p = F.softmax(scores * 0.125, dim=-1)                  # the product dies here: reused
            kept = x @ w @ x.t()
            q = F.softmax(kept, dim=0)                             # read again below: not reused
            return (p @ x).pow(2).sum() + (q * kept).sum(), p

        compiled = ndgrad.compile(f)
        x = ndgrad.randn(128, 64, dtype=dtype, generator=g)
        compiled(x)
        got = []
        for fn in (compiled, f):
            w.grad = None
            out, p = fn(x)
            out.backward()
            got.append([bits(out), bits(p), p.stride(), p.untyped_storage().nbytes(), bits(w.grad)])
        assert got[0] == got[1]
        (program,) = compiled.cache.values()
        names = [k for k, v in program.fwd.__globals__.items() if getattr(v, "__name__", "") == "_softmax_replay"]
        calls = [line for line in program.fwd.source.splitlines() if any(f"{n}(" in line for n in names)]
        assert len(calls) == 2
        if compiler._COUNTS_EXACT:   # the first softmax only; and the backward's
            assert ["out=into" in line for line in calls] == [True, False] and "out=into" in program.bwd[0].source
