"""torch.library: operators defined in Python (`custom_op`, `Library.define` / `impl`).

A custom op is an op of the registry like the built-in ones: an `OpSpec` whose forward on arrays
wraps them as Tensors and runs the user's kernel, called through `ops._registry.call`, so that
what sees every op call (selective activation checkpointing, the profiler) sees it as its
`torch.ops.<ns>.<name>.default` overload. Autograd sits above it, as in torch: a custom op's
calls go through an `autograd.Function` (named `GeneratedBackwardFor_<ns>_<name>_default` as
torch names it) whose forward is that registry call and whose backward is the one given to
`register_autograd` (without one, backward raises torch's error). The overloads live in
`ndgrad.ops.<ns>` (set on the ops package when the namespace gets its first op).

Absent: torch.compile's parts (fake tensors beyond the meta device, `triton_op`,
`register_torch_dispatch`, `register_vmap`), dispatch keys other than the CPU, Meta,
CompositeExplicitAutograd, CompositeImplicitAutograd and Autograd ones, overload names other
than `default` (`define("foo.out(...)")` is refused), and autograd through the tensors of a
`list[Tensor]` argument.
"""
import collections.abc
import contextlib
import inspect
import re
import typing
import warnings

from . import _dtype, ops as _ops_package
from ._meta_array import MetaArray
from ._tensor import Tensor, device as _device
from .autograd.function import Function
from .autograd.grad_mode import grad_flag, state as _grad_state
from .backends import is_array
from .ops import _aten, _registry
from .ops._schema import _split_args

__all__ = ["Library", "custom_op", "define", "impl", "register_autograd", "register_fake", "register_kernel",
           "infer_schema", "opcheck", "CustomOpDef", "get_ctx"]

_KINDS = ("DEF", "IMPL", "FRAGMENT")
_namespaces = {}     # ns -> _Namespace (torch.ops.<ns>)
_defined = set()     # namespaces a "DEF" Library holds


# --- torch.ops.<ns> -------------------------------------------------------------------------
class OpOverload(_aten.OpOverload):
    """`torch.ops.<ns>.<name>.default` of a Python-defined op."""
    __slots__ = ("_op",)

    def name(self):
        return self._op.qualname

    @property
    def _schema(self):
        return self._op.qualname + self._op.schema

    @property
    def namespace(self):
        return self._op.ns

    def __str__(self):
        return f"{self._op.ns}.{self.__name__}"

    def __repr__(self):
        return f"<OpOverload(op='{self._op.ns}.{self._packet.__name__}', overload='{self._overloadname}')>"


class OpOverloadPacket(_aten.OpOverloadPacket):
    """`torch.ops.<ns>.<name>`: callable, its one overload `default`."""
    __slots__ = ("_ns",)

    def __getattr__(self, name):
        try:
            return self._overloads[name]
        except KeyError:
            raise AttributeError(f"The underlying op of '{self._ns}.{self.__name__}' has no overload name "
                                 f"'{name}'") from None

    def __call__(self, *args, **kwargs):
        return self._overloads["default"](*args, **kwargs)

    def __str__(self):
        return f"{self._ns}.{self.__name__}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self.__name__}')>"


class _Namespace:
    """`torch.ops.<ns>`: its ops' packets by name."""

    def __init__(self, ns):
        self._ns = ns
        self._packets = {}

    def __getattr__(self, name):
        packets = self.__dict__.get("_packets", {})
        if name in packets:
            return packets[name]
        raise AttributeError(f"'_OpNamespace' '{self.__dict__.get('_ns')}' object has no attribute '{name}'")

    def __repr__(self):
        return f"<module 'torch.ops.{self._ns}' from 'torch.ops'>"


def _namespace(ns):
    space = _namespaces.get(ns)
    if space is None:
        space = _namespaces[ns] = _Namespace(ns)
        setattr(_ops_package, ns, space)
    return space


