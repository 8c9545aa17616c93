"""Tensor._make_wrapper_subclass: instances of a __torch_dispatch__ subclass that hold no data, only the
metadata they were made with; their ops go to the subclass (which computes on the tensors it wraps), and
autograd records around what it returns, checked against torch."""
import functools

import pytest

import ndgrad

from parity import both, err, same_error


def wrapper_class(T, log=None, policy=None, **make):
    """A subclass wrapping one inner tensor: each op runs on the inner tensors, each Tensor it returns
    is wrapped again; `log` gets the names of the ops it sees."""
    class Wrap(T.Tensor):
        @staticmethod
        def __new__(cls, inner):
            args = (cls, inner.size(), inner.stride(), None, None, inner.dtype, inner.layout, inner.device, False,
                    inner.requires_grad, policy) if policy is not None else (cls, inner.size())
            kwargs = {} if policy is not None else dict(
                dict(strides=inner.stride(), dtype=inner.dtype, device=inner.device,
                     requires_grad=inner.requires_grad), **make)
            return T.Tensor._make_wrapper_subclass(*args, **kwargs)

        def __init__(self, inner):
            self.inner = inner

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            if log is not None:
                log.append(func.__name__)
            unwrap = functools.partial(T.utils._pytree.tree_map_only, cls, lambda t: t.inner)
            out = func(*unwrap(args), **unwrap(kwargs or {}))
            return T.utils._pytree.tree_map_only(T.Tensor, cls, out)
    return Wrap


def test_metadata_of_a_wrapper_instance():
    def scenario(T):
        Wrap = wrapper_class(T)
        x = T.arange(6.0).reshape(2, 3)
        w = Wrap(x)
        strided = T.Tensor._make_wrapper_subclass(Wrap, (2, 3), strides=(1, 2), storage_offset=4,
                                                  dtype=T.float64, requires_grad=True)
        meta = T.Tensor._make_wrapper_subclass(Wrap, [4], device="meta")
        return (type(w).__name__, list(w.shape), w.stride(), w.dtype == T.float32, str(w.device), w.requires_grad,
                w.is_leaf, w.grad_fn, w.storage_offset(), w.data_ptr(), w.is_contiguous(), w.numel(), w.dim(),
                str(w.layout), w._version,
                strided.stride(), strided.storage_offset(), strided.is_contiguous(), strided.dtype == T.float64,
                strided.requires_grad, strided.is_leaf, str(meta.device), meta.is_meta, meta.dtype == T.float32)
    assert both(scenario) == ["Wrap", [2, 3], [3, 1], True, "cpu", False, True, None, 0, 0, True, 6, 2,
                              "torch.strided", 0, [1, 2], 4, False, True, True, True, "meta", True, True]


def test_reading_a_wrapper_instance_data_is_refused():
    def scenario(T):
        w = wrapper_class(T)(T.ones(2, 3))
        return [err(w.numpy)[1], err(w.tolist)[1]]
    assert both(scenario) == [".numpy() is not supported for tensor subclasses.",
                              ".tolist() is not supported for tensor subclasses, got Wrap"]
    # (torch's untyped_storage() of a wrapper made with strides gives a storage of no memory; ndgrad has
    # none to give, and raises torch's error for unallocated data, as torch does for one made without)
    w = wrapper_class(ndgrad)(ndgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="its data is not allocated yet"):
        w.untyped_storage()


@pytest.mark.parametrize("call, exc", [
    (lambda T: T.Tensor._make_wrapper_subclass(int, (2,)), TypeError),
    (lambda T: T.Tensor._make_wrapper_subclass(type("Plain", (T.Tensor,), {}), (2,)), TypeError),
    (lambda T: T.Tensor._make_wrapper_subclass(wrapper_class(T), 3), TypeError),
    (lambda T: T.Tensor._make_wrapper_subclass(wrapper_class(T), (2, 3), (3,)), RuntimeError),
    (lambda T: T.Tensor._make_wrapper_subclass(wrapper_class(T), (2, 3), storage_offset=1), RuntimeError),
    (lambda T: T.Tensor._make_wrapper_subclass(wrapper_class(T), (2,), dtype=T.int64, requires_grad=True),
     RuntimeError),
    (lambda T: T.Tensor._make_wrapper_subclass(wrapper_class(T), (2,), dispatch_sizes_strides_policy="x"),
     ValueError),
])
def test_bad_wrapper_subclass_calls(call, exc):
    assert same_error(call, exc)


