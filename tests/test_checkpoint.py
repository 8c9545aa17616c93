"""utils.checkpoint: checkpoint and checkpoint_sequential recompute in backward with the same
random state and give the same gradients as running without them, in both variants
(use_reentrant=True / False), while the graph saves fewer bytes (measured with graph.summary).
"""
import contextlib
import functools
import importlib
import warnings

import pytest

from parity import LIBS, assert_same, both, err, parity, same_error

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


@pytest.mark.parametrize("reentrant", [False, True])
def test_recomputation_runs_in_the_autocast_region_of_the_forward(reentrant):
    pytest.importorskip("ml_dtypes")

    def scenario(T):
        seen = []

        def f(x, w):
            h = T.mm(x, w)           # on autocast's list: bfloat16 inside the region
            seen.append(h.dtype)
            return T.mm(h, w).sum()

        x = T.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        w = T.tensor([[1.5, 0.5], [-0.5, 2.0]], requires_grad=True)
        grads = []
        for enabled in (True, False):
            with T.autocast("cpu", dtype=T.bfloat16, enabled=enabled):
                loss = ck(T).checkpoint(f, x, w, use_reentrant=reentrant)
            loss.backward()   # outside the region: the recomputation must return to it
            grads += [x.grad.float(), w.grad.float()]
            x.grad = w.grad = None
        return [str(seen)] + grads
    r = both(scenario)
    assert r[0] == str([ndgrad.bfloat16] * 2 + [ndgrad.float32] * 2)


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
    parity(scenario)


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


# ---- non-reentrant semantics: early stop, one recomputation per backward, mismatch errors -----
def calls_per_mode(T):
    """How many times the last op of a checkpointed function runs, per early-stop setting."""
    runs = []

    def f(x):
        y = x.exp().tanh()          # both save tensors: the recomputation needs them
        runs.append(1)
        return y * 1.0              # saves nothing (scalar multiply): not needed again

    counts = []
    for scope, arg in ((None, True), (None, False), (False, True), (True, False)):
        runs.clear()
        x = T.tensor([0.5, -1.0], requires_grad=True)
        if scope is None:
            out = ck(T).checkpoint(f, x, use_reentrant=False, early_stop=arg)
        else:
            with ck(T).set_checkpoint_early_stop(scope):
                out = ck(T).checkpoint(f, x, use_reentrant=False, early_stop=arg)
        out.sum().backward()
        counts.append(len(runs))
    return counts


def test_early_stop_skips_the_rest_of_the_function_and_the_context_manager_wins():
    assert both(calls_per_mode) == [1, 2, 2, 1]


def test_early_stop_keeps_the_op_that_saves_the_last_input_from_a_dispatch_mode():
    # the recomputation stops as the op packs its saved input, before the op runs below autograd: a
    # dispatch mode sees x.sin() once (forward only); without early stop the recomputed sin reaches it
    def scenario(T):
        TorchDispatchMode = importlib.import_module(T.__name__ + ".utils._python_dispatch").TorchDispatchMode

        class Count(TorchDispatchMode):
            def __init__(self):
                self.seen = []

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.seen.append(str(func))
                return func(*args, **(kwargs or {}))
        result = []
        for early_stop in (True, False):
            calls = []

            def f(x):
                calls.append(1)
                return x.sin()
            a = T.tensor(1.0, dtype=T.float64, requires_grad=True)
            with Count() as mode:
                out = ck(T).checkpoint(f, a, use_reentrant=False, early_stop=early_stop)
                out.backward()
            result.append([len(calls), mode.seen.count("aten.sin.default"), a.grad.item()])
        return result
    cos1 = 0.5403023058681398
    assert both(scenario) == [[2, 1, cos1], [2, 2, cos1]]


def test_fewer_tensors_saved_in_recomputation_is_torch_error():
    def call(T):
        state = [0]

        def f(x):
            state[0] += 1
            return x.sin().exp().sin() if state[0] == 1 else x.sin().exp()
        x = T.tensor([0.3], requires_grad=True)
        ck(T).checkpoint(f, x, use_reentrant=False).backward()
    msg = same_error(call)
    assert "A different number of tensors was saved" in msg and "forward: 3" in msg


def test_changed_metadata_and_debug_report():
    def call(T, debug):
        state = [0]

        def f(x):
            state[0] += 1
            return x.sin().exp() if state[0] == 1 else x.sin() * T.tensor([1.0, 2.0])
        x = T.tensor([0.3], requires_grad=True)
        ck(T).checkpoint(f, x, use_reentrant=False, debug=debug).backward()
    assert "have different metadata" in same_error(lambda T: call(T, False))
    with pytest.raises(RuntimeError, match="because you passed `debug=True` to checkpoint"):
        call(ndgrad, True)


