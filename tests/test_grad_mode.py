"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode — as context managers,
decorators and (set_grad_enabled) a plain function; inference tensors. (Threads: test_threads.py.)"""
import pytest

import ndgrad
from parity import both, same_error


def leaf():
    return ndgrad.tensor([1.0, 2.0], requires_grad=True)


def test_no_grad_records_nothing():
    x = leaf()
    with ndgrad.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert ndgrad.is_grad_enabled()


def test_no_grad_as_decorator():
    @ndgrad.no_grad()
    def f(x):
        return x * 2
    assert f(leaf()).grad_fn is None
    assert ndgrad.is_grad_enabled()


def test_no_grad_on_generator_function():
    @ndgrad.no_grad()
    def gen(x):
        yield x * 2
        yield x * 3
    outs = list(gen(leaf()))
    assert all(o.grad_fn is None for o in outs) and ndgrad.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = leaf()
    with ndgrad.no_grad():
        with ndgrad.enable_grad():
            y = x * 2
        z = x * 2
    assert y.grad_fn is not None and z.grad_fn is None


def test_set_grad_enabled_as_function_and_context():
    x = leaf()
    ndgrad.set_grad_enabled(False)
    try:
        assert (x * 2).grad_fn is None
    finally:
        ndgrad.set_grad_enabled(True)
    with ndgrad.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert ndgrad.is_grad_enabled()
    assert (x * 2).grad_fn is not None


def test_set_grad_enabled_as_decorator_does_not_switch_at_definition():
    @ndgrad.set_grad_enabled(False)
    def f(x):
        return x * 2
    assert ndgrad.is_grad_enabled()
    assert f(leaf()).grad_fn is None
    assert ndgrad.is_grad_enabled()


def test_set_grad_enabled_rejects_non_bool():
    with pytest.raises(TypeError):
        ndgrad.set_grad_enabled(1)


def test_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with ndgrad.no_grad():
            raise ValueError
    assert ndgrad.is_grad_enabled()


def test_inference_mode_makes_inference_tensors():
    x = leaf()
    with ndgrad.inference_mode():
        assert ndgrad.is_inference_mode_enabled() and not ndgrad.is_grad_enabled()
        y = x * 2
        z = ndgrad.ones(2)
    assert y.is_inference() and z.is_inference() and not x.is_inference()
    assert y.grad_fn is None and not ndgrad.is_inference_mode_enabled()
    with pytest.raises(RuntimeError, match="inference tensor"):
        y.requires_grad_()


def test_inference_mode_false_is_normal_mode():
    with ndgrad.inference_mode(False):
        y = leaf() * 2
    assert y.grad_fn is not None and not y.is_inference()


# --- torch's decorator forms, per torch 2.13 --------------------------------------------------

def test_no_grad_and_enable_grad_decorate_without_parentheses():
    def scenario(T):
        x = T.ones(2, requires_grad=True)

        @T.no_grad
        def frozen(t):
            return t * 2

        @T.enable_grad
        def tracked(t):
            return t * 2

        with T.no_grad():
            tracked_out = tracked(x)
        return [frozen(x).requires_grad, T.no_grad(lambda t: t * 2)(x).requires_grad, tracked_out.requires_grad,
                T.is_grad_enabled()]

    assert both(scenario) == [False, False, True, True]


def test_decorating_a_class_warns_and_builds_it_in_the_mode():
    def scenario(T):
        with pytest.warns(FutureWarning) as caught:
            @T.no_grad()
            class Built:
                def __init__(self):
                    self.mode_in_init = T.is_grad_enabled()

                def method(self):
                    return T.is_grad_enabled()
        obj = Built()
        return [str(caught[0].message), obj.mode_in_init, obj.method()]

    message, in_init, in_method = both(scenario)
    assert message.startswith("Decorating classes is deprecated") and (in_init, in_method) == (False, True)


def test_decorated_generator_keeps_its_mode_through_throw_and_close():
    def scenario(T):
        log = []

        @T.no_grad()
        def gen():
            for i in range(3):
                try:
                    yield i
                except ValueError:
                    log.append(("thrown", T.is_grad_enabled()))
                except GeneratorExit:
                    log.append(("closed", T.is_grad_enabled()))
                    raise

        g = gen()
        log.append(("first", next(g), T.is_grad_enabled()))
        log.append(("after throw", g.throw(ValueError), T.is_grad_enabled()))
        g.close()
        log.append(("end", T.is_grad_enabled()))
        return log

    assert both(scenario) == [["first", 0, True], ["thrown", False], ["after throw", 1, True], ["closed", False],
                              ["end", True]]


def test_set_grad_enabled_refuses_non_bool_with_torchs_message():
    same_error(lambda T: T.set_grad_enabled(1), TypeError)
    same_error(lambda T: T._C._set_grad_enabled(None), TypeError)
    same_error(lambda T: T.autograd.set_multithreading_enabled(0), TypeError)


def test_private_set_grad_enabled_is_the_same_flag():
    def scenario(T):
        T._C._set_grad_enabled(False)
        try:
            seen = [T.is_grad_enabled(), T._C.is_grad_enabled(), (T.ones(1, requires_grad=True) * 2).requires_grad]
        finally:
            T._C._set_grad_enabled(True)
        return seen + [T._C.is_grad_enabled()]

    assert both(scenario) == [False, False, False, True]


def test_inference_mode_false_inside_inference_mode_and_no_grad():
    def scenario(T):
        seen = []
        with T.inference_mode():
            with T.inference_mode(False):
                seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
            seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled(), T.autograd.is_multithreading_enabled()))
        with T.no_grad():
            with T.inference_mode(False):   # replaces the whole state: grad mode is on inside
                seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
            seen.append((T.is_inference_mode_enabled(), T.is_grad_enabled()))
        return seen

    assert both(scenario) == [[False, True], [True, False, False], [False, True], [False, False]]


def test_inference_mode_decorates_bare_and_with_mode():
    def scenario(T):
        def probe(t):
            return [T.is_inference_mode_enabled(), (t * 2).is_inference()]
        x = T.ones(1)
        return [T.inference_mode(probe)(x), T.inference_mode(mode=probe)(x), T.inference_mode(False)(probe)(x)]

    assert both(scenario) == [[True, True], [True, True], [False, False]]


def test_set_multithreading_enabled_as_function_and_context():
    def scenario(T):
        seen = [T.autograd.is_multithreading_enabled()]
        with T.autograd.set_multithreading_enabled(False):
            seen.append(T.autograd.is_multithreading_enabled())
        seen.append(T.autograd.is_multithreading_enabled())
        mode = T.autograd.set_multithreading_enabled(False)   # a call sets it at once
        seen.append(T._C._is_multithreading_enabled())
        mode.__exit__(None, None, None)
        seen.append(T.autograd.is_multithreading_enabled())
        return seen

    assert both(scenario) == [True, False, True, False, True]


# --- inference tensors -------------------------------------------------------------------------

def test_is_inference():
    def scenario(T):
        with T.inference_mode():
            made = T.ones(2) * 2
        return [T.is_inference(made), made.is_inference(), T.is_inference(T.ones(2))]

    assert both(scenario) == [True, True, False]
    same_error(lambda T: T.is_inference(1), TypeError)


def test_inference_tensor_requires_grad_inside_the_mode_only():
    def scenario(T):
        with T.inference_mode():
            t = T.ones(2, requires_grad=True)
            u = T.ones(2).requires_grad_()
        return [t.requires_grad, t.is_inference(), u.requires_grad]

    assert both(scenario) == [True, True, True]

    def outside(T):
        with T.inference_mode():
            t = T.ones(2)
        t.requires_grad_()
    same_error(outside)


def test_inference_tensor_has_no_version_counter():
    def call(T):
        with T.inference_mode():
            t = T.ones(2)
        return t._version
    assert same_error(call) == "Inference tensors do not track version counter."


def test_inplace_on_inference_tensor_outside_the_mode():
    def make(T, requires_grad=False):
        with T.inference_mode():
            return T.ones(2, 3, requires_grad=requires_grad)
    msg = same_error(lambda T: make(T).add_(1))
    assert msg.startswith("Inplace update to inference tensor outside InferenceMode is not allowed.")
    assert same_error(lambda T: make(T).transpose_(0, 1)) == msg
    # a leaf that requires grad gets the leaf error first
    assert "leaf Variable" in same_error(lambda T: make(T, True).mul_(2))

    def inside(T):
        t = make(T)
        with T.inference_mode():
            t.add_(1)
        return [t.is_inference(), t]
    both(inside)


def test_inference_tensor_in_recorded_ops():
    def scenario(T):
        s = T.ones(2, 3, requires_grad=True)
        with T.inference_mode():
            c = T.ones(2, 3, requires_grad=True)
        out = c.add(s)   # add saves nothing: allowed, and c gets its gradient
        out.sum().backward()
        v = c.view(-1)   # a view of an inference tensor: an inference tensor, no view, no history
        return [out.is_inference(), out.requires_grad, c.grad, v.is_inference(), v._is_view(), v.requires_grad,
                v.is_leaf]

    assert both(scenario)[:2] == [False, True]

    def saved(T):
        s = T.ones(2, 3, requires_grad=True)
        with T.inference_mode():
            c = T.ones(2, 3)
        return c * s   # mul saves c for the gradient of s
    assert same_error(saved).startswith("Inference tensors cannot be saved for backward.")


def test_views_made_in_inference_mode():
    def scenario(T):
        a = T.ones(2, 3, requires_grad=True).clone()
        with T.inference_mode():
            v = a.view(-1)
            w = T.ones(2, 3).view(-1)
        return [v.is_inference(), v._is_view(), v.requires_grad, v.is_leaf, w.is_inference(), w._is_view()]

    assert both(scenario) == [False, True, True, True, True, False]

    def modified(T):
        a = T.ones(2, 3, requires_grad=True).clone()
        with T.inference_mode():
            v = a.view(-1)
        v.add_(1)
    assert "is being modified inplace in normal mode" in same_error(modified)

    def base_modified(T):
        a = T.ones(2, 3, requires_grad=True).clone()
        with T.inference_mode():
            v = a.view(-1)
        a.mul_(2)
        return v.grad_fn
    assert "its base or another view of its base has been modified inplace" in same_error(base_modified)