def test_ops_on_wrappers_go_to_the_subclass_and_are_recorded_above_it():
    def scenario(T):
        log = []
        Wrap = wrapper_class(T, log)
        x = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=T.float64)
        w = Wrap(x).requires_grad_()
        y = (w * 2).sin()
        v = y.view(-1)   # a view of the wrapper output, recorded as one
        out = v.sum()
        seen = list(log)
        saved = y.grad_fn._saved_self
        out.backward(Wrap(T.tensor(1.0, dtype=T.float64)))
        return (seen, type(y).__name__, y.grad_fn.name(), type(y.inner).__name__, y.inner.requires_grad,
                v.grad_fn.name(), v._base is y, out.grad_fn.name(), type(w.grad).__name__, w.grad.inner,
                type(saved).__name__, saved.inner.tolist() == (w * 2).inner.tolist())
    got = both(scenario)
    assert got[0] == ["mul.Tensor", "sin.default", "view.default", "sum.default"]
    assert got[1:9] == ["Wrap", "SinBackward0", "Tensor", False, "ViewBackward0", True, "SumBackward0", "Wrap"]
    expected = 2 * ndgrad.cos(2 * ndgrad.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=ndgrad.float64))
    assert got[9].ravel().tolist() == pytest.approx(expected.reshape(-1).tolist()) and got[10:] == ["Wrap", True]


def test_a_saved_wrapper_output_is_its_detached_instance():
    def scenario(T):
        log = []
        Wrap = wrapper_class(T, log)
        w = Wrap(T.tensor([0.0, 1.0], dtype=T.float64, requires_grad=True))
        y = w.exp()
        r = y.grad_fn._saved_result
        return log, type(r).__name__, r is y, r.inner.tolist() == y.inner.tolist(), r.inner is y.inner
    assert both(scenario) == [["exp.default", "detach.default", "detach.default"], "Wrap", False, True, False]


def test_detach_of_a_dispatch_subclass_goes_to_it():
    def scenario(T):
        log = []
        Wrap = wrapper_class(T, log)
        x = T.ones(2, requires_grad=True)
        d = Wrap(x).detach()
        data = Wrap(x).data   # .data too, with a version counter of its own
        data.inner.add_(1)
        return log, type(d).__name__, d.requires_grad, d.inner.requires_grad, type(data).__name__, x._version
    assert both(scenario) == [["detach.default", "detach.default"], "Wrap", False, False, "Wrap", 1]


def test_a_gradient_from_plain_ops_reaches_a_wrapper_leaf_plain():
    def scenario(T):
        class Forward(T.Tensor):   # returns its handler's plain results: the graph continues on plain tensors
            @staticmethod
            def __new__(cls, inner):
                return T.Tensor._make_wrapper_subclass(cls, inner.size(), dtype=inner.dtype,
                                                       requires_grad=inner.requires_grad)

            def __init__(self, inner):
                self.inner = inner

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                unwrap = functools.partial(T.utils._pytree.tree_map_only, cls, lambda t: t.inner)
                return func(*unwrap(args), **unwrap(kwargs or {}))
        x = T.tensor([1.0, 2.0], requires_grad=True)
        a = Forward(x)
        y = a * 3
        y.sum().backward()
        return type(y).__name__, y.grad_fn.name(), type(a.grad).__name__, a.grad.tolist(), x.grad
    assert both(scenario) == ["Tensor", "MulBackward0", "Tensor", [3.0, 3.0], None]


def test_backward_asks_torch_function_of_a_subclass():
    def scenario(T):
        called = []

        class Async(T.Tensor):
            @staticmethod
            def __new__(cls, data):
                return T.Tensor._make_wrapper_subclass(cls, data.size(), strides=data.stride(),
                                                       storage_offset=data.storage_offset(), dtype=data.dtype,
                                                       requires_grad=data.requires_grad)

            def __init__(self, data):
                self.data_ = data

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                called.append(func.__name__)
                unwrap = functools.partial(T.utils._pytree.tree_map_only, cls, lambda t: t.data_)
                return func(*unwrap(args), **unwrap(kwargs or {}))

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                unwrap = functools.partial(T.utils._pytree.tree_map_only, cls, lambda t: t.data_)
                return func(*unwrap(args), **unwrap(kwargs or {}))
        x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 2
        T.autograd.backward(Async(y), T.ones_like(y))
        (g,) = T.autograd.grad(Async(x * x), x, T.ones(3))
        return called, x.grad.tolist(), g.tolist()
    assert both(scenario) == [["backward", "grad"], [2.0, 2.0, 2.0], [2.0, -4.0, 6.0]]


