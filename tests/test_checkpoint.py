"""utils.checkpoint: checkpoint and checkpoint_sequential recompute in backward with the same
random state and give the same gradients as running without them, in both variants
(use_reentrant=True / False), while the graph saves fewer bytes (measured with graph.summary).
"""
import importlib
import warnings

import pytest

from parity import LIBS, both, same_error

import ndgrad
from ndgrad.autograd import graph
from ndgrad.utils.checkpoint import checkpoint, checkpoint_sequential


def ck(T):
    return importlib.import_module(T.__name__ + ".utils.checkpoint")


def block(T, w):
    """A function with dropout inside: recomputation must replay the random state."""
    return lambda a: T.nn.functional.dropout((a @ w).tanh(), 0.5, training=True).exp()


def grads_with_and_without(T, reentrant):
    T.manual_seed(0)
    x = T.randn(4, 5, dtype=T.float64, requires_grad=True)
    w = T.randn(5, 5, dtype=T.float64, requires_grad=True)
    f = block(T, w)
    T.manual_seed(1)
    y = ck(T).checkpoint(f, x, use_reentrant=reentrant)
    (y * y).sum().backward()
    with_ck = [y, x.grad, w.grad, y.grad_fn.name()]
    x.grad = w.grad = None
    T.manual_seed(1)
    y = f(x)
    (y * y).sum().backward()
    return with_ck + [y, x.grad, w.grad]


@pytest.mark.parametrize("reentrant", [False, True])
@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_checkpoint_gives_the_gradients_of_the_plain_call(T, reentrant):
    y, gx, gw, name, y0, gx0, gw0 = grads_with_and_without(T, reentrant)
    assert name == ("CheckpointFunctionBackward" if reentrant else "ExpBackward0")
    for a, b in [(y, y0), (gx, gx0), (gw, gw0)]:
        assert T.equal(a, b)


def test_checkpoint_matches_torch():
    def scenario(T):
        x = T.tensor([[0.3, -0.7], [1.1, 0.2]], dtype=T.float64, requires_grad=True)
        w = T.tensor([[0.5, -1.0], [2.0, 0.1]], dtype=T.float64, requires_grad=True)
        out = []
        for reentrant in (False, True):
            y = ck(T).checkpoint(lambda a, b: (a @ b).tanh() * a, x, w, use_reentrant=reentrant)
            y.sum().backward()
            out += [y, x.grad, w.grad]
            x.grad = w.grad = None
        return out
    r = both(scenario)
    assert all((a == b).all() for a, b in zip(r[:3], r[3:]))


def test_checkpoint_without_rng_preservation_draws_a_new_mask():
    ndgrad.manual_seed(0)
    x = ndgrad.ones(200, dtype=ndgrad.float64, requires_grad=True)
    f = lambda a: ndgrad.nn.functional.dropout(a * 1, 0.5, training=True).sin()   # noqa: E731
    y = checkpoint(f, x, use_reentrant=True, preserve_rng_state=False)
    y.sum().backward()
    kept = (y != 0).double()
    # the gradient uses the recomputation's mask, which differs from the forward's
    assert not ndgrad.equal((x.grad != 0).double(), kept)


def test_checkpoint_saves_fewer_bytes():
    ndgrad.manual_seed(0)
    x = ndgrad.randn(64, 32, dtype=ndgrad.float64, requires_grad=True)
    w = ndgrad.randn(32, 32, dtype=ndgrad.float64, requires_grad=True)

    def deep(a):
        for _ in range(4):
            a = (a @ w).tanh().exp()
        return a
    plain = graph.summary(deep(x).sum())
    checked = graph.summary(checkpoint(deep, x, use_reentrant=False).sum())
    activation = 64 * 32 * 8
    # x, w, and per layer the tanh and exp results (each layer's matmul input is the previous exp)
    assert plain.total_saved_bytes == 9 * activation + 32 * 32 * 8
    assert checked.total_saved_bytes == 0                         # only placeholders inside
    assert checked.counts == plain.counts                        # the same graph, without its memory
    reentrant = graph.summary(checkpoint(deep, x, use_reentrant=True).sum())
    assert reentrant.counts["CheckpointFunctionBackward"] == 1
    assert reentrant.total_saved_bytes == activation              # just the input


def test_checkpoint_supports_double_backward():
    def scenario(T):
        x = T.tensor([0.3, -0.7, 1.1], dtype=T.float64, requires_grad=True)
        y = ck(T).checkpoint(lambda a: (a.sin() * a).exp(), x, use_reentrant=False).sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        return [g, gg]
    both(scenario)


@pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
def test_checkpoint_sequential_matches_the_plain_model(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(5, 5), T.nn.Tanh(), T.nn.Linear(5, 5), T.nn.Tanh(), T.nn.Linear(5, 2))
    model = model.double()
    x = T.randn(3, 5, dtype=T.float64, requires_grad=True)
    results = []
    for run in (lambda: ck(T).checkpoint_sequential(model, 2, x, use_reentrant=False),
                lambda: ck(T).checkpoint_sequential(model, 3, x, use_reentrant=True), lambda: model(x)):
        y = run()
        y.sum().backward()
        results.append([y.detach(), x.grad, model[0].weight.grad])
        x.grad = None
        model.zero_grad()
    for got in results[:2]:
        for a, b in zip(got, results[2]):
            assert T.allclose(a, b, rtol=0, atol=1e-12)


def test_checkpoint_sequential_segments_run_the_functions_in_order():
    calls = []
    # a * a saves its input (a * 2 would save nothing, and then nothing is recomputed, as in torch)
    fns = [lambda a, i=i: calls.append(i) or a * a for i in range(5)]
    x = ndgrad.ones(2, requires_grad=True)
    y = checkpoint_sequential(fns, 2, x, use_reentrant=False)
    assert calls == [0, 1, 2, 3, 4]
    y.sum().backward()
    assert calls == [0, 1, 2, 3, 4, 0, 1]    # the checkpointed first segment is rerun
    assert x.grad.tolist() == [32.0, 32.0]


def test_reentrant_checkpoint_refuses_autograd_grad():
    def call(T):
        x = T.ones(3, requires_grad=True)
        y = ck(T).checkpoint(T.sin, x, use_reentrant=True)
        T.autograd.grad(y.sum(), x)
    assert "incompatible with .grad()" in same_error(call)


def test_checkpoint_argument_errors_and_warnings():
    same_error(lambda T: ck(T).checkpoint(T.sin, T.ones(2, requires_grad=True), use_reentrant=True, foo=1),
               ValueError)
    for T in LIBS:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = ck(T).checkpoint(T.sin, T.ones(2), use_reentrant=True)
        assert not y.requires_grad
        assert any("None of the inputs have requires_grad=True" in str(m.message) for m in w)
        with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
            ck(T).checkpoint(T.sin, T.ones(2, requires_grad=True))
