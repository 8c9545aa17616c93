"""Saved tensors as torch exposes them: SavedTensor objects (data, unpack_hook, unpack, hooks),
the saved-tensor hooks stack (its packing order, what a backward may do to it, disabling it) and
the torch._C._autograd entry points over it.

Scenarios are written against the torch API (`T` is ndgrad or torch) and compared where torch is installed.
"""
import gc
import weakref

import pytest

from parity import both, err, leaf, parity, same_error

import ndgrad


def test_saved_tensor_data_and_unpack_hook():
    def s(T):
        a = T.tensor(2.0, requires_grad=True)

        def unpack(packed):
            return packed[1]
        with T.autograd.graph.saved_tensors_hooks(lambda t: ("box", t), unpack):
            b = a ** 2
        c = b.exp()
        d = c ** 2
        packed = b.grad_fn._raw_saved_self
        out = c.grad_fn._raw_saved_result
        inp = d.grad_fn._raw_saved_self
        facts = [packed.data[0], packed.data[1] is a, packed.unpack_hook is unpack,
                 out.data is c, out.data.requires_grad, out.data.grad_fn is None, out.unpack_hook is None,
                 inp.data is c, inp.unpack_hook is None]
        d.backward()
        return facts + [inp.data is None, a.grad]
    assert both(s)[:9] == ["box", True, True, False, False, True, True, True, True]


def test_saved_tensor_is_not_constructible_and_is_the_c_type():
    def s(T):
        y = T.ones(2, requires_grad=True).exp()
        return [type(y.grad_fn._raw_saved_result) is T._C._autograd.SavedTensor,
                T.autograd.SavedTensor is T._C._autograd.SavedTensor, err(lambda: T.autograd.SavedTensor())]
    r = both(s)
    assert r[2] == ["RuntimeError", "Trying to create a SavedTensor object from Python is forbidden."]


def test_make_saved_tensor_packs_once_and_unpacks_each_time():
    def s(T):
        calls = []
        a = T.tensor([1.0, 2.0], requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(lambda t: calls.append("pack") or t * 3,
                                                  lambda t: calls.append("unpack") or t / 3):
            saved = T._C._autograd._make_saved_tensor(a, is_output=False)
            calls.append("made")
            u1, u2 = saved.unpack(), saved.unpack()
        plain = T._C._autograd._make_saved_tensor(a, is_output=False)
        return [calls, u1, u2, u1.requires_grad, plain.unpack() is a, plain.data is a]
    assert both(s)[0] == ["pack", "made", "unpack", "unpack"]


def test_make_saved_tensor_argument_errors():
    def s(T):
        a = T.ones(2, requires_grad=True)
        return [err(lambda: T._C._autograd._make_saved_tensor(None, is_output=False))[0],
                err(lambda: T._C._autograd._make_saved_tensor(a))[0]]
    assert both(s) == ["TypeError", "TypeError"]


def test_register_hooks_argument_checks():
    def s(T):
        y = leaf(T).exp()
        raw = y.grad_fn._raw_saved_result
        out = [err(lambda: raw.register_hooks(lambda t: t))[0], err(lambda: raw.register_hooks(1, 1))[0]]
        raw.register_hooks(lambda t: t * 2, lambda t: t / 2)
        return out + [err(lambda: raw.register_hooks(lambda t: t, lambda t: t)), y.grad_fn._saved_result]
    r = both(s)
    assert r[:2] == ["TypeError", "TypeError"] and "already been set" in r[2][1]


def test_pack_order_is_torchs():
    def s(T):
        a = T.tensor([1.0, 1.0], requires_grad=True)
        b = T.tensor([2.0, 2.0], requires_grad=True)
        c = T.tensor([3.0, 3.0], requires_grad=True)
        orders = []
        for op in (lambda: a * b, lambda: T.div(a, b), lambda: T.lerp(a, b, c), lambda: T.pow(a, b),
                   lambda: T.atan2(a, b), lambda: T.addcmul(a, b, c)):
            seen = []
            with T.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t[0].item()) or t, lambda t: t):
                op()
            orders.append(seen)
        return orders
    assert both(s)[0] == [2.0, 1.0]   # mul packs `other` before `self`


