"""ndgrad.compile: a traced replay that gives eager mode's numbers exactly, falls back to eager
where a tape cannot follow the function, and re-traces when a guard fails."""
import warnings

import numpy as np
import pytest

import ndgrad
from ndgrad import nn


def mlp():
    ndgrad.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 12), nn.ReLU(), nn.Linear(12, 3)).double()


def train(model, steps, seed=1):
    g = ndgrad.Generator().manual_seed(seed)
    opt = ndgrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(steps):
        x = ndgrad.randn(8, 6, dtype=ndgrad.float64, generator=g)
        y = ndgrad.randint(0, 3, (8,), generator=g)
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach().numpy().copy())
    return losses


def test_compiled_training_equals_eager_to_the_bit():
    eager, compiled_model = mlp(), mlp()
    compiled = ndgrad.compile(compiled_model)
    assert train(compiled, 5) == pytest.approx(train(eager, 5), rel=0, abs=0)
    for p, q in zip(eager.parameters(), compiled_model.parameters()):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())
    (program,) = compiled._compiled.cache.values()      # one signature, traced once and replayed
    assert not isinstance(program, str) and len(program.fwd.steps) > 5 and len(program.bwd[0].steps) > 5
    out = compiled(ndgrad.ones(8, 6, dtype=ndgrad.float64))   # the traced signature: a replay
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    assert {n.name() for n, _ in out.grad_fn.next_functions if n is not None} == {"torch::autograd::AccumulateGrad"}


def test_a_compiled_function_gives_eager_values_and_gradients():
    def f(x, w):
        h = (x @ w).tanh() * 2.0
        return h.sum(0).exp().mean(), h.max()

    g = ndgrad.compile(f)
    x = ndgrad.randn(4, 3, dtype=ndgrad.float64)
    w = ndgrad.randn(3, 5, dtype=ndgrad.float64, requires_grad=True)
    for scale in (1.0, 0.5, -2.0):   # the first call traces, the others replay
        x2 = x * scale
        a, b = f(x2, w)
        (ga,) = ndgrad.autograd.grad(a + b, w)
        c, d = g(x2, w)
        (gc,) = ndgrad.autograd.grad(c + d, w)
        assert a.item() == c.item() and b.item() == d.item()
        assert np.array_equal(ga.numpy(), gc.numpy())
    assert len(g.cache) == 1


def test_captured_tensors_are_read_afresh_at_each_replay():
    w = ndgrad.ones(3, dtype=ndgrad.float64)
    f = ndgrad.compile(lambda x: (x * w).sum())
    x = ndgrad.arange(3.0, dtype=ndgrad.float64)
    assert f(x).item() == 3.0 and f(x).item() == 3.0
    with ndgrad.no_grad():
        w.mul_(2)
    assert f(x).item() == 6.0


@pytest.mark.parametrize("body, reason", [
    (lambda x: x * x.sum().item(), "reads tensor data into Python (Tensor.item)"),
    (lambda x: x * 2 if bool(x.sum() > 0) else x * 3, "reads tensor data into Python (Tensor.__bool__)"),
    (lambda x: print(x) or x * 2, "reads tensor data into Python (Tensor.__repr__)"),
    (lambda x: x.clone().requires_grad_() * 2, "makes tensors that require grad from no input that does"),
])
def test_untraceable_functions_run_eagerly_and_say_why(body, reason, capsys):
    x = ndgrad.arange(4.0)
    expected = body(x)
    f = ndgrad.compile(body)
    for _ in range(3):
        assert np.array_equal(f(x).detach().numpy(), expected.detach().numpy())
    assert f.reasons() == [f"it {reason}"]
    assert ndgrad.compiler.explain(body)(x) == f"it {reason}"
    with pytest.raises(ndgrad.compiler.Unsupported, match="fullgraph=True"):
        ndgrad.compile(body, fullgraph=True)(x)


def test_in_place_change_of_a_tensor_that_requires_grad_is_refused():
    w = ndgrad.ones(3, requires_grad=True)

    def f(x):
        y = x * w
        y.mul_(2)
        return y.sum()
    g = ndgrad.compile(f)
    assert g(ndgrad.ones(3)).item() == 6.0 and g(ndgrad.ones(3)).item() == 6.0
    assert g.reasons() == ["it changes a tensor that requires grad in place ('mul.Tensor_')"]


def test_guards_retrace_on_new_shapes_dtypes_and_grad_mode():
    f = ndgrad.compile(lambda x: (x * 3).sum())
    f(ndgrad.ones(2))
    f(ndgrad.ones(2))
    f(ndgrad.ones(3))
    f(ndgrad.ones(3, dtype=ndgrad.float64))
    f(ndgrad.ones(3, requires_grad=True))
    with ndgrad.no_grad():
        f(ndgrad.ones(3, requires_grad=True))
    assert len(f.cache) == 5
    ndgrad.compiler.reset()
    assert len(f.cache) == 0


def test_recompile_limit_warns_once_and_runs_eagerly():
    f = ndgrad.compile(lambda x: x + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 12):
            assert f(ndgrad.zeros(n)).tolist() == [1.0] * n
    assert len(f.cache) == ndgrad.compiler.recompile_limit
    assert [str(w.message) for w in caught if "recompile limit" in str(w.message)] and len(caught) == 1