def test_saved_values_are_dropped_when_unpacked_and_recomputed_per_backward():
    def scenario(T):
        runs = []
        out = []

        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                try:
                    ctx.saved_tensors
                except RuntimeError as e:
                    out.append("already unpacked once" in str(e))
                return g * 2

        def f(x):
            runs.append(1)
            return Twice.apply(x.exp())
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = ck(T).checkpoint(f, x, use_reentrant=False)
        y.sum().backward(retain_graph=True)
        y.sum().backward()            # a second backward recomputes again
        return out + [len(runs), x.grad]
    assert both(scenario)[:3] == [True, True, 3]


def test_graph_exec_group_shares_one_recomputation():
    def scenario(T):
        runs = []

        def f(x):
            runs.append(1)
            y = x.sin().cos()
            return y, y.sin().cos()
        counts = []
        for grouped in (True, False):
            runs.clear()
            x = T.tensor([0.2, 0.4], dtype=T.float64, requires_grad=True)
            y, z = ck(T).checkpoint(f, x, use_reentrant=False)
            group = ck(T).GraphExecGroup()
            with group if grouped else contextlib.nullcontext():
                (gy,) = T.autograd.grad(z, y, T.ones(2, dtype=T.float64))
                (gx,) = T.autograd.grad(y, x, gy)
            counts.append(len(runs))
        return counts + [gx]
    assert both(scenario)[:2] == [2, 3]


def test_tensor_without_history_is_given_back_as_saved():
    def scenario(T):
        seen = []

        class Keep(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(b)
                return a.clone()

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.saved_tensors[0])
                return g, None
        a, b = T.tensor(1.0, requires_grad=True), T.tensor(3.0)
        ck(T).checkpoint(Keep.apply, a, b, use_reentrant=False).backward()
        return [seen[0] is b]
    assert both(scenario) == [True]


# ---- allow_mutation_on_saved_tensors: copies made lazily, before the write ---------------------
def mutation_bookkeeping(T):
    sizes = []
    with T.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        x = T.tensor([0.5, 1.5], requires_grad=True)
        a = x.clone()
        b = a ** 2
        c = a ** 2                     # the same (tensor, version): one handle
        sizes.append((len(ctx.tid_to_weakhandle), len(ctx.cloned)))
        a[:1].mul_(3.0)                # a write through a view copies the saved a once
        sizes.append((len(ctx.tid_to_weakhandle), len(ctx.cloned)))
        d = a ** 2                     # a new version of a
        a.sin_()
        sizes.append((len(ctx.tid_to_weakhandle), len(ctx.cloned)))
        (grad,) = T.autograd.grad((b + c + d).sum(), x)
        del b, c, d
        sizes.append((len(ctx.tid_to_weakhandle), len(ctx.cloned)))
    return sizes + [grad]


def test_allow_mutation_clones_once_per_saved_version_and_forgets_freed_ones():
    result = both(mutation_bookkeeping)
    # sin_ saves a's value before its write (held while `a` lives): one more handle, never cloned
    assert result[:4] == [[1, 0], [1, 1], [3, 2], [1, 0]]
    # d/dx of 2 x^2 + (x * [3, 1])^2 with the values saved before each write
    assert result[4].tolist() == [4 * 0.5 + 2 * 9 * 0.5, 4 * 1.5 + 2 * 1.5]


def test_allow_mutation_gradient_uses_values_from_save_time():
    def scenario(T):
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            x = T.tensor([0.5, 2.0], requires_grad=True)
            y = x.clone()
            out = (y * y).sum()
            y.view_as(y).exp_()
            out.backward()
        return x.grad
    assert both(scenario).tolist() == [1.0, 4.0]


# ---- selective activation checkpointing: the policy picks the ops whose outputs are kept -------
def sac(T, policy, **kwargs):
    return functools.partial(ck(T).create_selective_checkpoint_contexts, policy, **kwargs)


