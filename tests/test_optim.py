"""ndgrad.optim against torch.optim: the same model weights, data and hyperparameters give the
same losses and parameters step after step; param groups, zero_grad and state_dict as torch."""
import numpy as np
import pytest

import ndgrad
import ndgrad.nn as nn

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

rng = np.random.default_rng(0)
X = rng.standard_normal((16, 4)).astype(np.float32)
Y = rng.standard_normal((16, 2)).astype(np.float32)


def build(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))


def pair():
    ndgrad.manual_seed(0)   # (the same weights whatever ran before: RMSprop's centered step amplifies rounding)
    m, tm = build(ndgrad), build(torch)
    tm.load_state_dict({k: torch.tensor(np.array(v.numpy())) for k, v in m.state_dict().items()})
    return m, tm


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def train(lib, model, opt, steps):
    x, y = lib.tensor(X), lib.tensor(Y)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.02, weight_decay=0.5, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("SGD", dict(lr=0.05, momentum=0.5, weight_decay=0.1, nesterov=True)),
    ("AdamW", dict(lr=0.01, amsgrad=True, maximize=True, betas=(0.5, 0.9))),
    ("RMSprop", dict(lr=0.01, alpha=0.9, maximize=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("Adagrad", dict(lr=0.1, maximize=True, eps=1e-3)),
    ("Adamax", dict()), ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("NAdam", dict()), ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(weight_decay=0.1, maximize=True)),
    ("RAdam", dict()), ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.5, 0.6))),
    ("Adadelta", dict()), ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Rprop", dict()), ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1), maximize=True)),
    ("ASGD", dict()), ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=3, weight_decay=0.1)),
    ("ASGD", dict(maximize=True, t0=2)),
]


@needs_torch
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=str)
def test_optimizer_parity(name, kwargs):
    m, tm = pair()
    opt = getattr(ndgrad.optim, name)(m.parameters(), **kwargs)
    topt = getattr(torch.optim, name)(tm.parameters(), **kwargs)
    losses, tlosses = train(ndgrad, m, opt, 6), train(torch, tm, topt, 6)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-5)
    for p, tp in zip(m.parameters(), tm.parameters()):
        close(p, tp)
    ours, theirs = opt.state_dict(), topt.state_dict()
    assert ours["param_groups"] == theirs["param_groups"]
    assert list(ours["state"]) == list(theirs["state"])
    for i, s in theirs["state"].items():
        assert list(ours["state"][i]) == list(s)
        for k, v in s.items():
            close(ours["state"][i][k], v)
    assert repr(opt) == repr(topt)


@needs_torch
def test_param_groups_parity():
    m, tm = pair()
    opt = ndgrad.optim.SGD([{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.01}],
                           lr=0.1, momentum=0.9)
    topt = torch.optim.SGD([{"params": tm[0].parameters()}, {"params": tm[2].parameters(), "lr": 0.01}],
                           lr=0.1, momentum=0.9)
    np.testing.assert_allclose(train(ndgrad, m, opt, 4), train(torch, tm, topt, 4), rtol=1e-5)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
                                  "Adadelta", "Rprop", "ASGD"])
def test_state_dict_resume(name):
    """Interrupting training and resuming from state dicts gives the uninterrupted run's numbers."""
    kwargs = {"lr": 0.05, "momentum": 0.9} if name == "SGD" else {"lr": 0.05}
    make = getattr(ndgrad.optim, name)
    ndgrad.manual_seed(0)
    m = build(ndgrad)
    m2 = build(ndgrad)
    m2.load_state_dict(m.state_dict())
    opt = make(m.parameters(), **kwargs)
    full = train(ndgrad, m, opt, 5)
    opt2 = make(m2.parameters(), **kwargs)
    first = train(ndgrad, m2, opt2, 2)
    saved_model, saved_opt = m2.state_dict(), opt2.state_dict()
    m3 = build(ndgrad)
    m3.load_state_dict(saved_model)
    opt3 = make(m3.parameters(), lr=1.0)
    opt3.load_state_dict(saved_opt)
    assert opt3.param_groups[0]["lr"] == 0.05
    rest = train(ndgrad, m3, opt3, 3)
    np.testing.assert_allclose(full, first + rest, rtol=1e-6)


def test_zero_grad_and_closure():
    m = build(ndgrad)
    opt = ndgrad.optim.SGD(m.parameters(), lr=0.1)
    x, y = ndgrad.tensor(X), ndgrad.tensor(Y)

    def closure():
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        return loss
    first = opt.step(closure).item()
    assert opt.step(closure).item() < first
    opt.zero_grad(set_to_none=False)
    assert all((p.grad == 0).all() for p in m.parameters())
    opt.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    opt.step()                       # no grads: nothing changes, nothing fails