# --- schemas --------------------------------------------------------------------------------
class _Arg:
    __slots__ = ("name", "type", "default", "has_default", "kw_only", "mutable")

    def __init__(self, name, type_, default, has_default, kw_only, mutable):
        self.name, self.type, self.default, self.has_default = name, type_, default, has_default
        self.kw_only, self.mutable = kw_only, mutable

    @property
    def is_tensor(self):
        return self.type.startswith("Tensor")


_ALIAS = re.compile(r"\((\w+)(!?)\)")
_LITERALS = {"None": None, "True": True, "False": False}


def _parse_schema(schema):
    """"(Tensor(a!) x, int n=2, *, float f) -> Tensor" -> (arguments, return types)."""
    head, arrow, rets = schema.partition("->")
    head = head.strip()
    if not arrow or not head.startswith("(") or not head.endswith(")"):
        raise RuntimeError(f"Expected a schema '(<arguments>) -> <returns>', got '{schema}'")
    args, kw_only = [], False
    for text in _split_args(head[1:-1]):
        if text == "*":
            kw_only = True
            continue
        decl, eq, default = text.partition("=")
        type_, _, name = decl.strip().rpartition(" ")
        alias = _ALIAS.search(type_)
        type_ = _ALIAS.sub("", type_)
        value = None
        if eq:
            default = default.strip()
            value = _LITERALS[default] if default in _LITERALS else _literal(default)
        args.append(_Arg(name, type_, value, bool(eq), kw_only, bool(alias and alias.group(2))))
    rets = rets.strip()
    if rets.startswith("(") and rets[1:-1].strip():
        returns = tuple(r.strip() for r in _split_args(rets[1:-1]))
        returns = returns if len(returns) != 1 else returns + ("",)   # "(Tensor,)": still a tuple
    else:
        returns = rets
    return args, returns


def _literal(text):
    if text.startswith("[") and text.endswith("]"):
        return tuple(_literal(t.strip()) for t in _split_args(text[1:-1]))
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text.strip("\"'")


def _hint_table():
    """Python type hints -> schema types, as torch's infer_schema accepts them (in its order)."""
    table = {}

    def add(hint, name, lists=True, optional_list=True):
        table[hint] = name
        table[typing.Optional[hint]] = name + "?"
        if lists:
            for seq in (typing.Sequence, typing.List, collections.abc.Sequence, list):
                table[seq[hint]] = name + "[]"
            if optional_list:
                for seq in (typing.Sequence, typing.List, collections.abc.Sequence, list):
                    table[typing.Optional[seq[hint]]] = name + "[]?"

    table[Tensor] = "Tensor"
    table[typing.Optional[Tensor]] = "Tensor?"
    for seq in (typing.Sequence, typing.List, collections.abc.Sequence, list):
        table[seq[Tensor]] = "Tensor[]"
    for seq in (typing.Sequence, typing.List, collections.abc.Sequence, list):
        table[seq[typing.Optional[Tensor]]] = "Tensor?[]"
    add(int, "SymInt")
    add(float, "float")
    add(bool, "bool")
    add(str, "str", lists=False)
    add(typing.Union[int, float, bool], "Scalar", optional_list=False)
    add(_dtype.dtype, "ScalarType", lists=False)
    add(_device, "Device", lists=False)
    return table