def test_sac_policy_is_asked_about_each_op_of_the_forward_only():
    def scenario(T):
        asked = []

        def policy(ctx, op, *args, **kwargs):
            asked.append([str(op), ctx.is_recompute, type(ctx.op_output).__name__, len(args) > 0])
            return ck(T).CheckpointPolicy.PREFER_RECOMPUTE

        def f(x):
            y = (x.sin() * 2).exp().view(3, 1)
            return T.var_mean(y.mul_(3))[0]
        x = T.tensor([0.1, 0.2, 0.3], requires_grad=True)
        out = ck(T).checkpoint(f, x, use_reentrant=False, context_fn=sac(T, policy))
        n = len(asked)
        out.backward()                      # recomputation runs every op again, asking nothing
        return asked + [n == len(asked)]
    ops = [a[0] for a in both(scenario)[:-1]]
    assert ops == ["aten.sin.default", "aten.mul.Tensor", "aten.exp.default", "aten.view.default",
                   "aten.mul_.Tensor", "aten.var_mean.correction"]


def test_sac_saved_output_is_reused_not_recomputed():
    # with allow_cache_entry_mutation the recomputation takes the cached sin output as it is now
    # (already doubled by mul_) and doubles it again: the gradient shows the op was not rerun
    def scenario(T):
        def policy(ctx, op, *args, **kwargs):
            return op == T.ops.aten.sin.default

        def f(x):
            return x.sin().mul_(2).cos().exp()
        grads = []
        for context_fn in (sac(T, policy, allow_cache_entry_mutation=True), None):
            x = T.tensor([0.5, 1.0], dtype=T.float64, requires_grad=True)
            out = ck(T).checkpoint(f, x, use_reentrant=False, context_fn=context_fn) if context_fn else f(x)
            out.sum().backward()
            grads.append(x.grad)
        return grads
    cached, plain = both(scenario)
    assert abs(cached - plain).max() > 1e-3


def test_sac_gradients_equal_plain_ones_for_list_bool_and_enum_policies():
    def scenario(T):
        P = ck(T).CheckpointPolicy
        aten = T.ops.aten
        policies = [[aten.mm.default, aten.var_mean.correction],
                    lambda ctx, op, *a, **k: op == aten.mm.default,
                    lambda ctx, op, *a, **k: P.PREFER_SAVE,
                    lambda ctx, op, *a, **k: P.MUST_RECOMPUTE]

        def f(x, w):
            h = T.mm(x.cos(), w).sin()
            var, mean = T.var_mean(h)
            return (h * var + mean).tanh().sum()
        grads = []
        for policy in policies + [None]:
            x = T.linspace(-1, 1, 12, dtype=T.float64).reshape(3, 4).requires_grad_()
            w = T.linspace(-2, 0.5, 8, dtype=T.float64).reshape(4, 2).requires_grad_()
            context_fn = sac(T, policy) if policy is not None else None
            out = ck(T).checkpoint(f, x, w, use_reentrant=False, context_fn=context_fn) if policy else f(x, w)
            grads.append(T.autograd.grad(out, (x, w)))
        return grads
    grads = both(scenario)
    for g in grads[:-1]:
        assert_same(g, grads[-1], rtol=1e-12)


def test_sac_nested_regions_each_keep_their_own_outputs():
    def scenario(T):
        aten = T.ops.aten

        def inner(x):
            return x.exp().sin()

        def outer(x):
            y = ck(T).checkpoint(inner, x.cos(), use_reentrant=False, context_fn=sac(T, [aten.exp.default]))
            return (y * x).tanh()
        x = T.tensor([0.3, -0.7], dtype=T.float64, requires_grad=True)
        out = ck(T).checkpoint(outer, x, use_reentrant=False, context_fn=sac(T, [aten.cos.default]))
        (g,) = T.autograd.grad(out.sum(), x)
        x2 = x.detach().requires_grad_()
        (ref,) = T.autograd.grad(outer(x2).sum(), x2)
        return [g, ref]
    g, ref = both(scenario)
    assert_same(g, ref, rtol=1e-12)


def test_sac_saves_views_and_outputs_of_integer_ops():
    def scenario(T):
        def f(x, y):
            return x.view(-1), y.view(3).sin().cos()
        x = T.tensor([[1, 2, 3]])
        y = T.tensor([[0.5, 1.0, 1.5]], requires_grad=True)
        out = ck(T).checkpoint(f, x, y, use_reentrant=False, context_fn=sac(T, [T.ops.aten.view.default]))
        out[1].sum().backward()
        return [out[0], y.grad]
    assert both(scenario)[0].tolist() == [1, 2, 3]


