"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode — as context managers,
decorators and (set_grad_enabled) a plain function."""
import pytest

import ndgrad


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