def test_skips_params_without_grad():
    a = nn.Parameter(ndgrad.ones(2))
    b = nn.Parameter(ndgrad.ones(2))
    opt = ndgrad.optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    opt.step()
    assert (b == 1).all() and (a != 1).all()
    assert list(opt.state) == [a]


@needs_torch
def test_errors_match_torch():
    def message(lib, make):
        with pytest.raises(Exception) as info:
            make(lib)
        return type(info.value).__name__, str(info.value)

    cases = [
        lambda lib: lib.optim.SGD([], lr=0.1),
        lambda lib: lib.optim.SGD(lib.ones(2, requires_grad=True), lr=0.1),
        lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1),
        lambda lib: lib.optim.SGD([1.0], lr=0.1),
        lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=-1),
        lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.1, nesterov=True),
        lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.1, momentum=-1),
        lambda lib: lib.optim.Adam([lib.ones(2, requires_grad=True)], betas=(1.0, 0.9)),
        lambda lib: lib.optim.Adam([lib.ones(2, requires_grad=True)], eps=-1.0),
        lambda lib: lib.optim.Adagrad([lib.ones(2, requires_grad=True)], lr_decay=-1.0),
        lambda lib: lib.optim.RMSprop([lib.ones(2, requires_grad=True)], alpha=-1.0),
    ]
    for make in cases:
        assert message(ndgrad, make) == message(torch, make)
    p = ndgrad.ones(2, requires_grad=True)
    opt = ndgrad.optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [p]})
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]})


def test_double_model():
    m = build(ndgrad).double()
    opt = ndgrad.optim.Adam(m.parameters(), lr=0.01)
    x, y = ndgrad.tensor(X).double(), ndgrad.tensor(Y).double()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    assert all(p.dtype == ndgrad.float64 for p in m.parameters())
    assert opt.state[m[0].weight]["exp_avg"].dtype == ndgrad.float64


@needs_torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "NAdam", "RAdam"])
def test_float64_updates_match_torch_tightly(name):
    """In float64 the _foreach_ updates are torch's to rounding (10 steps)."""
    m, tm = pair()
    m, tm = m.double(), tm.double()
    kwargs = {"lr": 0.05, "momentum": 0.9} if name == "SGD" else {"lr": 0.05}
    opt = getattr(ndgrad.optim, name)(m.parameters(), **kwargs)
    topt = getattr(torch.optim, name)(tm.parameters(), **kwargs)
    for lib, model, o in ((ndgrad, m, opt), (torch, tm, topt)):
        x, y = lib.tensor(X).double(), lib.tensor(Y).double()
        for _ in range(10):
            o.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            o.step()
    for p, tp in zip(m.parameters(), tm.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
                                  "Adadelta", "Rprop", "ASGD"])
def test_updates_run_on_foreach_ops(name, monkeypatch):
    """Each step updates all parameters of a group with one _foreach_ call per stage."""
    calls = []
    foreach = ndgrad.optim.optimizer.foreach   # the _foreach_ ops as the optimizers call them
    for op in ("add_", "addcdiv_", "addcmul_"):
        original = getattr(foreach, op)
        monkeypatch.setattr(foreach, op, lambda *a, _f=original, _n=op, **k: (calls.append(_n), _f(*a, **k))[1])
    m = build(ndgrad)
    kwargs = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {}
    opt = getattr(ndgrad.optim, name)(m.parameters(), **kwargs)
    train(ndgrad, m, opt, 2)
    assert calls and len(calls) <= 2 * 5


def test_step_hooks():
    m = build(ndgrad)
    opt = ndgrad.optim.SGD(m.parameters(), lr=0.1)
    seen = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append("post"))
    train(ndgrad, m, opt, 1)
    pre.remove()
    train(ndgrad, m, opt, 1)
    assert seen == ["pre", "post", "post"]


def test_unsupported_flags_say_so():
    p = [nn.Parameter(ndgrad.ones(2))]
    with pytest.raises(NotImplementedError, match="fused=True"):
        ndgrad.optim.Adam(p, fused=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        ndgrad.optim.SGD(p, lr=0.1, differentiable=True)


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.5, "history_size": 3, "max_iter": 7},
                                    {"line_search_fn": "strong_wolfe"},
                                    {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 8},
                                    {"line_search_fn": "strong_wolfe", "max_eval": 10, "lr": 2.0}], ids=str)