def test_hooks_entered_or_exited_inside_backward_do_not_outlive_it():
    def s(T):
        inner = T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)

        def unpack(t):
            inner.__enter__()   # left open on purpose: the backward drops it
            return t
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            T.ones(2, requires_grad=True).sin().sum().backward()
        y = T.ones(1, requires_grad=True).exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)   # nothing packed it
        return y.grad_fn._saved_result
    parity(s)
    assert not ndgrad.autograd.graph.saved_hooks


def test_exit_pops_the_innermost_hooks():
    def s(T):
        outer = T.autograd.graph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: p[1])
        inner = T.autograd.graph.saved_tensors_hooks(lambda t: ("inner", t), lambda p: p[1])
        outer.__enter__()
        inner.__enter__()
        outer.__exit__()          # pops the innermost, which is `inner`
        y = T.ones(1, requires_grad=True).exp()
        outer.__exit__()
        z = T.ones(1, requires_grad=True).exp()
        return [y.grad_fn._raw_saved_result.data[0], z.grad_fn._raw_saved_result.unpack_hook is None]
    assert both(s) == ["outer", True]


def test_disable_saved_tensors_hooks_nesting_and_state():
    def s(T):
        G, A = T.autograd.graph, T._C._autograd
        states = [A._saved_tensors_hooks_is_enabled()]
        with G.disable_saved_tensors_hooks("outer"):
            with G.disable_saved_tensors_hooks("inner"):
                states.append(err(lambda: G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()))
            states += [A._saved_tensors_hooks_is_enabled(), A._saved_tensors_hooks_get_disabled_error_message()]
        states.append(A._saved_tensors_hooks_is_enabled())
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            states.append(err(lambda: G.disable_saved_tensors_hooks("busy").__enter__()))
        return states + [A._saved_tensors_hooks_is_enabled()]
    assert both(s) == [True, ["RuntimeError", "inner"], False, "outer", True, ["RuntimeError", "busy"], True]


def test_push_pop_and_top_of_the_hooks_stack():
    def s(T):
        A = T._C._autograd

        def pack(t):
            return t
        A._push_saved_tensors_default_hooks(pack, pack)
        top = A._top_saved_tensors_default_hooks(False)
        y = T.ones(1, requires_grad=True).exp()
        A._pop_saved_tensors_default_hooks()
        return [top[0] is pack, y.grad_fn._raw_saved_result.unpack_hook is pack,
                A._top_saved_tensors_default_hooks(False)]
    assert both(s) == [True, True, None]