def test_sac_storage_is_emptied_by_the_recomputation():
    def scenario(T):
        C = ck(T)
        contexts = C.create_selective_checkpoint_contexts(lambda ctx, op, *a, **k: op != T.ops.aten.sin.default)
        storage = contexts[0].storage

        def kinds():
            entries = [e for per_op in storage.values() for e in per_op.values()]
            return [sum(e is C._RECOMPUTE for e in entries), sum(e is C._CONSUMED for e in entries), len(entries)]
        x = T.tensor([0.4, 0.8], requires_grad=True)
        out = C.checkpoint(lambda a: a.cos().exp().sin(), x, use_reentrant=False, context_fn=lambda: contexts)
        before = kinds()
        out.sum().backward(retain_graph=True)
        return [before, kinds()]
    # cos and exp cached, sin recomputed; backward takes both cached values
    assert both(scenario) == [[1, 0, 3], [1, 2, 3]]


def test_sac_not_entered_without_grad_mode():
    def scenario(T):
        asked = []
        with T.no_grad():
            ck(T).checkpoint(lambda a: a.exp(), T.ones(2, requires_grad=True), use_reentrant=False,
                             context_fn=sac(T, lambda ctx, op, *a, **k: asked.append(op) or True))
        return [len(asked)]
    assert both(scenario) == [0]


def test_sac_errors():
    aten = lambda T: T.ops.aten
    assert same_error(lambda T: ck(T).create_selective_checkpoint_contexts([2]), ValueError).endswith("<class 'int'>. ")
    # the packet's type is named by its module (torch._ops / ndgrad.ops._aten): the rest is torch's
    with pytest.raises(ValueError, match=r"^Expected op in `op_list` to be an OpOverload but got: aten\.sin of type "
                       r"<class '.*\.OpOverloadPacket'>\. Please update the OpOverloadPacket to a specific "
                       r"OpOverload\.For example, if you have `torch\.ops\.aten\.mm`, change it to "
                       r"`torch\.ops\.aten\.mm\.default`\.$"):
        ck(ndgrad).create_selective_checkpoint_contexts([ndgrad.ops.aten.sin])
    same_error(lambda T: ck(T).create_selective_checkpoint_contexts(2), TypeError)

    def region(T, allow=False, second_backward=False):
        x = T.tensor([0.5, 1.0], requires_grad=True)
        policy = lambda ctx, op, *a, **k: op == T.ops.aten.sin.default
        out = ck(T).checkpoint(lambda a: a.sin().mul_(2).cos().exp(), x, use_reentrant=False,
                               context_fn=sac(T, policy, allow_cache_entry_mutation=allow))
        out.sum().backward(retain_graph=True)
        if second_backward:
            out.sum().backward()
    assert "has been mutated" in same_error(region)
    assert "Trying to backward an extra time" in same_error(lambda T: region(T, True, True))


def test_sac_hook_is_cleared_after_the_region_even_on_error():
    from ndgrad.ops import _registry

    def f(x):
        assert _registry.dispatch_hook is not None
        raise KeyError("inside")
    with pytest.raises(KeyError):
        checkpoint(f, ndgrad.ones(1, requires_grad=True), use_reentrant=False,
                   context_fn=sac(ndgrad, [ndgrad.ops.aten.mm.default]))
    assert _registry.dispatch_hook is None


def test_aten_ops_have_one_identity_each():
    def scenario(T):
        aten = T.ops.aten
        mm = aten.mm.default
        x = T.tensor([[1.0, 2.0]])
        return [mm is aten.mm.default, mm == aten.mm.default, mm != aten.mm, str(mm), repr(mm), str(aten.mm),
                repr(aten.mm), mm.name(), mm.__name__, mm.overloadpacket is aten.mm, "correction" in
                aten.var_mean.overloads(), aten.mul_.Tensor(x.clone(), 2.0), mm(x, x.t()), aten.sin(x),
                [p.value for p in ck(T).CheckpointPolicy], err(lambda: aten.no_such_op), err(lambda: aten.sin.nope)]
    assert both(scenario)[:3] == [True, True, True]


def test_sac_policy_own_ops_are_not_asked_about():
    def scenario(T):
        asked = []

        def policy(ctx, op, *args, **kwargs):
            asked.append(str(op))
            return bool((args[0].abs().sum() > 0).item())    # ops inside the policy are not seen
        x = T.tensor([0.5, -1.0], requires_grad=True)
        out = ck(T).checkpoint(lambda a: a.exp().sin(), x, use_reentrant=False, context_fn=sac(T, policy))
        out.sum().backward()
        return asked + [x.grad]
    assert both(scenario)[:2] == ["aten.exp.default", "aten.sin.default"]
