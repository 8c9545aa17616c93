"""torch.library: custom ops (custom_op, register_autograd / kernel / fake, Library define / impl),
each scenario run on ndgrad and torch and compared (values, grad_fn names, errors)."""
import itertools
from functools import partial
import typing
import warnings

import pytest

import ndgrad
from parity import both, err, leaf

_ids = itertools.count()


def fresh(name):
    """A name no earlier test used: torch keeps its custom ops for the whole process."""
    return f"ndgrad_test::{name}_{next(_ids)}"


def ops_of(T, qualname):
    ns, name = qualname.split("::")
    return getattr(getattr(T.ops, ns), name)


def test_custom_op_forward_schema_and_overloads():
    name = fresh("scale")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=())
        def scale(x: T.Tensor, n: int, *, shift: float = 0.5) -> T.Tensor:
            return x * n + shift
        packet = ops_of(T, name)
        x = T.tensor([1.0, 2.0])
        return [scale(x, 3), packet(x, 2, shift=1.0), packet.default(x, 1), str(scale._opoverload._schema),
                str(packet), str(packet.default), repr(packet), repr(packet.default), packet.default.name(),
                packet.default.overloadpacket is packet, packet.overloads()]
    out = both(scenario)
    assert out[0].tolist() == [3.5, 6.5]
    assert out[3] == f"{name}(Tensor x, SymInt n, *, float shift=0.5) -> Tensor"
    ns, short = name.split("::")
    assert out[4:9] == [f"{ns}.{short}", f"{ns}.{short}.default", f"<OpOverloadPacket(op='{ns}.{short}')>",
                        f"<OpOverload(op='{ns}.{short}', overload='default')>", name]
    assert out[9] is True and out[10] == ["default"]


def test_schema_inference_of_type_hints():
    name = fresh("many")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=("ys",))
        def many(x: T.Tensor, y: typing.Optional[T.Tensor], ys: list[T.Tensor], sizes: typing.Sequence[int],
                 f: float, b: bool, s: str, o: typing.Optional[int] = None, fs: typing.Optional[list[float]] = None,
                 m: int = 3, flag: bool = True, word: str = "mean") -> tuple[T.Tensor, T.Tensor]:
            return x.clone(), x.clone()
        return str(many._opoverload._schema)
    assert both(scenario) == (
        f"{name}(Tensor x, Tensor? y, Tensor(a2!)[] ys, SymInt[] sizes, float f, bool b, str s, SymInt? o=None, "
        "float[]? fs=None, SymInt m=3, bool flag=True, str word=\"mean\") -> (Tensor, Tensor)")


def test_schema_inference_errors():
    def scenario(T):
        def missing_hint(x, n: int) -> T.Tensor:
            return x

        def no_return(x: T.Tensor):
            return x

        def bad_type(x: T.Tensor, d: dict) -> T.Tensor:
            return x

        def one(x: T.Tensor) -> T.Tensor:
            return x
        out = []
        for fn, mutates in ((missing_hint, ()), (no_return, ()), (one, ("y",)), (one, "x"), (bad_type, ())):
            e = err(lambda: T.library.custom_op(fresh("bad"), fn, mutates_args=mutates))
            # the signature and the list of valid types name the library's own Tensor class
            out.append([e[0], e[1].split(" Got func")[0].split(" The valid types")[0]])
        return out
    assert both(scenario) == [
        ["ValueError", "infer_schema(func): Parameter x must have a type annotation."],
        ["ValueError", "infer_schema(func): No return type annotation was provided. Please add one."],
        ["ValueError", "infer_schema(func): {'y'} in mutates_args were not found in the custom op's signature. "
                       "mutates_args should contain the names of all args that the custom op mutates, or just the "
                       "string 'unknown' if you don't know."],
        ["ValueError", "mutates_args must either be a sequence of the names of the arguments that are mutated or "
                       "the string 'unknown'. "],
        ["ValueError", "infer_schema(func): Parameter d has unsupported type <class 'dict'>."]]