def test_lbfgs_matches_torch(kwargs):
    """Same losses, parameters and number of closure evaluations as torch's LBFGS, over 4 steps."""
    m, tm = pair()
    results = []
    for lib, model in ((ndgrad, m.double()), (torch, tm.double())):
        opt = lib.optim.LBFGS(model.parameters(), **kwargs)
        x, y = lib.tensor(X).double(), lib.tensor(Y).double()

        def closure():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(4)]
        results.append((losses, list(model.parameters()), opt.state_dict()))
    (losses, params, state), (t_losses, t_params, t_state) = results
    np.testing.assert_allclose(losses, t_losses, rtol=1e-5)   # ~100 evaluations: rounding differs a little
    for p, tp in zip(params, t_params):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-5, atol=1e-8)
    assert state["state"][0]["func_evals"] == t_state["state"][0]["func_evals"]
    assert sorted(state["state"][0]) == sorted(t_state["state"][0])
    assert state["param_groups"] == t_state["param_groups"]


def test_lbfgs_state_survives_save_and_load(tmp_path):
    """An LBFGS resumed from ndgrad.save'd model and optimizer state takes the same next step."""
    x, y = ndgrad.tensor(X), ndgrad.tensor(Y)

    def run(model, opt):
        def closure():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            return loss
        opt.step(closure)
        return closure().item()

    model = build(ndgrad)
    opt = ndgrad.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe", max_iter=5)
    run(model, opt)
    ndgrad.save({"model": model.state_dict(), "optim": opt.state_dict()}, tmp_path / "lbfgs.pt")
    checkpoint = ndgrad.load(tmp_path / "lbfgs.pt")
    resumed = build(ndgrad)
    resumed.load_state_dict(checkpoint["model"])
    resumed_opt = ndgrad.optim.LBFGS(resumed.parameters(), line_search_fn="strong_wolfe", max_iter=5)
    resumed_opt.load_state_dict(checkpoint["optim"])
    assert run(resumed, resumed_opt) == run(model, opt)
    with pytest.raises(ValueError, match="per-parameter options"):
        ndgrad.optim.LBFGS([{"params": [model[0].weight]}, {"params": [model[0].bias]}])


def test_foreach_inplace_ops_call_each_element_op_as_its_method_would(monkeypatch):
    """`_foreach_<op>_` of Tensors and Python numbers calls the element's op without the method's
    parser: the same bits and version counters as the methods, each argument form (scalar, list,
    scalars, keywords), and in grad mode the same recorded nodes and gradients."""
    from ndgrad.ops import pointwise
    taken = []   # the names for which the direct call was taken
    direct = pointwise._element_call

    def spied(name, *rest):
        call = direct(name, *rest)
        if call is not None:
            taken.append(name)
        return call
    monkeypatch.setattr(pointwise, "_element_call", spied)
    calls = [("mul", (0.9,), {}), ("mul", ("L",), {}), ("div", ([0.3, 0.7],), {}), ("add", (1e-3,), {}),
             ("add", ("L",), {"alpha": -0.5}), ("sub", ("L", 2.0), {}), ("lerp", ("L", 0.25), {}),
             ("lerp", ("L", 0.75), {}), ("lerp", ("L", "L"), {}), ("addcmul", ("L", "L", 0.1), {}),
             ("addcmul", ("L", "L"), {"value": -2}), ("addcdiv", ("L", "L", [0.1, -0.2]), {}),
             ("addcdiv", ("L", "L"), {})] + [(n, (), {}) for n in pointwise.FOREACH_UNARY if n not in ("round", "clone")]

    def run(name, args, kwargs, grad):
        rs = np.random.RandomState(5)
        leaves = [ndgrad.tensor(rs.rand(3, 4) + 0.5, requires_grad=grad) for _ in range(2)]
        xs = [t.clone() if grad else t for t in leaves]
        other = [ndgrad.tensor(rs.rand(3, 4) + 0.5) for _ in range(2)]
        getattr(ndgrad, f"_foreach_{name}_")(xs, *[other if a == "L" else a for a in args], **kwargs)
        out = [(x.detach().numpy().tobytes(), x._version) for x in xs]
        if grad:
            sum(x.sum() for x in xs).backward()
            out += [(x.grad_fn.name(), t.grad.numpy().tobytes()) for x, t in zip(xs, leaves)]
        return out

    for name, args, kwargs in calls:
        for grad in (False, True):
            with ndgrad.set_grad_enabled(grad):
                fast = run(name, args, kwargs, grad)
                monkeypatch.setattr(pointwise, "_element_call", lambda *a: None)
                assert run(name, args, kwargs, grad) == fast, (name, args, kwargs, grad)
                monkeypatch.setattr(pointwise, "_element_call", spied)
    assert {c[0] for c in calls} <= set(taken)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", [
    ("Adam", dict(lr=0.01)), ("Adam", dict(lr=0.02, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.3, decoupled_weight_decay=True)), ("AdamW", dict(lr=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9)), ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.5, nesterov=True, maximize=True)), ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, maximize=True, momentum=0.3))], ids=str)
