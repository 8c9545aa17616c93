"""Split backward of a pipeline stage: input pass (I) + weight pass (W) == one full backward.

Each scenario builds a stage's computation from the same NumPy values; the split result is
compared with ndgrad's own full backward and, through tests/parity.py, with torch's
torch.distributed.pipelining._backward run on the same scenario.
"""
import importlib

import numpy as np
import pytest

import ndgrad
from parity import parity

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
W1, B1 = rng.standard_normal((5, 4)), rng.standard_normal(5)
W2 = rng.standard_normal((5, 5))
G = rng.standard_normal((3, 5))


def _bw(T):
    return importlib.import_module(T.__name__ + ".distributed.pipelining._backward")


def mlp(T, x, w):      # two layers; W1 and B1 meet the input inside addmm
    return T.tanh(T.nn.functional.linear(x, w[0], w[1])) @ w[2]


def tied(T, x, w):     # one weight used three times
    return (x @ w[0].T) @ w[0] + x * w[0].sum()


def nested(T, x, w):   # h is weight-only; one intermediate (mul) lies below another (add)
    h = w[0] * 2.0
    return h * x + h


def with_loss(T, x, w):
    return ((T.nn.functional.linear(x, w[0], w[1]) - 1.0) ** 2).mean()


def two_outputs(T, x, w):  # the second output depends on the weights alone
    return [x @ w[0].T, w[0].sum(1) * 3.0 + x.sum()]


SCENARIOS = {  # name: (stage function, weights, gradient of the output(s) or None for a loss)
    "mlp": (mlp, [W1, B1, W2], G),
    "tied": (tied, [np.eye(4) + 0.1 * X[:, :4].T @ X[:, :4]], rng.standard_normal((3, 4))),
    "nested": (nested, [X * 0.5], X + 1.0),
    "loss": (with_loss, [W1, B1], None),
    "two_outputs": (two_outputs, [W1], [G, rng.standard_normal(5)]),
}


def _setup(T, name, input_requires_grad, w=None):
    fn, weights, grads = SCENARIOS[name]
    x = T.tensor(X, requires_grad=input_requires_grad)
    w = w or [T.tensor(v, requires_grad=True) for v in weights]
    if grads is not None:
        grads = [T.tensor(g) for g in grads] if isinstance(grads, list) else [T.tensor(grads)]
    out = fn(T, x, w)
    return x, w, (out if isinstance(out, list) else [out]), grads


def split(T, name, input_requires_grad=True, microbatches=1):
    """I then W, `microbatches` times (weight gradients accumulate); returns [dx, dw...], I's result."""
    bw = _bw(T)
    w = None
    for _ in range(microbatches):
        x, w, outs, grads = _setup(T, name, input_requires_grad, w)
        dinputs, groups = bw.stage_backward_input(outs, grads, [x], w)
        assert all(o.grad_fn is None for o in outs)      # the outputs' graph is let go
        bw.stage_backward_weight(w, groups)
    return [x.grad] + [p.grad for p in w], dinputs


def full(T, name, input_requires_grad=True):
    x, w, outs, grads = _setup(T, name, input_requires_grad)
    T.autograd.backward(outs, grads)
    return [x.grad] + [p.grad for p in w]


def _close(a, b):
    for u, v in zip(a, b):
        assert (u is None) == (v is None)
        if u is not None:
            np.testing.assert_allclose(u.detach().numpy(), v.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_input_plus_weight_equals_full_backward(name, input_requires_grad):
    grads, dinputs = split(ndgrad, name, input_requires_grad)
    _close(grads, full(ndgrad, name, input_requires_grad))
    assert (dinputs[0] is None) == (not input_requires_grad)


@pytest.mark.parametrize("name", SCENARIOS)
def test_matches_torch_pipelining_backward(name):
    parity(lambda T: split(T, name)[0], rtol=1e-12, atol=1e-12)


def test_input_pass_leaves_weight_gradients_for_later():
    x, w, outs, grads = _setup(ndgrad, "mlp", True)
    dinputs, groups = _bw(ndgrad).stage_backward_input(outs, grads, [x], w)
    assert all(p.grad is None for p in w) and x.grad is dinputs[0]
    assert {n.name() for n in groups[0]["intermediates"]} == {"AddmmBackward0", "MmBackward0"}
    _bw(ndgrad).stage_backward_weight(w, groups)
    _close([x.grad] + [p.grad for p in w], full(ndgrad, "mlp"))


def test_gradients_accumulate_over_microbatches():
    expected = full(ndgrad, "mlp")
    _close(split(ndgrad, "mlp", microbatches=2)[0], expected[:1] + [2 * g for g in expected[1:]])


def test_tied_weight_listed_twice_is_counted_once():
    x, w, outs, grads = _setup(ndgrad, "tied", True)
    _, groups = _bw(ndgrad).stage_backward_input(outs, grads, [x], w + w)
    _bw(ndgrad).stage_backward_weight(w + w, groups)
    _close([w[0].grad], full(ndgrad, "tied")[1:])


def test_weight_pass_frees_the_graph_unless_retained():
    x, w, outs, grads = _setup(ndgrad, "mlp", True)
    _, groups = _bw(ndgrad).stage_backward_input(outs, grads, [x], w)
    node = groups[0]["intermediates"][0]
    _bw(ndgrad).stage_backward_weight(w, groups)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        node._unpack_saved()


def test_full_stage_backward_returns_input_grads():
    bw = _bw(ndgrad)
    x, w, outs, grads = _setup(ndgrad, "mlp", True)
    (dx,) = bw.stage_backward(outs[0], grads[0], [x])
    _close([dx] + [p.grad for p in w], full(ndgrad, "mlp"))
    x, w, outs, _ = _setup(ndgrad, "loss", True)
    (dx,) = bw.stage_backward(outs[0], None, [x])
    _close([dx] + [p.grad for p in w], full(ndgrad, "loss"))


def test_stage_backward_error_names_the_shapes():
    x, w, outs, _ = _setup(ndgrad, "mlp", True)
    with pytest.raises(RuntimeError, match=r"Failed to run stage backward: stage output Tensor\(3, 5\)"):
        _bw(ndgrad).stage_backward(outs[0], ndgrad.ones(2, 5), [x])