def test_register_autograd_node_name_and_gradients():
    name = fresh("sin")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=())
        def my_sin(x: T.Tensor, k: float) -> T.Tensor:
            return (x * k).sin()

        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * ctx.k * (x * ctx.k).cos(), None
        my_sin.register_autograd(backward, setup_context=setup_context)
        x = leaf(T)
        y = my_sin(x, 2.0)
        y.sum().backward()
        z = ops_of(T, name).default(x, 1.0)
        return [y, x.grad, type(y.grad_fn).__name__, type(z.grad_fn).__name__,
                type(y.grad_fn.next_functions[0][0]).__name__, y.requires_grad]
    out = both(scenario)
    short = name.replace("::", "_")
    assert out[2] == out[3] == f"GeneratedBackwardFor_{short}_defaultBackward"
    assert out[4] == "AccumulateGrad" and out[5] is True


def test_backward_without_register_autograd_raises():
    name = fresh("noauto")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=())
        def twice(x: T.Tensor) -> T.Tensor:
            return x * 2
        x = leaf(T)
        y = twice(x)
        with T.no_grad():
            detached = twice(x)
        return [y, y.requires_grad, detached.grad_fn is None, err(lambda: y.sum().backward())]
    out = both(scenario)
    ns, short = name.split("::")
    assert out[1] is True and out[2] is True
    assert out[3] == ["RuntimeError", f"Trying to backward through {ns}.{short}.default but no autograd formula was "
                                      "registered. Please use register_autograd to add one."]


def test_module_level_register_autograd_and_non_tensor_output():
    name = fresh("extra")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=())
        def with_extra(x: T.Tensor) -> tuple[T.Tensor, int]:
            return x.exp(), 7

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output[0])

        def backward(ctx, grad, unused):
            assert unused is None
            (e,) = ctx.saved_tensors
            return grad * e
        T.library.register_autograd(name, backward, setup_context=setup_context)
        x = leaf(T)
        y, n = ops_of(T, name)(x)
        (y * n).sum().backward()
        return [y, n, type(n).__name__, x.grad]
    out = both(scenario)
    assert out[1] == 7 and out[2] == "int"


def test_mutates_args_bumps_versions_and_writes_in_place():
    name = fresh("add_into")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=("out",))
        def add_into(out: T.Tensor, y: T.Tensor) -> None:
            out.add_(y)
        a = T.zeros(2)
        b = T.ones(2)
        v0, vb = a._version, b._version
        res = add_into(a, b)
        return [res is None, a, a._version - v0, b._version - vb, str(add_into._opoverload._schema)]
    out = both(scenario)
    assert out[0] is True and out[1].tolist() == [1.0, 1.0] and out[2] == 2 and out[3] == 0
    assert out[4] == f"{name}(Tensor(a0!) out, Tensor y) -> ()"


def test_list_outputs_and_unknown_mutation():
    name = fresh("split2")

    def scenario(T):
        @T.library.custom_op(name, mutates_args="unknown")
        def split2(x: T.Tensor) -> list[T.Tensor]:
            return [x[:1].clone(), x[1:].clone()]
        out = split2(T.tensor([1.0, 2.0, 3.0]))
        return [type(out).__name__, out, str(split2._opoverload._schema)]
    out = both(scenario)
    assert out[0] == "list" and [t.tolist() for t in out[1]] == [[1.0], [2.0, 3.0]]
    assert out[2] == f"{name}(Tensor(a0!) x) -> Tensor[]"


def test_register_kernel_and_fake():
    name = fresh("kern")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=(), device_types="cpu")
        def plus(x: T.Tensor) -> T.Tensor:
            return x + 1
        before = plus(T.zeros(1))

        @plus.register_kernel("cpu")
        def _(x):
            return x + 10

        @plus.register_fake
        def _(x):
            return T.empty_like(x).sum(0, keepdim=True)   # a shape of its own: the fake kernel runs on meta
        m = plus(T.zeros(4, device="meta"))
        return [before, plus(T.zeros(1)), m.device.type, list(m.shape)]
    out = both(scenario)
    assert out[0].tolist() == [1.0] and out[1].tolist() == [10.0] and out[2:] == ["meta", [1]]