def test_packed_buffers_give_the_per_parameter_bits(dtype, name, kwargs, monkeypatch, tmp_path):
    """A group's buffers (Adam's, RMSprop's and their step counts, SGD's momentum) made at once are views of one array
    per name, and the update runs each _foreach_ op once on those arrays: the same parameters, buffers,
    step counts and version counters, to the bit, as the per-parameter ops give (the packing refused); a
    resumed state_dict (its own tensors) leaves the group on the per-parameter path with the same bits; a
    parameter that gets its first gradient later gets buffers of its own."""
    from ndgrad.optim import adam, optimizer, rmsprop, sgd

    def patch(attr, value):   # (the optimizers' modules import the helpers by name)
        for module in (optimizer, adam, rmsprop, sgd):
            if hasattr(module, attr):
                monkeypatch.setattr(module, attr, value)

    def run(packable):
        patch("_packable", packable)
        ndgrad.manual_seed(0)
        m = build(ndgrad).to(getattr(ndgrad, dtype))
        extra = nn.Parameter(ndgrad.ones(3, dtype=getattr(ndgrad, dtype)))
        opt = getattr(ndgrad.optim, name)(list(m.parameters()) + [extra], **kwargs)
        x, y = ndgrad.tensor(X).to(m[0].weight.dtype), ndgrad.tensor(Y).to(m[0].weight.dtype)
        for step in range(7):
            opt.zero_grad()
            loss = ((m(x) - y) ** 2).mean() + (extra.sum() if step >= 3 else 0)
            loss.backward()
            opt.step()
            if step == 4:   # a resumed optimizer: loaded tensors of their own
                ndgrad.save(opt.state_dict(), tmp_path / "opt.pt")
                opt.load_state_dict(ndgrad.load(tmp_path / "opt.pt"))
        state = [(k, v.detach().numpy().copy(), v._version) for s in opt.state.values() for k, v in s.items()]
        return [p.detach().numpy().copy() for p in opt.param_groups[0]["params"]], state, opt

    packed_calls = []
    original_pack = optimizer._pack
    patch("_pack", lambda *a: packed_calls.append(original_pack(*a)) or packed_calls[-1])
    params, state, opt = run(optimizer._packable)
    assert any(c is not None and len(c) > 1 for c in packed_calls), "the packed update never ran"
    packed_calls.clear()
    ref_params, ref_state, _ = run(lambda params: False)
    assert all(c is None for c in packed_calls)
    for a, b in zip(params, ref_params):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    assert [(k, v) for k, _, v in state] == [(k, v) for k, _, v in ref_state]
    for (_, a, _), (_, b, _) in zip(state, ref_state):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


@needs_torch
def test_adam_state_versions_and_shapes_match_torch():
    """Packed Adam buffers and step counts look as torch's: float32 0-d step counts, buffers of the
    parameters' shapes, and the version counters torch's in-place updates leave."""
    m, tm = pair()
    opt, topt = ndgrad.optim.Adam(m.parameters(), lr=0.01), torch.optim.Adam(tm.parameters(), lr=0.01)
    before = [(p._version, tp._version) for p, tp in zip(m.parameters(), tm.parameters())]
    train(ndgrad, m, opt, 3), train(torch, tm, topt, 3)
    assert opt.state[m[0].weight]["exp_avg"]._array.base is not None   # (packed)
    for (p, tp), (v, tv) in zip(zip(m.parameters(), tm.parameters()), before):
        s, ts = opt.state[p], topt.state[tp]
        assert list(s) == list(ts)
        for k in ts:
            assert (s[k].shape, str(s[k].dtype), s[k]._version) == (ts[k].shape, str(ts[k].dtype), ts[k]._version), k
        assert p._version - v == tp._version - tv


