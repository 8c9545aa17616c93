"""The __torch_function__ protocol: Tensor subclasses keep their type through ops, and any class
with __torch_function__ takes over the public functions it is passed to."""
import pytest

from parity import both, same_error


def _subclass(T):
    class Marked(T.Tensor):
        pass
    return Marked


def test_subclass_type_survives_functions_methods_and_operators():
    def scenario(T):
        M = _subclass(T)
        m = T.tensor([1.0, -2.0, 3.0], requires_grad=True).as_subclass(M)
        outs = [T.add(m, 1), m.exp(), m * 2, 1 - m, T.cat([m, m]), T.max(m, 0).values, T.mean(m), m[1:]]
        names = [type(o).__name__ for o in outs]
        loss = sum(o.sum() for o in outs[:5])
        (g,) = T.autograd.grad(loss, m)
        return names, g   # (the gradient's type differs: ndgrad's backward runs on arrays)
    names, g = both(scenario)
    assert names == ["Marked"] * 8
    assert list(g) == pytest.approx([1 + 2.718281828 + 2 - 1 + 2, 1 + 0.135335283 + 2 - 1 + 2, 1 + 20.08553692 + 2 - 1 + 2])


def test_parameter_opts_out():
    def scenario(T):
        p = T.nn.Parameter(T.ones(2))
        return [type(p * 2).__name__, type(T.add(p, 1)).__name__, type(T.nn.functional.linear(T.ones(1, 2), p[None])).__name__]
    assert both(scenario) == ["Tensor"] * 3


def test_tensor_like_class_overrides_functions():
    def scenario(T):
        seen = []

        class Like:
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append((func.__name__, [t.__name__ for t in types], len(args)))
                return "handled"
        like = Like()
        out = [T.mean(like), T.add(T.ones(2), like), T.add(T.ones(2), other=like), T.ones(2) * like,
               T.cat([T.ones(1), like]), T.nn.functional.relu(like)]
        return out, seen, T.overrides.is_tensor_like(like), T.overrides.is_tensor_like(3), \
            T.overrides.has_torch_function((T.ones(1), like)), T.overrides.has_torch_function((T.ones(1), 2))
    out, seen, like_is, three_is, has, has_not = both(scenario)
    assert out == ["handled"] * 6 and like_is and not three_is and has and not has_not
    assert [s[0] for s in seen] == ["mean", "add", "add", "mul", "cat", "relu"]


def test_all_not_implemented_is_a_type_error():
    class Refuses:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return NotImplemented
    msg = same_error(lambda T: T.mul(Refuses(), 3), TypeError)
    assert msg.startswith("Multiple dispatch failed for 'torch.mul'") and "Refuses" in msg


def test_dispatch_disabled():
    def scenario(T):
        M = _subclass(T)
        m = T.ones(2).as_subclass(M)
        with T._C.DisableTorchFunctionSubclass():
            inside = type(m + 1).__name__
        with T._C.DisableTorchFunction():
            inside_all = type(T.add(m, 1)).__name__
        return inside, inside_all, type(m + 1).__name__
    assert both(scenario) == ["Tensor", "Tensor", "Marked"]


def test_subclass_prints_its_name():
    def scenario(T):
        M = _subclass(T)
        m = T.arange(6.0).reshape(2, 3).as_subclass(M)
        return [repr(m), repr(m.requires_grad_()), str(T.zeros(0).as_subclass(M)),
                repr(T.ones(2, dtype=T.int32).as_subclass(M)), repr(T.nn.Parameter(T.ones(1)))]
    shown = both(scenario)
    assert shown[0] == "Marked([[0., 1., 2.],\n        [3., 4., 5.]])"
    assert shown[2] == "Marked([])"
    assert shown[4] == "Parameter containing:\ntensor([1.], requires_grad=True)"


def test_nn_functional_linear_dispatches_torch_function():
    def scenario(T):
        class Spy:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return func.__name__, len(args)
        return list(T.nn.functional.linear(Spy(), T.ones(2, 2)))
    assert both(scenario) == ["linear", 2]


def test_a_subclass_init_with_arguments_of_its_own():
    # as torch: Tensor.__new__ makes the tensor, so super().__init__() in a subclass changes nothing
    def scenario(T):
        class Tagged(T.Tensor):
            def __init__(self, data, tag="x"):
                super().__init__()
                self.tag = tag
        t = Tagged([1.0, 2.0])   # (a keyword of its own would need a __new__ of its own, in torch too)
        p = T.nn.Parameter(T.ones(2), False)
        return [type(t).__name__, t.tolist(), t.tag, T.Tensor(2, 3).shape, p.requires_grad,
                type(T.nn.UninitializedParameter()).__name__, T.nn.UninitializedBuffer(requires_grad=True).requires_grad]
    assert both(scenario) == ["Tagged", [1.0, 2.0], "x", [2, 3], False, "UninitializedParameter", True]


def test_make_subclass_aliases_data_as_a_new_leaf_of_the_subclass():
    def scenario(T):
        class Scaled(T.Tensor):
            def __new__(cls, data, scale=1.0):
                t = T.Tensor._make_subclass(cls, data, True)
                t.scale = scale
                return t

        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        s = Scaled(y, 3.0)
        shares = s.data_ptr() == y.data_ptr()
        before = s._version
        with T.no_grad():
            y.add_(1)
        (s * s.scale).sum().backward()
        plain = T.Tensor._make_subclass(Scaled, T.arange(6.0).view(2, 3).t())
        return [type(s).__name__, s.scale, s.is_leaf, s.grad_fn is None, shares, before, s._version, s.detach(),
                s.grad, plain.requires_grad, plain.stride(), plain.is_contiguous()]
    r = both(scenario)
    assert r[:7] == ["Scaled", 3.0, True, True, True, 0, 1] and r[-2:] == [[1, 3], False]
    same_error(lambda T: T.Tensor._make_subclass(int, T.ones(1)), TypeError)
    same_error(lambda T: T.Tensor._make_subclass(_subclass(T), [1.0]), TypeError)
    same_error(lambda T: T.Tensor._make_subclass(_subclass(T), T.ones(2, dtype=T.int64), True))