def test_argument_errors():
    name = fresh("args")

    def scenario(T):
        @T.library.custom_op(name, mutates_args=())
        def f(x: T.Tensor) -> T.Tensor:
            return x.clone()
        return [err(lambda: f(T.zeros(1), 3)), err(lambda: f(y=T.zeros(1))), f(x=T.ones(1))]
    out = both(scenario)
    assert out[0] == ["RuntimeError", f"{name}() expected at most 1 argument(s) but received 2 argument(s). "
                                      f"Declaration: {name}(Tensor x) -> Tensor"]
    assert out[1] == ["RuntimeError", f"{name}() is missing value for argument 'x'. Declaration: {name}(Tensor x) "
                                      "-> Tensor"]


def test_library_define_and_impl():
    ns = fresh("lib").split("::")[1]

    def scenario(T):
        lib = T.library.Library(ns, "DEF")
        try:
            lib.define("double(Tensor x, int k=2) -> Tensor")
            packet = getattr(T.ops, ns).double
            missing = err(lambda: packet(T.ones(1)))
            lib.impl("double", lambda x, k=2: x * k, "CPU")
            lib.define("sine(Tensor x) -> Tensor")
            lib.impl("sine", lambda x: x.sin(), "CompositeImplicitAutograd")
            T.library.define(f"{ns}::inc", "(Tensor x) -> Tensor", lib=lib)

            @T.library.impl(f"{ns}::inc", "cpu", lib=lib)
            def inc(x):
                return x + 1
            x = leaf(T)
            s = getattr(T.ops, ns).sine(x)
            return [missing[0], missing[1].split(" This could be")[0], packet(T.ones(2)), packet(T.ones(1), k=5),
                    str(packet.default._schema), type(s.grad_fn).__name__, getattr(T.ops, ns).inc(T.zeros(1)),
                    err(lambda: lib.define("double(Tensor x) -> Tensor"))[1].split(" Duplicate registration")[0],
                    err(lambda: T.library.Library(ns, "DEF"))[1].split("  Previous registration")[0],
                    err(lambda: T.library.Library(ns, "XYZ")),
                    err(lambda: getattr(T.ops, ns).nope)]
        finally:
            lib._destroy()
    out = both(scenario)
    assert out[0] == "NotImplementedError" and out[1].endswith("with arguments from the 'CPU' backend.")
    assert out[2].tolist() == [2.0, 2.0] and out[3].tolist() == [5.0]
    assert out[4].endswith("::double(Tensor x, int k=2) -> Tensor") and out[5] == "SinBackward0"
    assert out[9] == ["ValueError", "Unsupported kind: XYZ"]
    assert out[10][0] == "AttributeError" and out[10][1].endswith("object has no attribute 'nope'")


def test_backend_kernel_without_autograd_warns_in_backward():
    def scenario(T):
        ns = fresh("warn").split("::")[1]
        with T.library._scoped_library(ns, "FRAGMENT") as lib:
            lib.define("triple(Tensor x) -> Tensor")
            lib.impl("triple", lambda x: x * 3, "CPU")
            x = leaf(T)
            y = getattr(T.ops, ns).triple(x)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                y.sum().backward()
            messages = [str(w.message) for w in caught]
            return [type(y.grad_fn).__name__, x.grad, len(messages),
                    messages[0].split(" This may lead")[0] == f"{ns}::triple: an autograd kernel was not registered "
                    "to the Autograd key(s) but we are trying to backprop through it."]
    out = both(scenario)
    assert out[0] == "MulBackward0" and out[1].tolist() == [3.0] * 3 and out[2:] == [1, True]