def test_packed_buffers_die_with_their_optimizer():
    """The packing keeps no buffer alive: an optimizer's flat arrays go with it (and their entries)."""
    import gc
    import weakref
    from ndgrad.optim import optimizer

    def run():
        m = build(ndgrad)
        opt = ndgrad.optim.Adam(m.parameters())
        train(ndgrad, m, opt, 2)
        flat = opt.state[m[0].weight]["exp_avg"]._array.base
        assert flat is not None and id(flat) in optimizer._PACKS
        return weakref.ref(flat), id(flat)
    ref, key = run()
    gc.collect()
    assert ref() is None and key not in optimizer._PACKS


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [(3, 4), (300, 300)])   # (the large one: the ops' pooled kernels)
def test_foreach_ops_on_arrays_give_the_element_ops_bits(dtype, size, monkeypatch):
    """Out of place, `_foreach_<op>` of float Tensors of one dtype and Python numbers runs each element
    op's kernel on the arrays (nothing observing op calls): the bits of the element ops run as Tensors
    (what runs where an observer is active), in every argument form; other arguments (an integer list,
    mixed dtypes) take the element ops."""
    from ndgrad.ops import _registry, pointwise
    taken = []
    kernels = pointwise._element_kernels
    monkeypatch.setattr(pointwise, "_element_kernels", lambda *a: taken.append(r := kernels(*a)) or r)
    calls = [("mul", (0.9,), {}), ("mul", ("L",), {}), ("div", ([0.3, 0.7],), {}), ("add", ("L",), {"alpha": -0.5}),
             ("sub", ("L",), {}), ("lerp", ("L", 0.25), {}), ("lerp", ("L", 0.75), {}), ("lerp", ("L", "L"), {}),
             ("addcmul", ("L", "L", 0.1), {}), ("addcdiv", ("L", "L", [0.1, -0.2]), {}), ("addcdiv", ("L", "L"), {})] + \
        [(n, (), {}) for n in pointwise.FOREACH_UNARY if n not in ("round", "clone")]
    rs = np.random.RandomState(6)
    xs = [ndgrad.tensor((rs.rand(*size) + 0.5).astype(dtype)) for _ in range(2)]
    other = [ndgrad.tensor((rs.rand(*size) + 0.5).astype(dtype)) for _ in range(2)]
    for name, args, kwargs in calls:
        args = [other if a == "L" else a for a in args]
        taken.clear()
        fast = getattr(ndgrad, f"_foreach_{name}")(xs, *args, **kwargs)
        assert taken and taken[0] is not None, name
        with monkeypatch.context() as m:
            m.setattr(_registry, "ops_unobserved", lambda: False)
            slow = getattr(ndgrad, f"_foreach_{name}")(xs, *args, **kwargs)
        assert [(a.dtype, a.numpy().tobytes()) for a in fast] == [(a.dtype, a.numpy().tobytes()) for a in slow], name
    ints = [ndgrad.tensor([1, 2]), ndgrad.tensor([3, 4])]
    taken.clear()
    assert [t.tolist() for t in ndgrad._foreach_mul(ints, 2.5)] == [[2.5, 5.0], [7.5, 10.0]] and taken == [None]
    mixed = [ndgrad.tensor([1.0], dtype=ndgrad.float32), ndgrad.tensor([1.0], dtype=ndgrad.float64)]
    taken.clear()
    assert [t.dtype for t in ndgrad._foreach_add(mixed, [t * 2 for t in reversed(mixed)])] == [ndgrad.float64] * 2
    assert taken == [None]


def test_observers_see_the_per_parameter_ops_of_a_packed_group():
    """Under a dispatch mode (or the profiler) a packed group updates per parameter, as it would unpacked:
    the mode sees each parameter's element ops, and the result has the same bits."""
    from ndgrad.utils._python_dispatch import TorchDispatchMode

    class Count(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    def run(observe):
        ndgrad.manual_seed(0)
        m = build(ndgrad)
        opt = ndgrad.optim.Adam(m.parameters(), lr=0.01)
        train(ndgrad, m, opt, 2)
        assert opt.state[m[0].weight]["exp_avg"]._array.base is not None   # (packed)
        with Count() as mode:
            train(ndgrad, m, opt, 1) if observe else None
        if not observe:
            train(ndgrad, m, opt, 1)
        return [p.detach().numpy().tobytes() for p in m.parameters()], mode.ops
    observed, ops = run(True)
    plain, _ = run(False)
    assert observed == plain
    assert sum("addcmul" in o for o in ops) == len(list(build(ndgrad).parameters()))