def test_data_dependent_shapes_run_eagerly_on_replay():
    f = ndgrad.compile(lambda x: x[x > 0] * 2)
    assert f(ndgrad.tensor([1.0, -1.0, 2.0])).tolist() == [2.0, 4.0]
    assert f(ndgrad.tensor([1.0, 3.0, 2.0])).tolist() == [2.0, 6.0, 4.0]   # same signature, other shape
    assert f(ndgrad.tensor([-1.0, -3.0, 2.0])).tolist() == [4.0]


def test_dropout_draws_as_eager_does():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    compiled = ndgrad.compile(model)
    x = ndgrad.ones(3, 4)
    compiled(x)                      # the trace
    ndgrad.manual_seed(5)
    replayed = compiled(x)
    ndgrad.manual_seed(5)
    eager = model(x)
    assert np.array_equal(replayed.detach().numpy(), eager.detach().numpy())
    model.eval()                     # a training flag is part of the signature
    assert np.array_equal(compiled(x).detach().numpy(), model(x).detach().numpy())
    assert len(compiled._compiled.cache) == 2


def test_module_wrapper_and_arguments_as_torch():
    # as torch 2.13 answers (not compared live: importing torch._dynamo changes torch's process-wide
    # defaults, e.g. distributions' argument validation, under the tests that run after it)
    m = ndgrad.compile(ndgrad.nn.Linear(2, 2))
    assert [type(m).__name__, type(m._orig_mod).__name__, sorted(m.state_dict()), m.in_features] == \
        ["OptimizedModule", "Linear", ["_orig_mod.bias", "_orig_mod.weight"], 2]
    with pytest.raises(RuntimeError, match="^Unrecognized mode=foo, should be one of: default, lite, reduce-overhead, "
                                           "max-autotune-no-cudagraphs, max-autotune$"):
        ndgrad.compile(lambda x: x, mode="foo")
    with pytest.raises(RuntimeError, match="^Either mode or options can be specified, but both can't be specified "
                                           "at the same time.$"):
        ndgrad.compile(lambda x: x, mode="default", options={})
    with pytest.raises(AssertionError, match="^A callable function is expected, but <class 'int'> is provided.$"):
        ndgrad.compile(3)
    assert ndgrad.compiler.is_compiling() is False


def test_decorator_forms():
    @ndgrad.compile
    def f(x):
        return x * 2

    @ndgrad.compile(fullgraph=True)
    def g(x):
        return x + 1
    assert f(ndgrad.ones(2)).tolist() == [2.0, 2.0] and g(ndgrad.ones(2)).tolist() == [2.0, 2.0]
    assert f(ndgrad.ones(2)).tolist() == [2.0, 2.0] and g(ndgrad.ones(2)).tolist() == [2.0, 2.0]
    h = ndgrad.compiler.disable(lambda x: x)
    assert ndgrad.compile(h) is h


def test_tapes_mixing_casts_in_place_steps_and_several_outputs_replay_as_eager():
    # the generated tape writes plain steps inline and calls the others: values must flow between both
    def f(x, n, w):
        h = x * n                       # an int tensor promoted to float: a step with a cast argument
        m = (h * 2).detach()
        m.add_(1.0)                     # an in-place step on an intermediate, read by later plain steps
        values, indices = m.max(1)      # a step with two outputs
        return ((h @ w).sum(1) * values * indices + m.sum()).sum().tanh(), indices

    g = ndgrad.compile(f)
    w = ndgrad.randn(3, 4, dtype=ndgrad.float64, requires_grad=True)
    n = ndgrad.tensor([[1, 2, 3], [4, 5, 6]])
    for k in range(3):
        x = ndgrad.randn(2, 3, dtype=ndgrad.float64) + k
        (a, ia), (b, ib) = f(x, n, w), g(x, n, w)
        (ga,), (gb,) = ndgrad.autograd.grad(a, w), ndgrad.autograd.grad(b, w)
        assert a.item() == b.item() and ia.tolist() == ib.tolist()
        assert np.array_equal(ga.numpy(), gb.numpy())
    (program,) = g.cache.values()
    assert not isinstance(program, str)
    assert not all(step.plain() for step in program.fwd.steps) and any(step.plain() for step in program.fwd.steps)


def test_replays_give_numpys_edge_values_without_numpys_warnings():
    # log(0), 0/0: torch computes -inf and nan silently; a tape calls NumPy's functions directly
    g = ndgrad.compile(lambda x: ((x * 0).log(), (x * 0) / (x * 0)))
    x = ndgrad.tensor([1.0, 2.0], dtype=ndgrad.float64)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", append=True)   # (after ndgrad's own filter, as a user's would be)
        for _ in range(3):   # the trace, then replays
            lg, nan = g(x)
            assert lg.tolist() == [-np.inf, -np.inf] and np.isnan(nan.numpy()).all()
    assert [str(w.message) for w in seen] == []
    (program,) = g.cache.values()
    assert not isinstance(program, str)