_HINTS = _hint_table()
_RETURNS = {Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", type(None): "()", None: "()",
            typing.List[Tensor]: "Tensor[]", list[Tensor]: "Tensor[]", typing.Sequence[Tensor]: "Tensor[]",
            collections.abc.Sequence[Tensor]: "Tensor[]", typing.Optional[Tensor]: "Tensor?"}


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The schema string of a function from its type hints, as torch infers it ("(Tensor x) -> Tensor";
    with op_name, "name(Tensor x) -> Tensor")."""
    sig = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)

    def error(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    params = []
    seen_kw = False
    mutated = set()
    for idx, (name, p) in enumerate(sig.parameters.items()):
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            error("We don't support varargs or varkwargs.")
        if p.annotation is p.empty:
            error(f"Parameter {name} must have a type annotation.")
        hint = hints.get(name, p.annotation)
        schema_type = _HINTS.get(hint)
        if schema_type is None:
            error(f"Parameter {name} has unsupported type {hint}. The valid types are: {_HINTS.keys()}.")
        if mutates_args == "unknown" or name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can be "
                      "mutated")
            schema_type = f"Tensor(a{idx}!)" + schema_type[len("Tensor"):]   # alias sets named by position
            mutated.add(name)
        if p.kind is p.KEYWORD_ONLY and not seen_kw:
            params.append("*")
            seen_kw = True
        if p.default is p.empty:
            params.append(f"{schema_type} {name}")
        else:
            default = p.default
            if default is not None and not isinstance(default, (int, float, bool, str)):
                error(f"Parameter {name} has an unsupported default value type {type(default)}. Please file an "
                      "issue on GitHub so we can prioritize this.")
            text = f'"{default}"' if isinstance(default, str) else repr(default)
            params.append(f"{schema_type} {name}={text}")
    if mutates_args != "unknown":
        missing = set(mutates_args) - set(sig.parameters)
        if missing:
            error(f"{missing} in mutates_args were not found in the custom op's signature. mutates_args should "
                  "contain the names of all args that the custom op mutates, or just the string 'unknown' if you "
                  "don't know.")
    if sig.return_annotation is sig.empty:
        error("No return type annotation was provided. Please add one.")
    ret = hints.get("return", sig.return_annotation)
    returns = _return_schema(ret, error)
    text = f"({', '.join(params)}) -> {returns}"
    return op_name + text if op_name is not None else text


def _return_schema(ret, error):
    if typing.get_origin(ret) is tuple:
        parts = [_RETURNS.get(r) for r in typing.get_args(ret)]
        if None in parts or "()" in parts:
            error(f"Return has unsupported type {ret}. The valid types are: {_RETURNS.keys()}.")
        return "(" + ", ".join(parts) + ")"
    out = _RETURNS.get(ret)
    if out is None:
        error(f"Return has unsupported type {ret}. The valid types are: {_RETURNS.keys()}.")
    return out


# --- the ops ------------------------------------------------------------------------------
_BACKENDS = {"cpu": "cpu", "CPU": "cpu", "meta": "meta", "Meta": "meta", "cuda": "cuda", "CUDA": "cuda",
             "CompositeExplicitAutograd": None, "default": None, "": None}


def _device_of(value):
    """The device type of a forward argument (an array or a list of them), or None."""
    if type(value) is list:
        return next((d for d in map(_device_of, value) if d), None)
    if isinstance(value, MetaArray):
        return "meta"
    if is_array(value):
        return "cpu" if type(value).__module__.startswith("numpy") else "cuda"
    return None


class _Op:
    """One Python-defined op (`ns::name`, overload `default`): schema, kernels, autograd."""

    def __init__(self, ns, name, schema, lib=None):
        self.ns, self.name, self.schema = ns, name, schema
        self.qualname = f"{ns}::{name}"
        self.args, self.returns = _parse_schema(schema)
        self.kernels = {}          # device type ("cpu", "meta", ...) or None (any) -> kernel on Tensors
        self.composite = None      # a CompositeImplicitAutograd kernel: runs the ops it calls, recorded
        self.autograd_kernel = None    # an Autograd kernel: it makes the graph itself
        self.fake = None
        self.custom = False        # made by custom_op: autograd through the generated Function
        self.backward = self.setup_context = None
        self._function = None
        self.calling = None        # the arguments of the call in progress (see _forward)
        self.spec = _registry.OpSpec(self.qualname, self._forward, None, False)   # not in SPECS: no yaml entry
        packet = OpOverloadPacket(name, {})
        packet._ns = ns
        self.overload = OpOverload(packet, "default", self)
        self.overload._op = self
        packet._overloads["default"] = self.overload
        _aten._overloads[(self.qualname, False)] = self.overload   # what SAC and the profiler see
        _namespace(ns)._packets[name] = packet
        self.lib = lib

    def remove(self):
        _namespaces[self.ns]._packets.pop(self.name, None)
        _aten._overloads.pop((self.qualname, False), None)
        _OPS.pop(self.qualname, None)

    # calling
    def bind(self, args, kwargs):
        params = self.args
        positional = sum(not a.kw_only for a in params)
        if len(args) > positional:
            raise RuntimeError(f"{self.qualname}() expected at most {positional} argument(s) but received "
                               f"{len(args)} argument(s). Declaration: {self.qualname}{self.schema}")
        values = list(args)
        for a in params[len(args):]:
            if a.name in kwargs:
                values.append(kwargs.pop(a.name))
            elif a.has_default:
                values.append(a.default)
            else:
                raise RuntimeError(f"{self.qualname}() is missing value for argument '{a.name}'. Declaration: "
                                   f"{self.qualname}{self.schema}")
        if kwargs:
            name = next(iter(kwargs))
            raise RuntimeError(f"Unknown keyword argument '{name}' for operator '{self.qualname}'. Schema: "
                               f"{self.qualname}{self.schema}")
        return tuple(values)

    def __call__(self, *args, **kwargs):
        args = self.bind(args, kwargs)
        if self.autograd_kernel is not None:
            return self.autograd_kernel(*args)
        if self.composite is not None and not self.kernels:
            return self.composite(*args)
        if self.custom:
            if _grad_state.enabled and any(type(a) in (list, tuple) and _requires_grad(a) for a in args):
                raise NotImplementedError(f"ndgrad: {self.qualname}: autograd through the tensors of a list "
                                          "argument (only Tensor arguments get gradients here)")
            out = self.function().apply(*args)
            return list(out) if self.returns == "Tensor[]" else out
        if _grad_state.enabled and _requires_grad(args):
            return self._without_autograd(args)
        return self.dispatch(*args)

    def dispatch(self, *args):
        """Below autograd: the registry's call (seen by SAC and the profiler), mutated inputs' versions bumped."""
        if self.fake is not None and any(isinstance(t, Tensor) and isinstance(t._array, MetaArray) for t in args):
            with grad_flag(False):   # meta tensors: the fake kernel says the outputs' shapes
                return self.fake(*args)
        outer, self.calling = self.calling, args
        try:
            with grad_flag(False):
                out = _registry.call(self.spec, args)
        finally:
            self.calling = outer
        for a, value in zip(self.args, args):
            if a.mutable:
                for t in value if type(value) in (list, tuple) else (value,):
                    if isinstance(t, Tensor):
                        t._vc[0] += 1
        out = tuple(o.value if type(o) is _registry.Opaque else o for o in out)
        if self.returns == "()":
            return None
        if type(self.returns) is tuple:
            return out
        return list(out) if self.returns == "Tensor[]" else out[0]

    def _forward(self, *raw):
        """The forward on arrays the registry runs: the kernel for the arguments' device, on Tensors."""
        device = next((d for d in map(_device_of, raw) if d), "cpu")
        kernel = self.kernels.get(device) or self.kernels.get(None)
        if kernel is None:
            raise NotImplementedError(f"Could not run '{self.qualname}' with arguments from the "
                                      f"'{device.upper() if device != 'meta' else 'Meta'}' backend.")
        # the caller's own Tensors where the glue passed their arrays as they are (as torch, the kernel
        # sees the tensors it was given: an in-place write bumps their versions); new ones otherwise
        given = self.calling if self.calling is not None and len(self.calling) == len(raw) else (None,) * len(raw)
        args = [t if isinstance(t, Tensor) and t._array is a else _as_tensor(a) for t, a in zip(given, raw)]
        first_kw = next((i for i, a in enumerate(self.args) if a.kw_only), len(args))
        out = kernel(*args[:first_kw], **{a.name: v for a, v in zip(self.args[first_kw:], args[first_kw:])})
        outs = out if type(out) in (tuple, list) and self.returns != "Tensor" else (out,)
        # tuples always (the registry returns them as they are); non-Tensors passed through as Opaque
        return tuple(o._array if isinstance(o, Tensor) else _registry.Opaque(o) for o in outs) if self.returns != "()" else ()

    def _without_autograd(self, args):
        """A kernel without an autograd one, its inputs requiring grad: as torch's fallback, the
        kernel's own ops are recorded, and a backward through its outputs warns."""
        kernel = self.kernels.get("cpu") or self.kernels.get(None)
        if kernel is None:
            return self.dispatch(*args)
        out = kernel(*args)
        message = (f"{self.qualname}: an autograd kernel was not registered to the Autograd key(s) but we are "
                   "trying to backprop through it. This may lead to silently incorrect behavior. This behavior is "
                   "deprecated and will be removed in a future version of PyTorch. If your operator is "
                   "differentiable, please ensure you have registered an autograd kernel to the correct Autograd "
                   "key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If your operator is "
                   "not differentiable, or to squash this warning and use the previous behavior, please register "
                   "torch::CppFunction::makeFallthrough() to DispatchKey::Autograd.")

        def warn(grads):
            warnings.warn(message, UserWarning, stacklevel=2)
        for t in out if type(out) in (tuple, list) else (out,):
            if isinstance(t, Tensor) and t.grad_fn is not None:
                t.grad_fn.register_prehook(warn)
        return out

    def function(self):
        """The autograd.Function a custom op's calls go through (made once)."""
        if self._function is None:
            op = self

            def forward(*args):
                out = op.dispatch(*args)
                return tuple(out) if type(out) is list else out

            def setup_context(ctx, inputs, output):
                if op.setup_context is not None:
                    op.setup_context(ctx, inputs, output)

            def backward(ctx, *grads):
                if op.backward is None:
                    raise RuntimeError(f"Trying to backward through {op.ns}.{op.name}.default but no autograd "
                                       "formula was registered. Please use register_autograd to add one.")
                return op.backward(ctx, *grads)
            self._function = type(f"GeneratedBackwardFor_{self.ns}_{self.name}_default", (Function,),
                                  {"forward": staticmethod(forward), "setup_context": staticmethod(setup_context),
                                   "backward": staticmethod(backward)})
        return self._function