def test_selective_checkpoint_saves_a_custom_op_with_a_non_tensor_output():
    name = fresh("counted")

    def scenario(T):
        checkpoint = T.utils.checkpoint
        calls = [0]

        @T.library.custom_op(name, mutates_args=())
        def counted(x: T.Tensor) -> tuple[T.Tensor, int]:
            calls[0] += 1
            return x.sin(), 2

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, grad, unused):
            return grad * ctx.saved_tensors[0].cos()
        counted.register_autograd(backward, setup_context=setup_context)

        def fn(x):
            y, n = ops_of(T, name)(x)
            return (y * n * x.exp()).sin()
        x = leaf(T)
        policy = partial(checkpoint.create_selective_checkpoint_contexts, [ops_of(T, name).default])
        out = checkpoint.checkpoint(fn, x, use_reentrant=False, context_fn=policy)
        (g,) = T.autograd.grad(out.sum(), (x,))
        (ref,) = T.autograd.grad(fn(x).sum(), (x,))
        return [g, ref, calls[0]]
    g, ref, calls = both(scenario)
    assert calls == 2 and abs(g - ref).max() < 1e-12   # once under checkpoint (saved, not recomputed), once for ref


def test_scoped_library_removes_its_definitions():
    ns = fresh("scoped").split("::")[1]
    with ndgrad.library._scoped_library(ns, "DEF") as lib:
        lib.define("ident(Tensor x) -> Tensor")
        lib.impl("ident", lambda x: x.clone(), "CompositeExplicitAutograd")
        assert getattr(ndgrad.ops, ns).ident(ndgrad.ones(1)).tolist() == [1.0]
    with pytest.raises(AttributeError):
        getattr(ndgrad.ops, ns).ident
    with ndgrad.library._scoped_library(ns, "DEF") as lib:   # the namespace is free again
        lib.define("ident(Tensor x) -> Tensor")


def test_absent_parts_refuse():
    with pytest.raises(NotImplementedError, match="opcheck"):
        ndgrad.library.opcheck(None, ())
    with pytest.raises(NotImplementedError, match="overload names"):
        ndgrad.library.custom_op(fresh("x") + ".out", lambda x: x, mutates_args=(), schema="(Tensor x) -> Tensor")


def test_profiler_names_the_op_by_its_namespace():
    name = fresh("prof")

    @ndgrad.library.custom_op(name, mutates_args=())
    def f(x: ndgrad.Tensor) -> ndgrad.Tensor:
        return x.sin()
    x = ndgrad.ones(2)
    with ndgrad.profiler.profile() as prof:
        f(x)
    assert [e.name for e in prof.events()][0] == name


def test_list_argument_gradients_refuse():
    name = fresh("listgrad")

    @ndgrad.library.custom_op(name, mutates_args=())
    def total(xs: list[ndgrad.Tensor]) -> ndgrad.Tensor:
        return xs[0] + xs[1]
    a = ndgrad.ones(2)
    assert total([a, a]).tolist() == [2.0, 2.0]
    with pytest.raises(NotImplementedError, match="list argument"):
        total([a.requires_grad_(), a])


def test_definition_errors_and_redefinition():
    name = fresh("redef")
    ns = fresh("implonly").split("::")[1]

    def scenario(T):
        def f(x: T.Tensor) -> T.Tensor:
            return x + 1

        def g(x: T.Tensor) -> T.Tensor:
            return x + 2
        T.library.custom_op(name, f, mutates_args=())
        again = T.library.custom_op(name, g, mutates_args=())   # a custom op defined again replaces the first
        ns_name, short = name.split("::")
        return [again(T.zeros(1)), ops_of(T, name)(T.zeros(1)),
                err(lambda: T.library.Library(ns, "IMPL").define("g(Tensor x) -> Tensor"))[1].split("  (Error")[0],
                err(lambda: T.library.register_autograd(f"{ns_name}::nope_{short}", lambda *a: None)),
                err(lambda: T.library.custom_op(fresh("s"), f, mutates_args=("x",), schema="(Tensor x) -> Tensor"))]
    out = both(scenario)
    assert out[0].tolist() == out[1].tolist() == [2.0]
    assert out[2].startswith('def("g"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.')
    assert out[3][0] == "AttributeError" and out[4][0] == "ValueError"