def test_custom_function_raw_saved_tensors():
    def s(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        a = leaf(T)
        y = F.apply(a)
        raw = y.grad_fn._raw_saved_tensors
        facts = [len(raw), type(raw[0]) is T._C._autograd.SavedTensor,
                 err(lambda: raw[1].register_hooks(lambda t: t, lambda t: t))]
        raw[0].register_hooks(lambda t: t * 10, lambda t: t / 10)
        y.sum().backward()
        return facts + [err(lambda: y.grad_fn._raw_saved_tensors)[0], a.grad]
    r = both(s)
    assert r[2][1] == "Calling register_hooks on a saved tensor with value None is forbidden"


def test_clear_saved_tensors_on_access():
    def s(T):
        class F(T.autograd.Function):
            clear_saved_tensors_on_access = True

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                ref = weakref.ref(x)
                del x
                F.seen = [ref() is None, err(lambda: ctx.saved_tensors)]
                return g
        F.apply(leaf(T).clone()).sum().backward()
        return F.seen
    r = both(s)
    assert r[0] is True and "can only be accessed once" in r[1][1]


def test_saved_variables_is_deprecated():
    def s(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_variables
                return g * 2
        y = F.apply(leaf(T))
        with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated; use 'saved_tensors'"):
            y.grad_fn.saved_variables
        return True
    parity(s)


@pytest.mark.parametrize("collector", ["gc on", "gc off"])
def test_custom_function_node_does_not_keep_a_dirty_view_alive(collector):
    def s(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        def scope():
            x = T.tensor(1.0, requires_grad=True).clone()
            x = x.view_as(x)
            F.apply(x)
            return weakref.ref(x)
        return scope()() is None
    if collector == "gc on":
        assert both(s) is True
    else:   # ndgrad frees it by reference counting alone: no cycle through the node
        gc.disable()
        try:
            assert s(ndgrad) is True
        finally:
            gc.enable()


def test_weak_tensor_ref():
    def s(T):
        t = T.ones(2)
        ref = T._C._WeakTensorRef(t)
        alive = ref.expired()
        del t
        return [alive, ref.expired()]
    assert both(s) == [False, True]


def test_saved_tensors_hooks_error_message_is_torchs():
    def call(T):
        with T.autograd.graph.disable_saved_tensors_hooks("custom message"):
            with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    assert same_error(call) == "custom message"


def test_unpack_hooks_run_in_torchs_order_arguments_by_name_then_outputs():
    def scenario(T):
        events = []
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([3.0, 4.0], requires_grad=True) * 1.0

        def pack(t):
            events.append(("pack", t.tolist()))
            return t

        def unpack(t):
            events.append(("unpack", t.tolist()))
            return t
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (a * b).exp()   # mul saves self and other; exp saves its result
        y.sum().backward()
        return events
    e3, e8 = 20.08553695678711, 2980.9580078125   # exp(a * b) in float32
    assert both(scenario) == [["pack", [3.0, 4.0]], ["pack", [1.0, 2.0]], ["pack", [e3, e8]],
                              ["unpack", [e3, e8]], ["unpack", [3.0, 4.0]], ["unpack", [1.0, 2.0]]]


@pytest.mark.parametrize("call", [
    lambda T, x: x.take(T.tensor([0, 2])),
    lambda T, x: x.take(T.tensor([], dtype=T.long)),
    lambda T, x: x.gather(0, T.tensor([1, 1])),
    lambda T, x: x.masked_select(T.tensor([True, False, True])),
    lambda T, x: T.fft.rfft(x),
    lambda T, x: T.zeros(4, dtype=T.float64).put(T.tensor([0, 3, 1]), x),
], ids=["take", "take-empty", "gather", "masked_select", "rfft", "put-source"])
def test_inputs_read_only_for_their_shape_are_still_version_checked_where_torch_saves_them(call):
    # torch saves these inputs whole (their formulas pass them to a helper), so modifying one in
    # place before the backward is an error, even though the gradient needs only its shape
    def scenario(T):
        x = leaf(T)
        with T.no_grad():
            x.mul_(2)
        y = call(T, x)
        with T.no_grad():
            x.add_(1)
        y.abs().sum().backward()
    message = same_error(scenario)
    assert "modified by an inplace operation" in message and "is at version 2; expected version 1" in message


def test_inputs_read_only_for_their_shape_are_saved_as_metadata():
    def scenario(T):
        x = leaf(T)
        y = x.sum()
        with T.no_grad():
            x.add_(1)
        y.backward()   # sum saves only x's shape: no version check
        return x.grad
    assert both(scenario).tolist() == [1.0, 1.0, 1.0]


def test_inputs_are_packed_before_a_dispatch_mode_sees_the_op_and_outputs_after():
    # autograd sits above dispatch modes: the inputs an op saves are packed before it reaches the mode
    # (by saved name: pow's exponent after self), its saved outputs once it has run
    def scenario(T):
        TorchDispatchMode = __import__(T.__name__ + ".utils._python_dispatch", fromlist=["x"]).TorchDispatchMode
        log = []

        class Log(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                log.append(str(func))
                return func(*args, **(kwargs or {}))

        def pack(t):
            log.append(t.tolist())
            return t
        x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = T.tensor([3.0, 4.0], dtype=T.float64, requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t), Log():
            x.sin()
            x.exp()
            T.mul(y, x)
            T.stack([x * 2, y])
            z = x.pow(y)
        z.sum().backward()
        return [log, x.grad]
    log, _ = both(scenario)
    e1, e2 = 2.718281828459045, 7.38905609893065
    assert log == [[1.0, 2.0], "aten.sin.default", "aten.exp.default", [e1, e2], [1.0, 2.0], [3.0, 4.0],
                   "aten.mul.Tensor", "aten.mul.Tensor", "aten.stack.default", [3.0, 4.0], [1.0, 2.0],
                   "aten.pow.Tensor_Tensor", [1.0, 16.0]]