@pytest.mark.parametrize("policy", ["sizes", "strides"])
def test_metadata_queries_go_to_the_subclass_under_a_policy(policy):
    def scenario(T):
        log = []

        class Sized(T.Tensor):
            @staticmethod
            def __new__(cls, inner):
                return T.Tensor._make_wrapper_subclass(cls, inner.size(), inner.stride(), None, None, inner.dtype,
                                                       inner.layout, inner.device, False, inner.requires_grad,
                                                       policy)

            def __init__(self, inner):
                self.inner = inner

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                log.append(func.__name__)
                if func is T.ops.aten.sym_size.default:
                    return [5, 7]
                if func is T.ops.aten.sym_stride.default:
                    return [9, 1]
                return func(*[a.inner if isinstance(a, cls) else a for a in args], **(kwargs or {}))
        s = Sized(T.ones(4, 3))
        got = [list(s.shape), s.size(1), s.dim(), s.numel(), s.stride(), s.stride(0), s.is_contiguous(),
               s.storage_offset(), str(s.dtype)]
        return got, log, T.ops.aten.sym_size.default(T.ones(2, 3)), T.ops.aten.sym_size.int(T.ones(2, 3), 1)
    got, log, plain_sizes, plain_size = both(scenario)
    if policy == "sizes":
        assert got == [[5, 7], 7, 2, 12, [9, 1], 9, True, 0, "torch.float32"]
        assert log == ["sym_size.default", "dim.default", "sym_size.default", "dim.default", "sym_numel.default",
                       "sym_stride.default", "sym_stride.default", "is_contiguous.default",
                       "sym_storage_offset.default"]
    else:
        assert got == [[4, 3], 3, 2, 12, [9, 1], 9, True, 0, "torch.float32"]
        assert log == ["sym_stride.default", "sym_stride.default", "is_contiguous.default"]
    assert plain_sizes == [2, 3] and plain_size == 3


def test_selective_checkpoint_through_a_wrapper_subclass():
    def scenario(T):
        import importlib
        cp = importlib.import_module(T.__name__ + ".utils.checkpoint")
        Wrap = wrapper_class(T, policy="sizes")
        asked = []

        def policy_fn(ctx, op, *args, **kwargs):
            asked.append(op.__name__)
            return cp.CheckpointPolicy.MUST_SAVE if op is T.ops.aten.mul.Tensor else \
                cp.CheckpointPolicy.PREFER_RECOMPUTE

        def fn(x):
            v = (x * x.sum()).view(-1).view(4, 3)
            return v.exp(), v.grad_fn._saved_self_sym_sizes
        x = (T.arange(12.0, dtype=T.float64).reshape(4, 3) / 10).requires_grad_()
        w = Wrap(x)
        out, sizes = cp.checkpoint(fn, w, use_reentrant=False,
                                   context_fn=functools.partial(cp.create_selective_checkpoint_contexts, policy_fn))
        out.sum().backward()
        return type(out).__name__, list(sizes), sorted(set(asked)), type(w.grad).__name__, w.grad.inner
    got = both(scenario)
    assert got[:4] == ["Wrap", [12], ["exp.default", "mul.Tensor", "sum.default", "view.default"], "Wrap"]
    assert got[4].shape == (4, 3) and 2900 < got[4][0][0] < 2960 and 12000 < got[4][3][2] < 12500


def test_implicit_gradient_of_a_wrapper_output_is_a_wrapper():
    def scenario(T):
        log = []
        Wrap = wrapper_class(T, log)
        w = Wrap(T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64)).requires_grad_()
        loss = (w * w).sum()
        del log[:]
        loss.backward()   # the implicit gradient is ones_like(loss): the subclass's
        like = T.zeros_like(w, dtype=T.float32)
        return log[0], type(w.grad).__name__, w.grad.inner.tolist(), type(like).__name__, str(like.inner.dtype)
    assert both(scenario) == ["ones_like.default", "Wrap", [[2.0, 4.0], [6.0, 8.0]], "Wrap", "torch.float32"]


def test_a_view_op_on_a_wrapper_gives_a_view_of_it():
    def scenario(T):
        class Forward(T.Tensor):   # its handler returns the inner tensors' results, plain
            @staticmethod
            def __new__(cls, inner):
                return T.Tensor._make_wrapper_subclass(cls, inner.size(), dtype=inner.dtype,
                                                       requires_grad=inner.requires_grad)

            def __init__(self, inner):
                self.inner = inner

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return func(*[a.inner if isinstance(a, cls) else a for a in args], **(kwargs or {}))
        a = Forward(T.ones(2, 3, requires_grad=True))
        v = a.view(-1)
        v.sum().backward()
        with T.no_grad():
            u = a.view(3, 2)
        w = wrapper_class(T)(T.ones(2, 3))
        with T.no_grad():
            x = w.t()
        return (type(v).__name__, v._base is a, v.grad_fn.name(), a.grad.tolist(), u._base is a, u.grad_fn,
                type(x).__name__, x._base is w, x._is_view(), list(x.shape))
    assert both(scenario) == ["Tensor", True, "ViewBackward0", [[1.0] * 3] * 2, True, None, "Wrap", True, True,
                              [3, 2]]


def test_item_of_a_wrapper_goes_to_the_subclass():
    def scenario(T):
        log = []
        Wrap = wrapper_class(T, log)
        w = Wrap(T.tensor([2.5], dtype=T.float64))
        values = [w.item(), float(w), int(Wrap(T.tensor(3)))]
        return values, log, err(Wrap(T.ones(2)).item)
    assert both(scenario) == [[2.5, 2.5, 3], ["_local_scalar_dense.default"] * 3,
                              ["RuntimeError", "a Tensor with 2 elements cannot be converted to Scalar"]]