def _as_tensor(a):
    if type(a) is list:
        return [_as_tensor(x) for x in a]
    return Tensor._make(a, False, None, 0) if is_array(a) or isinstance(a, MetaArray) else a


def _requires_grad(args):
    return any(isinstance(t, Tensor) and t.requires_grad
               for a in args for t in (a if type(a) in (list, tuple) else (a,)))


_OPS = {}   # "ns::name" -> _Op


def _lookup(qualname):
    op = _OPS.get(qualname)
    if op is None:
        raise RuntimeError(f"Could not find the operator {qualname}. Please make sure you have already "
                           "registered the operator and (if registered from C++) loaded it via torch.ops.load_library.")
    return op


def _split_name(qualname):
    ns, sep, name = qualname.partition("::")
    if not sep:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator name should look "
                         "something like ns::foo")
    if "." in name:
        raise NotImplementedError(f"ndgrad: overload names ({qualname}): only `default` overloads are supported")
    return ns, name


def _define(qualname, schema, lib=None):
    if qualname in _OPS:
        raise RuntimeError(f"Tried to register an operator ({qualname}{schema}) with the same name and overload "
                           "name multiple times. Each overload's schema should only be registered with a single "
                           "call to def().")
    ns, name = _split_name(qualname)
    op = _OPS[qualname] = _Op(ns, name, schema, lib)
    return op


