"""ndgrad.compile's elementwise fusion (_fusion.py, where numba is installed): runs of arithmetic steps
become one compiled loop, with eager mode's numbers to the last bit (NaN, infinities, -0.0, division by
zero included), whatever the layout of the inputs. (A NaN's sign and payload may differ: which operand's
NaN an operation passes on depends on an operand order the compiler may swap.)"""
import numpy as np
import pytest

import ndgrad
from ndgrad import _fusion

pytestmark = pytest.mark.skipif(not _fusion.available(), reason="fusion needs numba (the `fast` extra)")

SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-30, -2.5, 3.0]


def same(a, b):
    """Equal to the last bit, NaN for NaN (whatever its sign and payload)."""
    a, b = np.asarray(a), np.asarray(b)
    nan = np.isnan(a)
    return a.dtype == b.dtype and np.array_equal(nan, np.isnan(b)) and a[~nan].tobytes() == b[~nan].tobytes()


def fused_runs(compiled):
    """The fused steps of a compiled function's tapes (one traced signature)."""
    (program,) = compiled.cache.values()
    tapes = [program.fwd] + ([program.bwd[0]] if program.bwd else [])
    return [s for tape in tapes for s in tape.steps if isinstance(s, _fusion._FusedStep)]


def inputs(dtype, n=64, seed=0):
    rs = np.random.RandomState(seed)
    x = rs.randn(n).astype(dtype)
    x[:len(SPECIAL)] = SPECIAL
    return x


def arithmetic(x, y):   # every form: add, sub, mul, div (by zero too), neg, relu, tanh's and sigmoid's backward
    a = ndgrad.relu(x * 2.0 - y) / (y - 3.0) + (-x)
    b = ndgrad.tanh(a).sigmoid()
    return ((b * y + 1) / x).sum()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_tapes_give_eagers_bits(dtype):
    compiled = ndgrad.compile(arithmetic)
    results = []
    for fn in (arithmetic, compiled, compiled):
        x = ndgrad.tensor(inputs(dtype), requires_grad=True)
        y = ndgrad.tensor(inputs(dtype, seed=1)[::-1].copy(), requires_grad=True)
        out = fn(x, y)
        out.backward()
        results.append([out.detach().numpy(), x.grad.numpy(), y.grad.numpy()])
    assert all(same(a, b) for r in results[1:] for a, b in zip(r, results[0]))
    runs = fused_runs(compiled)
    assert len(runs) >= 2 and sum(len(r.steps) for r in runs) >= 8   # forward and backward runs


def test_relu_and_its_backward_keep_nan_and_negative_zero():
    def f(x):
        return ndgrad.relu(x * 1.0) * 1.0
    compiled = ndgrad.compile(f)
    results = []
    for fn in (f, compiled, compiled):
        x = ndgrad.tensor(inputs(np.float64), requires_grad=True)
        out = fn(x)
        out.backward(ndgrad.ones_like(out))
        results.append((out.detach().numpy(), x.grad.numpy()))
    for o, g in results:
        assert np.isnan(o[0]) and np.signbit(o[4]) and o[3] == 0 and o[1] == np.inf and o[2] == 0
        assert g[0] == 1 and g[1] == 1 and g[2] == 0 and g[4] == 0   # (a NaN input passes the gradient)
        assert same(o, results[0][0]) and same(g, results[0][1])
    assert fused_runs(compiled)


def test_a_long_chain_becomes_loops_of_one_shape():
    def chain(x):
        for _ in range(40):
            x = ndgrad.tanh(x * 1.0001)
        return x.sum()
    compiled = ndgrad.compile(chain)
    grads = []
    for fn in (chain, compiled, compiled):
        x = ndgrad.tensor(np.linspace(-1, 1, 16), requires_grad=True)
        fn(x).backward()
        grads.append(x.grad.numpy().tobytes())
    assert grads[1] == grads[0] and grads[2] == grads[0]
    runs = fused_runs(compiled)
    assert len(runs) == 80 // _fusion.MAX_RUN and {r.source for r in runs[:-1]} == {runs[0].source}


def test_inputs_of_other_layouts_and_shapes_give_eagers_numbers():
    def f(x, y):
        return ((x * y + 1.0) * y).sum()
    compiled = ndgrad.compile(f)
    y = ndgrad.tensor(np.arange(12.0).reshape(3, 4))
    compiled(ndgrad.ones(3, 4), y)   # traced with a contiguous x
    assert fused_runs(compiled)
    x = ndgrad.tensor(np.arange(12.0).reshape(4, 3) / 7).t()   # (3, 4), not C-contiguous: copied for the loop
    assert compiled(x, y).item() == f(x, y).item()
    x = ndgrad.tensor(np.arange(4.0) / 7).expand(3, 4)   # zero strides
    assert compiled(x, y).item() == f(x, y).item()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_bias_along_the_last_dim_joins_the_loop(dtype):
    def f(x, w, b):
        return (ndgrad.relu(x @ w + b) * 2.0 - b).sum()
    compiled = ndgrad.compile(f)
    rs = np.random.RandomState(0)
    x = ndgrad.tensor(rs.randn(6, 5, 3).astype(dtype))
    w = ndgrad.tensor(rs.randn(3, 8).astype(dtype), requires_grad=True)
    b = ndgrad.tensor(inputs(dtype, n=8), requires_grad=True)   # (NaN, inf, -inf, +-0.0 in the bias)
    results = []
    for fn in (f, compiled, compiled):
        w.grad = b.grad = None
        out = fn(x, w, b)
        out.backward()
        results.append([out.detach().numpy(), w.grad.numpy(), b.grad.numpy()])
    assert all(same(a, e) for r in results[1:] for a, e in zip(r, results[0]))
    (vector_run,) = [r for r in fused_runs(compiled) if (8,) in r.in_shapes]
    assert len(vector_run.steps) == 4   # add (the bias), relu, mul, sub (the bias again)
