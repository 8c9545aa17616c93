"""`torch.ops.aten`: the identity of each registered op, as torch names it.

`torch.ops.aten.mul` is the packet of the op family, `torch.ops.aten.mul.Tensor` one overload
(`.default` where the derivatives.yaml name has none): the same object on every access, so that
code keyed on ops (selective checkpoint policies) can compare them with `==`, `is` or `in`.
`overload(spec, inplace)` gives the overload of an op call the glue sees (`mul_.Tensor` for the
in-place variant). Functions the op modules set on the namespace themselves (`aten.convolution`,
...) stay what they are.
"""
from . import _registry


class OpOverload:
    """One overload of an op: callable, and its identity."""
    __slots__ = ("_packet", "_overloadname", "_fn", "__weakref__")

    def __init__(self, packet, overloadname, fn):
        self._packet, self._overloadname, self._fn = packet, overloadname, fn

    @property
    def overloadpacket(self):
        return self._packet

    @property
    def __name__(self):
        return f"{self._packet.__name__}.{self._overloadname}"

    def name(self):
        return f"aten::{self._packet.__name__}" + ("" if self._overloadname == "default" else f".{self._overloadname}")

    @property
    def _schema(self):
        """The names of torch's FunctionSchema (`name`, `overload_name`); ndgrad keeps no argument list."""
        return _SchemaNames(f"aten::{self._packet.__name__}",
                            "" if self._overloadname == "default" else self._overloadname)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __str__(self):
        return f"aten.{self.__name__}"

    def __repr__(self):
        return f"<OpOverload(op='aten.{self._packet.__name__}', overload='{self._overloadname}')>"


class _SchemaNames:
    __slots__ = ("name", "overload_name")

    def __init__(self, name, overload_name):
        self.name, self.overload_name = name, overload_name

    def __repr__(self):
        return f"<schema names {self.name}" + (f".{self.overload_name}>" if self.overload_name else ">")


class OpOverloadPacket:
    """All overloads of one op name (`torch.ops.aten.sin`), callable."""
    __slots__ = ("__name__", "_overloads", "__weakref__")

    def __init__(self, name, overloads):
        self.__name__ = name
        self._overloads = overloads   # overload name -> OpOverload

    def overloads(self):
        return list(self._overloads)

    def __getattr__(self, name):
        try:
            return self._overloads[name]
        except KeyError:
            raise AttributeError(f"The underlying op of 'aten.{self.__name__}' has no overload name '{name}'") from None

    def __call__(self, *args, **kwargs):
        # the public function of that name picks the overload from the arguments, as torch does
        fn = _registry.OPS.get(self.__name__) or _registry.METHODS.get(self.__name__)
        return (fn or next(iter(self._overloads.values())))(*args, **kwargs)

    def __str__(self):
        return f"aten.{self.__name__}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self.__name__}')>"


_overloads = {}    # (spec name, inplace) -> OpOverload
_packets = {}      # packet name -> OpOverloadPacket
_indexed = [0]     # how many of _registry.SPECS are indexed (ops register while the package imports)


def _index():
    """Index the specs registered since the last call (packets are created once, then only grow)."""
    specs = _registry.SPECS
    if _indexed[0] == len(specs):
        return
    functions = {}   # spec -> (public function, in-place function)
    for fn in list(_registry.OPS.values()) + list(_registry.METHODS.values()):
        spec = getattr(fn, "spec", None)
        if spec is not None and spec not in functions:
            functions[spec] = (fn, getattr(fn, "inplace", None))
    for spec in specs[_indexed[0]:]:
        base, _, overloadname = spec.name.partition(".")
        fn, ip = functions.get(spec, (None, None))
        _add(spec, False, base, overloadname, fn)
        if ip is not None:
            _add(spec, True, _inplace_name(base), overloadname, ip)
    _indexed[0] = len(specs)


def _inplace_name(base):
    """The aten name of an op's in-place form: `add` -> `add_`; an op registered under its in-place
    name already (`fill_`, `zero_`) keeps it."""
    return base if base.endswith("_") else base + "_"


def _add(spec, inplace, base, overloadname, fn):
    key = (spec.name, inplace)
    if key in _overloads:   # several public functions of one yaml entry: one aten op
        return
    packet = _packets.get(base)
    if packet is None:
        packet = _packets[base] = OpOverloadPacket(base, {})
    if fn is None:   # no public entry point: the glue, with every argument positional
        def fn(*args, _spec=spec, _glue=_registry.call_inplace if inplace else _registry.call):
            return _glue(_spec, args)
    overloadname = overloadname or "default"
    _overloads[key] = packet._overloads.setdefault(overloadname, OpOverload(packet, overloadname, fn))


def function_overload(name, overloadname, fn):
    """The overload `aten.<name>.<overloadname>` of a function that is no registry op (Tensor.detach),
    so that `torch.ops.aten` and dispatch modes name it as torch does."""
    packet = _packets.get(name)
    if packet is None:
        packet = _packets[name] = OpOverloadPacket(name, {})
    return packet._overloads.setdefault(overloadname, OpOverload(packet, overloadname, fn))


def overload(spec, inplace=False):
    """The OpOverload of one call of op `spec` (its in-place variant when `inplace`)."""
    ov = _overloads.get((spec.name, inplace))
    if ov is None:
        _index()
        ov = _overloads.get((spec.name, inplace))
        if ov is None:   # an in-place call of an op registered without a Tensor method `op_`
            base, _, overloadname = spec.name.partition(".")
            _add(spec, inplace, _inplace_name(base), overloadname, None)
            ov = _overloads[(spec.name, inplace)]
    return ov


class _OpNamespace:
    """torch.ops.aten: a registered op's packet by name, besides the functions set on it."""

    def __getattr__(self, name):
        if not name.startswith("__"):
            _index()
            packet = _packets.get(name)
            if packet is not None:
                return packet
        raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'")

    def __repr__(self):
        return "<module 'torch.ops.aten' from 'torch.ops'>"


aten = _OpNamespace()