def _register_impl(op, fn, dispatch_key):
    if dispatch_key in ("CompositeImplicitAutograd",):
        op.composite = fn
    elif dispatch_key in ("Autograd", "AutogradCPU"):
        op.autograd_kernel = fn
    elif dispatch_key in _BACKENDS:
        op.kernels[_BACKENDS[dispatch_key]] = fn
    else:
        raise NotImplementedError(f"ndgrad: the dispatch key '{dispatch_key}' (torch.library supports CPU, Meta, "
                                  "CompositeExplicitAutograd, CompositeImplicitAutograd and Autograd here)")


# --- the public API -----------------------------------------------------------------------
class Library:
    """A set of op definitions and implementations in namespace `ns`: kind "DEF" (the one library
    that defines the namespace), "FRAGMENT" (more definitions) or "IMPL" (implementations only)."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if kind == "DEF":
            if ns in _defined:
                raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please "
                                   "put all of your definitions in a single TORCH_LIBRARY block.  If you were trying "
                                   "to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be "
                                   "duplicated).  If you really intended to define operators for a single "
                                   "namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly "
                                   "indicate this.")
            _defined.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._ops = []          # what this library defined (removed by _destroy)
        self._impls = []        # (op, what it replaced) for each implementation it registered

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Define op `name(args) -> returns` in this namespace; returns its name."""
        name, paren, rest = schema.partition("(")
        if self.kind == "IMPL":
            raise RuntimeError(f'def("{name.strip()}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL '
                               "block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for their "
                               "namespace.")
        op = _define(f"{self.ns}::{name.strip()}", paren + rest, self)
        self._ops.append(op)
        return name.strip()

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Register `fn` as op_name's kernel for dispatch_key ("CPU", "Meta", "CompositeImplicitAutograd",
        "CompositeExplicitAutograd", "Autograd")."""
        if with_keyset:
            raise NotImplementedError("ndgrad: Library.impl(with_keyset=True): there are no dispatch key sets")
        if isinstance(op_name, OpOverload):
            op = op_name._op
        elif isinstance(op_name, OpOverloadPacket):
            op = op_name.default._op
        else:
            name = op_name if "::" in op_name else f"{self.ns}::{op_name}"
            op = _lookup(name.partition(".")[0])
        _register_impl(op, fn, dispatch_key or self.dispatch_key)
        return fn

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        raise NotImplementedError("ndgrad: Library.fallback (there is no dispatcher to fall back in)")

    def _destroy(self):
        for op in self._ops:
            op.remove()
        self._ops = []
        if self.kind == "DEF":
            _defined.discard(self.ns)


@contextlib.contextmanager
def _scoped_library(*args, **kwargs):
    lib = Library(*args, **kwargs)
    try:
        yield lib
    finally:
        lib._destroy()


def define(qualname, schema, *, lib=None, tags=()):
    """Define op `ns::name` with `schema` ("(Tensor x) -> Tensor")."""
    op = _define(qualname, schema, lib)
    if lib is not None:
        lib._ops.append(op)


def impl(qualname, types, func=None, *, lib=None):
    """Register an implementation of `ns::name` for device type(s) `types` ("cpu", ...) or a dispatch
    key; a decorator without `func`."""
    def register(fn):
        op = _lookup(qualname.partition(".")[0])
        keys = (types,) if isinstance(types, str) else tuple(types)
        for key in keys:
            _register_impl(op, fn, key)
        return fn
    return register if func is None else register(func)


class CustomOpDef:
    """What `custom_op` returns: the op's callable, with its registration methods."""

    def __init__(self, op, fn):
        self._op = op
        self._init_fn = fn
        self._opoverload = op.overload
        self._schema = op.schema
        self.__name__ = op.name
        self.__doc__ = fn.__doc__

    def __repr__(self):
        return f"<CustomOpDef({self._op.qualname})>"

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def register_kernel(self, device_types, fn=None, /):
        """Register `fn` as the op's kernel for device_types ("cpu", ...); a decorator without fn."""
        def register(func):
            for d in (device_types,) if isinstance(device_types, str) or device_types is None else device_types:
                self._op.kernels[d] = func
            return func
        return register if fn is None else register(fn)

    def register_fake(self, fn, /):
        """The op's meta implementation: what a call on meta tensors runs."""
        self._op.fake = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """The op's backward `backward(ctx, *grads)` (one gradient or None per input), with
        `setup_context(ctx, inputs, output)` saving what it needs."""
        self._op.backward, self._op.setup_context = backward, setup_context

    def register_torch_dispatch(self, *args, **kwargs):
        raise NotImplementedError("ndgrad: custom ops have no torch_dispatch rules (no __torch_dispatch__ here)")

    def register_vmap(self, *args, **kwargs):
        raise NotImplementedError("ndgrad: custom ops have no vmap rules")


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wrap `fn` as op `ns::name`, its schema inferred from fn's type hints (or given);
    mutates_args: the names of the arguments fn writes into (or "unknown"). A decorator without fn."""
    def wrap(func):
        if schema is None:
            if not isinstance(mutates_args, str) and not isinstance(mutates_args, collections.abc.Iterable) or \
                    isinstance(mutates_args, str) and mutates_args != "unknown":
                raise ValueError("mutates_args must either be a sequence of the names of the arguments that are "
                                 "mutated or the string 'unknown'. ")
            text = infer_schema(func, mutates_args=mutates_args)
        else:
            text = schema
            mutated = {a.name for a in _parse_schema(schema)[0] if a.mutable}
            if mutates_args != "unknown" and set(mutates_args) != mutated:
                raise ValueError(f"Attempted to create a custom op with `mutates_args={mutates_args}` and "
                                 f"`schema={schema}. The schema suggests that the op mutates {mutated}which is "
                                 "different from what was provided to us in `mutates_args`. Please make these "
                                 "consistent.")
        ns, op_name = _split_name(name)
        old = _OPS.get(name)
        if old is not None and old.custom and old.lib is None:   # as torch: a custom op defined again replaces it
            old.remove()
        op = _define(name, text)
        op.custom = True
        for d in (device_types,) if isinstance(device_types, str) or device_types is None else device_types:
            op.kernels[d] = func
        return CustomOpDef(op, func)
    return wrap if fn is None else wrap(fn)


def _op_of(op):
    if isinstance(op, CustomOpDef):
        return op._op
    if isinstance(op, OpOverload):
        return op._op
    if isinstance(op, OpOverloadPacket):
        return op.default._op
    if isinstance(op, str):
        ns, name = _split_name(op)
        return getattr(_namespace(ns), name).default._op   # torch's AttributeError for an unknown op
    raise ValueError(f"register_autograd(op): got unexpected type for op: {type(op)}")


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """`op.register_autograd(backward, setup_context=...)` by name ("ns::name") or op."""
    target = _op_of(op)
    target.backward, target.setup_context = backward, setup_context
    target.custom = True   # its calls go through the generated autograd Function


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    """The meta implementation of `op` (by name or op); a decorator without func."""
    def register(fn):
        _op_of(op).fake = fn
        return fn
    return register if func is None else register(func)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """The kernel of `op` for device_types; a decorator without func."""
    def register(fn):
        target = _op_of(op)
        for d in (device_types,) if isinstance(device_types, str) or device_types is None else device_types:
            target.kernels[d] = fn
        return fn
    return register if func is None else register(func)


def get_ctx():
    raise NotImplementedError("ndgrad: torch.library.get_ctx is for fake (torch.compile) kernels, absent here")


def opcheck(op, args, kwargs=None, *, test_utils=None, raise_exception=True, atol=None, rtol=None):
    raise NotImplementedError("ndgrad: torch.library.opcheck (its checks are torch.compile's: fake tensors, "
                              "schema aliasing, AOT dispatch)")
