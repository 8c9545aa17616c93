"""TorchFunctionMode (ndgrad.overrides) and TorchDispatchMode (ndgrad.utils._python_dispatch):
what a mode sees, the stack, the mode off the stack while its handler runs, and autograd around
a dispatch mode's results, checked against torch."""
import math

import pytest

import ndgrad
from ndgrad.ops import _registry, _torch_function
from ndgrad.utils import _python_dispatch

from parity import both, err, same_error


def function_mode(T, log, name="m", rewrite=None):
    class Log(T.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((name, func.__name__, [t.__name__ for t in types], kwargs if name != "outer" else None))
            if rewrite is not None and func.__name__ in rewrite:
                return rewrite[func.__name__](*args, **(kwargs or {}))
            return func(*args, **(kwargs or {}))
    return Log()


def dispatch_mode(T, log, name="m", handler=None):
    class Log(T.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append(func.__name__ if name is None else (name, func.__name__))
            if handler is not None:
                return handler(T, func, args, kwargs or {})
            return func(*args, **(kwargs or {}))
    return Log()


# --- TorchFunctionMode ---------------------------------------------------------------------------

def test_function_mode_sees_functions_methods_operators_and_factories():
    def scenario(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        with function_mode(T, log):
            y = T.ones(2)
            z = T.add(x, y)
            z = z.mul(3)
            z = z * 2
            z = T.sqrt(z)
        return log, z, z.grad_fn.name()
    log, z, name = both(scenario)
    assert log == [["m", "ones", [], None], ["m", "add", [], None], ["m", "mul", [], None], ["m", "mul", [], None],
                   ["m", "sqrt", [], None]]
    assert z.tolist() == pytest.approx([12 ** 0.5, 18 ** 0.5]) and name == "SqrtBackward0"


def test_function_mode_can_replace_a_function():
    def scenario(T):
        with function_mode(T, [], rewrite={"add": lambda a, b: T.sub(a, b)}):
            return T.add(T.tensor([5.0]), T.tensor([2.0]))
    assert both(scenario).tolist() == [3.0]


def test_function_modes_nest_and_each_is_off_the_stack_while_it_handles():
    def scenario(T):
        log, seen = [], []

        class Probe(T.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(T.overrides._get_current_function_mode() is outer)
                return func(*args, **(kwargs or {}))
        outer = function_mode(T, log, "outer")
        with outer:
            with Probe() as probe:
                stack = T.overrides._get_current_function_mode_stack()
                assert stack == [outer, probe]
                T.sin(T.ones(1))
            after = T.overrides._get_current_function_mode_stack()
        return log, seen, after == [outer], T.overrides._get_current_function_mode() is None
    log, seen, after, empty = both(scenario)
    # the probe sees each call first; its calls go on to the outer mode
    assert log == [["outer", "ones", [], None], ["outer", "sin", [], None]]
    assert seen == [True, True] and after and empty


def test_function_mode_comes_before_subclass_overrides():
    def scenario(T):
        log = []

        class Sub(T.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                log.append(("sub", func.__name__))
                return super().__torch_function__(func, types, args, kwargs)

        s = T.tensor([1.0, 4.0]).as_subclass(Sub)
        with function_mode(T, log):
            r = T.sqrt(s)
        return log, type(r).__name__, r
    log, kind, r = both(scenario)
    assert log == [["m", "sqrt", ["Sub"], None], ["sub", "sqrt"]]
    assert kind == "Sub" and r.tolist() == [1.0, 2.0]


def test_function_mode_returning_not_implemented():
    def scenario(T):
        class Decline(T.overrides.TorchFunctionMode):   # defers to subclasses, runs the rest
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return NotImplemented if types else func(*args, **(kwargs or {}))

        class Sub(T.Tensor):
            pass   # inherits Tensor's __torch_function__: it takes the call the mode declined

        s = T.ones(1).as_subclass(Sub)
        with Decline():
            r = T.add(s, 1)
        return type(r).__name__, r
    kind, r = both(scenario)
    assert kind == "Sub" and r.tolist() == [2.0]

    def declined(T):
        class Decline(T.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return NotImplemented

            def __repr__(self):
                return "Decline"
        x = T.ones(1)
        with Decline():
            T.add(x, 1)
    assert "- mode object Decline" in same_error(declined, TypeError)


def test_disable_torch_function_turns_modes_off_but_not_disable_subclass():
    def scenario(T):
        log = []
        with function_mode(T, log):
            with T._C.DisableTorchFunction():
                T.add(T.ones(1), 1)
            with T._C.DisableTorchFunctionSubclass():
                T.sub(T.zeros(1), 1)
        return log
    assert both(scenario) == [["m", "zeros", [], None], ["m", "sub", [], None]]


def test_has_torch_function_under_a_mode():
    def scenario(T):
        x = T.ones(1)
        with function_mode(T, []):
            inside = T.overrides.has_torch_function((x,))
        return inside, T.overrides.has_torch_function((x,))
    assert both(scenario) == [True, False]


def test_function_mode_pop_temporarily_and_empty_pop():
    def scenario(T):
        m = function_mode(T, [])
        with m:
            with T.overrides._pop_mode_temporarily() as popped:
                inside = T.overrides._get_current_function_mode()
            back = T.overrides._get_current_function_mode()
        return popped is m, inside is None, back is m
    assert both(scenario) == [True, True, True]
    same_error(lambda T: T.overrides._pop_mode(), RuntimeError)


def test_no_function_mode_leaves_the_fast_path_as_it_was():
    before = set(_torch_function._NOT_OVERRIDING)
    with function_mode(ndgrad, []):
        assert not _torch_function._NOT_OVERRIDING   # every call reaches the protocol
        ndgrad.ones(1) + 1
    assert _torch_function._NOT_OVERRIDING == before and not _torch_function._modes


def test_function_mode_exits_on_error():
    def scenario(T):
        with pytest.raises(ValueError):
            with function_mode(T, []):
                raise ValueError
        return len(T.overrides._get_current_function_mode_stack())
    assert both(scenario) == 0


# --- TorchDispatchMode ---------------------------------------------------------------------------

def test_dispatch_mode_sees_aten_overloads_forward_and_backward():
    def scenario(T):
        log = []
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with dispatch_mode(T, log, None):
            y = x.mul(2).div(3).sum()
            forward = list(log)
            y.backward()
        return forward, log[len(forward):], x.grad
    fwd, bwd, grad = both(scenario)
    assert fwd == ["mul.Tensor", "div.Tensor", "sum.default"]
    assert grad.tolist() == pytest.approx([2 / 3] * 3)
    # the implicit gradient is made by ones_like; AccumulateGrad keeps the last gradient detached
    assert bwd == ["ones_like.default", "expand.default", "div.Tensor", "mul.Tensor", "detach.default"]


def test_dispatch_mode_current_autograd_node_and_factories():
    def scenario(T):
        log = []

        class Where(T.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                node = T._C._current_autograd_node()
                log.append((func.__name__, type(node).__name__ if node is not None else None))
                return func(*args, **(kwargs or {}))
        with Where():
            a = T.rand(4, requires_grad=True)
            b = T.zeros(4, dtype=T.float64)
            (a * 3).sum().backward()
        return log, a.requires_grad, a.is_leaf, a.grad.requires_grad, str(b.dtype)
    log, requires_grad, is_leaf, grad_requires_grad, dtype = both(scenario)
    assert log == [["rand.default", None], ["zeros.default", None], ["mul.Tensor", None], ["sum.default", None],
                   ["ones_like.default", None], ["expand.default", "SumBackward0"], ["mul.Tensor", "MulBackward0"],
                   ["detach.default", "AccumulateGrad"]]
    assert requires_grad and is_leaf and not grad_requires_grad and dtype == "torch.float64"


def test_dispatch_mode_factory_overloads_and_modes_below():
    def scenario(T):
        inner, outer = [], []
        g = T.Generator().manual_seed(0)
        x = T.ones(2)
        with dispatch_mode(T, outer, "outer"), dispatch_mode(T, inner, "inner"):
            T.arange(3), T.arange(1, 3), T.arange(0, 3, 1), T.eye(2), T.eye(2, 3), T.empty(2)
            r = T.rand(2, generator=g)
            T.full_like(x, 2.0), T.randn_like(x)
        return inner, outer, r
    inner, outer, r = both(scenario)
    names = ["arange.default", "arange.start", "arange.start_step", "eye.default", "eye.m", "empty.memory_format",
             "rand.generator", "full_like.default", "randn_like.default"]
    assert inner == [["inner", n] for n in names]
    assert outer == [["outer", n] for n in names]   # the inner mode's func call is seen by the outer mode
    assert r.shape == (2,)


def test_dispatch_mode_root_gradient_is_not_detached():
    def scenario(T):
        x = T.ones(3, requires_grad=True)
        seen = []
        y = x * 2
        y.register_hook(lambda g: seen.append(g.requires_grad))
        y.backward(T.ones(3, requires_grad=True))
        x2 = T.ones(3, requires_grad=True)
        x2.backward(T.ones(3, requires_grad=True) * 1)   # a temporary that only the engine holds: kept, detached
        g = T.full((3,), 2.0, requires_grad=True)
        same = T.autograd.grad(x2, x2, g)[0]
        return seen, x.grad, x2.grad.requires_grad, same.requires_grad
    seen, grad, kept_requires_grad, same_requires_grad = both(scenario)
    assert seen == [True] and grad.tolist() == [2.0, 2.0, 2.0]
    assert not kept_requires_grad and same_requires_grad


def test_dispatch_mode_sees_detach():
    def scenario(T):
        log = []
        x = T.tensor([1.0, 2.0], requires_grad=True)
        with dispatch_mode(T, log, None):
            d = x.detach()
        return log, d.requires_grad, d._version, T.ops.aten.detach.default.__name__
    assert both(scenario) == [["detach.default"], False, 0, "detach.default"]
    assert ndgrad.Tensor.detach is _python_dispatch._plain_detach   # swapped back: nothing to pay


def test_dispatch_mode_func_is_the_aten_overload():
    def scenario(T):
        got = []

        def handler(T, func, args, kwargs):
            got.append((func is T.ops.aten.mul.Tensor, func == T.ops.aten.mul.Tensor,
                        func.overloadpacket is T.ops.aten.mul, func.__name__, str(func),
                        [type(a).__name__ for a in args], func._schema.name, func._schema.overload_name))
            return func(*args, **kwargs)
        x = T.ones(2)
        with dispatch_mode(T, [], handler=handler):
            x.mul(x)
        return got
    assert both(scenario) == [[True, True, True, "mul.Tensor", "aten.mul.Tensor", ["Tensor", "Tensor"], "aten::mul",
                               "Tensor"]]
    assert [ndgrad.ops.aten.sum.default._schema.overload_name, ndgrad.ops.aten.add_.Tensor._schema.name] == \
        ["", "aten::add_"]


def test_dispatch_modes_nest_and_the_handler_runs_with_its_mode_popped():
    def scenario(T):
        log, seen = [], []
        pd = T.utils._python_dispatch

        def handler(T, func, args, kwargs):
            seen.append((pd._get_current_dispatch_mode() is outer, len(pd._get_current_dispatch_mode_stack())))
            return func(*args, **kwargs)
        outer = dispatch_mode(T, log, "outer")
        x = T.ones(2)
        with outer:
            with dispatch_mode(T, log, "inner", handler) as inner:
                stack = pd._get_current_dispatch_mode_stack()
                x.exp()
        return log, seen, stack == [outer, inner], pd._get_current_dispatch_mode() is None
    log, seen, stack, empty = both(scenario)
    assert log == [["inner", "exp.default"], ["outer", "exp.default"]]
    assert seen == [[True, 1]] and stack and empty


def test_dispatch_mode_result_is_recorded_as_the_ops_output():
    def scenario(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)

        def handler(T, func, args, kwargs):   # any result: autograd records it as the op's
            out = func(*args, **kwargs)
            if func is T.ops.aten.mul.Tensor:
                return out + 100
            return out
        with dispatch_mode(T, [], handler=handler):
            y = x.mul(3)
        name, leaf = y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
        y.sum().backward()
        return y, name, leaf, x.grad
    y, name, leaf, grad = both(scenario)
    assert y.tolist() == [103.0, 106.0] and name == "MulBackward0"
    assert leaf == "torch::autograd::AccumulateGrad" and grad.tolist() == [3.0, 3.0]


def test_dispatch_mode_views_in_place_and_several_outputs():
    def scenario(T):
        log = []
        x = T.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
        with dispatch_mode(T, log, None):
            v = x.view(4)
            values, indices = T.max(x, 1)
            y = x.clone()
            y.add_(1)
            base = v._base is x
        (v.sum() + values.sum() + y.sum()).backward()
        return (log[:4], base, v.grad_fn.name(), values.grad_fn.name(), y.grad_fn.name(), indices, x.grad)
    log, base, vname, mname, yname, indices, grad = both(scenario)
    assert log == ["view.default", "max.dim", "clone.default", "add_.Tensor"]
    assert base and (vname, mname, yname) == ("ViewBackward0", "MaxBackward0", "AddBackward0")
    assert indices.tolist() == [1, 0] and grad.tolist() == [[2.0, 3.0], [3.0, 2.0]]


def test_dispatch_mode_pop_errors_and_helpers():
    same_error(lambda T: T.utils._python_dispatch._pop_mode(), RuntimeError)

    def scenario(T):
        pd = T.utils._python_dispatch
        m = dispatch_mode(T, [])
        with m:
            with pd._pop_mode_temporarily() as popped:
                inside = pd._get_current_dispatch_mode()
            back = pd._get_current_dispatch_mode()
        return popped is m, inside is None, back is m
    assert both(scenario) == [True, True, True]


def test_dispatch_mode_leaves_the_hook_as_it_found_it():
    assert _registry.dispatch_hook is None
    with dispatch_mode(ndgrad, []):
        assert _registry.dispatch_hook is _python_dispatch._dispatch
    assert _registry.dispatch_hook is None and not _python_dispatch._stack


def test_dispatch_mode_around_selective_checkpointing():
    def scenario(T):
        from functools import partial
        cp = T.utils.checkpoint
        log = []
        x = T.tensor([0.5, 1.0], dtype=T.float64, requires_grad=True)

        def policy(ctx, op, *args, **kwargs):
            return cp.CheckpointPolicy.MUST_SAVE if op is T.ops.aten.cos.default else cp.CheckpointPolicy.PREFER_RECOMPUTE
        with dispatch_mode(T, log, None):
            out = cp.checkpoint(lambda t: t.cos().sin(), x, use_reentrant=False,
                                context_fn=partial(cp.create_selective_checkpoint_contexts, policy))
            forward = [n for n in log if n != "detach.default"]   # torch's caching detaches (not an op here)
            out.sum().backward()
        return forward, x.grad
    # (the backward's lists differ: README, "Not supported yet")
    forward, grad = both(scenario)
    assert forward == ["cos.default", "sin.default"]
    assert grad.tolist() == pytest.approx([-math.sin(0.5) * math.cos(math.cos(0.5)), -math.sin(1.0) * math.cos(math.cos(1.0))])


def test_c_mode_stack_functions():
    def scenario(T):
        C = T._C
        f = function_mode(T, [])
        d = dispatch_mode(T, [])
        with f, d:
            got = [C._len_torch_function_stack(), C._is_torch_function_mode_enabled(),
                   C._get_function_stack_at(0) is f, C._len_torch_dispatch_stack(), C._get_dispatch_stack_at(0) is d]
        return got + [C._len_torch_function_stack(), C._is_torch_function_mode_enabled(), C._len_torch_dispatch_stack()]
    assert both(scenario) == [1, True, True, 1, True, 0, False, 0]
    same_error(lambda T: T._C._get_function_stack_at(0), RuntimeError)
    same_error(lambda T: T._C._get_dispatch_stack_at(0), RuntimeError)
    same_error(lambda T: T._C._pop_torch_function_stack(), RuntimeError)


def test_function_mode_sees_backward_and_grad_but_not_their_formulas():
    def scenario(T):
        log = []
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = (x.sin() * x).sum()
        with function_mode(T, log):
            y.backward(retain_graph=True)
            T.autograd.backward(y, retain_graph=True)
            (g,) = T.autograd.grad(y, x, create_graph=True)
        # (types: torch's Python-level functions list Tensor too, ndgrad's only subclasses: README)
        return [(name, fn, kwargs) for name, fn, types, kwargs in log], x.grad, g
    log, xgrad, g = both(scenario)
    assert log == [["m", "backward", {"gradient": None, "retain_graph": True, "create_graph": False,
                                                  "inputs": None}],
                   ["m", "backward", {"grad_tensors": None, "retain_graph": True, "create_graph": False,
                                                  "inputs": None}],
                   ["m", "grad", {"grad_outputs": None, "retain_graph": None, "create_graph": True,
                                              "only_inputs": True, "allow_unused": False, "is_grads_batched": False,
                                              "materialize_grads": False}]]
    expected = [2 * (math.cos(v) * v + math.sin(v)) for v in (1.0, 2.0)]
    assert xgrad.tolist() == pytest.approx(expected) and g.tolist() == pytest.approx([e / 2 for e in expected])


def test_dispatch_mode_names_ops_registered_under_their_in_place_name():
    # fill_ and zero_ are in-place ops of their own (no out-of-place op adds the underscore)
    def scenario(T):
        log = []
        x = T.ones(2)
        with dispatch_mode(T, log, None):
            x.fill_(3.0)
            x.zero_()
            x.add_(1)
        return [str(f) for f in log if "lift_fresh" not in str(f)]
    assert both(scenario) == ["fill_.Scalar", "zero_.default", "add_.Tensor"]


# --- Tensor subclasses with __torch_dispatch__ -----------------------------------------------------

def dispatch_subclass(T, log, reenter=None):
    class Sub(T.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            log.append((func.__name__, [t.__name__ for t in types], [type(a).__name__ for a in args], kwargs))
            if reenter is not None:
                with T.overrides.enable_reentrant_dispatch():
                    reenter.append(T.ones(1, requires_grad=True).exp().grad_fn is not None)
            with T.utils._mode_utils.no_dispatch():
                return func(*args, **kwargs)
    return Sub


def test_subclass_dispatch_sees_ops_below_autograd():
    def scenario(T):
        import importlib
        importlib.import_module(T.__name__ + ".utils._mode_utils")
        log, reenter = [], []
        Sub = dispatch_subclass(T, log, reenter)
        s = Sub._make_subclass(Sub, T.tensor([1.0, 2.0]), True)
        y = T.sin(s)
        z = (s * 2).sum()
        z.backward()
        return (log, reenter, type(y).__name__, y.grad_fn.name(), y.requires_grad, z.grad_fn.name(), s.grad,
                Sub.__torch_function__ is T._C._disabled_torch_function_impl)
    log, reenter, ytype, yname, yreq, zname, grad, disabled = both(scenario)
    # handlers run with grad mode off (what they compute records nothing); enable_reentrant_dispatch
    # gives it back; the result the handler returns is recorded, a plain Tensor
    assert log == [["sin.default", ["Sub"], ["Sub"], {}], ["mul.Tensor", ["Sub"], ["Sub", "int"], {}]]
    assert reenter == [True, True]
    assert ytype == "Tensor" and yname == "SinBackward0" and yreq and zname == "SumBackward0"
    assert grad.tolist() == [2.0, 2.0] and disabled


def test_subclass_dispatch_returning_not_implemented_and_mode_first():
    def scenario(T):
        mode_log, class_log = [], []

        class NotHere(T.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                class_log.append(func.__name__)
                return NotImplemented
        s = NotHere._make_subclass(NotHere, T.ones(2))
        with dispatch_mode(T, mode_log, None, handler=lambda T, func, args, kwargs: T.zeros(2)):
            out = T.cos(s)   # the mode handles it first and never calls func: the subclass sees nothing
        seen_under_mode = list(class_log)
        e = err(lambda: T.cos(s))
        return mode_log, out, seen_under_mode, class_log, e[0], e[1].split("\n")[0]
    mode_log, out, under_mode, class_log, exc, message = scenario(ndgrad)
    assert mode_log == ["cos.default"] and out.tolist() == [0.0, 0.0] and under_mode == []
    assert class_log == ["cos.default"] and exc == "TypeError"
    assert message == "Multiple dispatch failed for 'torch._ops.aten.cos.default'; all __torch_dispatch__ handlers " \
                      "returned NotImplemented:"
    torch = pytest.importorskip("torch")
    assert list(scenario(torch)[2:]) == [under_mode, class_log, exc, message]


def test_no_dispatch_hides_ops_from_modes():
    def scenario(T):
        import importlib
        mode_utils = importlib.import_module(T.__name__ + ".utils._mode_utils")
        log = []
        x = T.ones(2)
        with dispatch_mode(T, log, None):
            x.mul(2)
            with mode_utils.no_dispatch():
                x.add(1)
            x.sub(1)
        return log, mode_utils.all_same_mode([log, log]), mode_utils.all_same_mode([log, []])
    assert both(scenario) == [["mul.Tensor", "sub.Tensor"], True, False]


def test_enable_reentrant_dispatch_outside_a_handler_is_refused():
    def enter(T):
        with T.overrides.enable_reentrant_dispatch():
            pass
    assert same_error(enter) == "Accessing torch dispatch state outside of '__torch_dispatch__' is not allowed."


def test_enable_reentrant_dispatch_in_a_mode_keeps_grad_mode_of_the_call():
    def scenario(T):
        seen = []
        w = T.ones(1, requires_grad=True)

        def handler(T, func, args, kwargs):
            with T.overrides.enable_reentrant_dispatch():
                seen.append(w.exp().requires_grad)
            seen.append(w.exp().requires_grad)
            return func(*args, **kwargs)
        x = T.ones(2, requires_grad=True)
        with dispatch_mode(T, [], None, handler=handler):
            y = x.mul(2)          # recorded by autograd above the mode: grad mode off in the handler, on again
            with T.no_grad():
                x.mul(2)          # off outside, off inside
        return seen, y.grad_fn.name()
    assert both(scenario) == [[True, False, False, False], "MulBackward0"]


def test_function_mode_sees_calls_whose_arguments_are_only_sizes():
    """The ops' inline check skips int sequences (sizes, dims) when no mode is active; a mode still
    sees calls with only such arguments, and the calls of the composites they go through."""
    def scenario(T):
        log = []
        x = T.ones(2, 3)
        with function_mode(T, log):
            T.zeros((2, 3))
            x.view((3, 2))
            x.permute([1, 0])
        return [entry[1] for entry in log]
    names = both(scenario)
    assert names[0] == "zeros" and "view" in names and "permute" in names
