"""Torch-style schema strings -> argument parsing, overload resolution and torch's TypeErrors.

Each public op declares its overloads once, as the schema strings of torch's Python binding, and
gets one `Parser`; the public function is an ordinary `def` in its family file (so tracebacks and
`inspect.getsource` show real code) that asks the parser which overload the call means and runs
that overload's op:

    _pow_args = Parser("pow(Tensor input, Tensor exponent)",       # overload 0 -> PowBackward1
                       "pow(Scalar self, Tensor exponent)",        # overload 1 -> PowBackward2
                       "pow(Tensor input, Scalar exponent)")       # overload 2 -> PowBackward0

    @_pow_args.signature                    # __signature__ from overload 0 (inspect.signature)
    def pow(*args, **kwargs):
        which, values = _pow_args.parse(args, kwargs)
        return (_pow_tensor_tensor, _pow_scalar, _pow_tensor_scalar)[which](*values)

`parse(args, kwargs)` -> (index of the chosen overload, argument values in that overload's order
with defaults filled in). Values are normalised as torch's parser does: int lists become tuples of
ints (`int[1]` also takes one int), numpy and 0-dim-tensor numbers become Python numbers, Python
types given as a dtype become dtypes. Tensor methods bind `self` apart and count positions without
it (`x.sum(0, 1)`: "argument 'keepdim' (position 2)"): `Parser.method()` gives that parser, made
from the overloads whose first argument is a Tensor, with the same overload indices.

Resolution follows torch's Python argument parser (torch/csrc/utils/python_arg_parser.cpp):
overloads are tried in order and the first that binds wins; a schema ending in `|hidden` is tried
but never shown in errors (torch's deprecated signatures, or a Scalar overload torch reaches by
wrapping numbers as tensors). When nothing binds, the error is torch's: the single-overload
messages ("argument 'x' (position 2) must be Tensor, not str", "missing 1 required positional
arguments", ...) when one overload is plausible for the argument count, else "received an invalid
combination of arguments - got (...), but expected one of: ...", both formatted as torch does.

It is part of the ops layer, above the Tensor class and the other classes it checks for.
"""
import ast
import inspect

import numpy as np

from .. import _dtype
from .._random import Generator
from .._sparse_array import layout
from .._tensor import Size, Tensor, device, memory_format
from ..backends import is_array



__all__ = ["ArgumentError", "Parser"]


class ArgumentError(TypeError):
    """A call that matches none of an op's schemas (torch raises TypeError with the same text)."""


# what torch's messages call these classes (the tp_name of torch's own classes)
_tp_names = {_dtype.dtype: "torch.dtype", Tensor: "Tensor", Size: "torch.Size", device: "torch.device",
             memory_format: "torch.memory_format",
             layout: "torch.layout", Generator: "torch._C.Generator"}
_classes = {"Device": device, "Layout": layout, "Generator": Generator, "MemoryFormat": memory_format}


def _tp_name(x):
    """The name torch's messages give x's type: CPython's tp_name, torch's names for its classes."""
    cls = type(x)
    name = _tp_names.get(cls)
    if name is not None:
        return name
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":   # heap types: tp_name is __name__
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


# ---- one checker per schema type: the value to pass on, or _NO -------------------------------
_NO = object()


def _tensor(x):
    return x if isinstance(x, Tensor) else _NO


def _number_tensor(x):
    """A 0-dim tensor that does not require grad stands for a number (as in torch)."""
    return isinstance(x, Tensor) and x.dim() == 0 and not x.requires_grad


def _scalar(x):
    t = type(x)
    if t is float or t is int or t is bool or t is complex:
        return x
    if isinstance(x, (np.number, np.bool_)):
        return x.item()
    if isinstance(x, (int, float, complex)):
        return x
    if _number_tensor(x):
        return x.item()
    return _NO


def _is_int(x):
    """torch's THPUtils_checkLong (bool excluded) plus 0-dim integer tensors and arrays."""
    t = type(x)
    if t is int:
        return True
    if t is bool:
        return False
    if isinstance(x, (np.integer, int)):
        return True
    if is_array(x):
        return x.ndim == 0 and x.dtype.kind in "iu"
    return isinstance(x, Tensor) and x.dim() == 0 and x.dtype._rank <= 1 and not x.requires_grad


def _int(x):
    if type(x) is int:
        return x
    if not _is_int(x):
        return _NO
    return int(x.item()) if isinstance(x, Tensor) else int(x)


def _float(x):
    t = type(x)
    if t is float:
        return x
    if t is int or t is bool or isinstance(x, (np.integer, np.floating, np.bool_, int, float)):
        return float(x)
    if _number_tensor(x) and not x.dtype.is_complex:
        return float(x.item())
    return _NO


def _bool(x):
    return x if type(x) is bool else _NO


def _str(x):
    return x if isinstance(x, str) else _NO


def _scalar_type(x):
    if isinstance(x, _dtype.dtype):
        return x
    if x is float or x is int or x is bool or x is complex:
        return _dtype.to_dtype(x)
    return _NO


def _instance_of(kind):
    def check(x):
        return x if isinstance(x, _classes[kind]) else _NO
    return check


def _device(x):
    if isinstance(x, (_classes["Device"], str)) or _is_int(x):
        return x
    return _NO


class _Unpack(Exception):
    """A list matched by its first element but a later element is wrong: torch raises there."""


def _int_list(size):
    """int[] / int[N]: a tuple, list or Size whose first element is an int (torch checks only
    that one; a bad later element is an error, not a mismatch); int[N] also takes one int."""
    def check(x):
        if isinstance(x, (tuple, list)):
            if not x:
                return ()
            if not _is_int(x[0]):
                return _NO
            out = []
            for i, e in enumerate(x):
                v = _int(e)
                if v is _NO:
                    raise _Unpack(f"failed to unpack the object at pos {i + 1} with error "
                                  f"\"type must be tuple of ints,but got {_tp_name(e)}\"")
                out.append(v)
            return tuple(out)
        if size and _is_int(x):
            return (_int(x),) * size
        return _NO
    return check


def _float_list(size):
    def check(x):
        if isinstance(x, (tuple, list)):
            out = tuple(_float(e) for e in x)
            return _NO if any(v is _NO for v in out) else out
        if size:
            v = _float(x)
            return _NO if v is _NO else (v,) * size
        return _NO
    return check


class _TensorListElement(Exception):
    pass


def _tensor_list(x):
    if not isinstance(x, (tuple, list)):
        return _NO
    for i, e in enumerate(x):
        if not isinstance(e, Tensor):
            raise _TensorListElement(i, _tp_name(e))
    return x


# schema type -> (checker or checker factory taking N, the name torch's messages use)
_TYPES = {
    "Tensor": (_tensor, "Tensor"),
    "Scalar": (_scalar, "Number"),
    "int": (_int, "int"),
    "SymInt": (_int, "int"),
    "float": (_float, "float"),
    "bool": (_bool, "bool"),
    "str": (_str, "str"),
    "ScalarType": (_scalar_type, "torch.dtype"),
    "Layout": (_instance_of("Layout"), "torch.layout"),
    "Device": (_device, "torch.device"),
    "Generator": (_instance_of("Generator"), "torch.Generator"),
    "MemoryFormat": (_instance_of("MemoryFormat"), "torch.memory_format"),
    "Tensor[]": (_tensor_list, "tuple of Tensors"),
    "int[]": (_int_list, "tuple of ints"),
    "SymInt[]": (_int_list, "tuple of ints"),
    "float[]": (_float_list, "tuple of floats"),
    "object": (lambda x: x, "object"),   # any value, checked by the op (sparse constructors' index data)
}
# types whose values pass unchanged or not at all: an argument that is not an instance rules out the overload
_EXACT = {"Tensor", "bool", "str"}
_ALIASES = {"TensorList": "Tensor[]", "IntArrayRef": "int[]", "SymIntArrayRef": "SymInt[]", "Number": "Scalar"}


class _ExactIntMeta(type):
    def __instancecheck__(cls, x):
        return type(x) is int


class _ExactInt(metaclass=_ExactIntMeta):
    """isinstance(x, _ExactInt): x is an int, not a bool (which an int parameter refuses) nor another
    integer type (converted by the parameter's check): the values an int parameter takes as they are."""


# ---- schema strings -------------------------------------------------------------------------
class _Param:
    __slots__ = ("name", "type", "check", "type_name", "allow_none", "optional", "default", "default_str",
                 "keyword_only", "is_int_list", "size")

    def __init__(self, text, keyword_only):
        decl, eq, default_str = text.partition("=")
        type_str, _, name = decl.strip().rpartition(" ")
        if not type_str or not name.isidentifier():
            raise ValueError(f"bad schema argument '{text}'")
        nullable = type_str.endswith("?")
        type_str = type_str.rstrip("?")
        size = 0
        if type_str.endswith("]") and "[" in type_str:
            base, _, n = type_str[:-1].partition("[")
            size = int(n) if n else 0
            type_str = _ALIASES.get(base, base) + "[]"
        type_str = _ALIASES.get(type_str, type_str)
        if type_str.startswith("Dimname"):
            raise NotImplementedError(f"schema argument '{text}': named tensors (Dimname) are not supported")
        if type_str not in _TYPES:
            raise ValueError(f"unknown schema type '{type_str}' in '{text}'")
        check, self.type_name = _TYPES[type_str]
        self.type = type_str
        self.is_int_list = check is _int_list
        self.size = size
        self.check = check(size) if check in (_int_list, _float_list) else check
        self.name = name
        self.keyword_only = keyword_only
        self.optional = bool(eq)
        default_str = default_str.strip()
        self.default = self._default(default_str, size) if eq else None
        self.default_str = '"' + self.default + '"' if isinstance(self.default, str) else default_str
        self.allow_none = nullable or (eq and self.default is None)

    def _default(self, text, size):
        value = ast.literal_eval(text)
        if isinstance(value, list):
            return tuple(value)
        if self.is_int_list and isinstance(value, int):
            return (value,) * size
        return value

    def plain(self):
        """The classes whose instances this parameter takes as they are (no check beyond isinstance)."""
        plain = {"Tensor": (Tensor,), "Scalar": (int, float, complex), "float": (float,), "bool": (bool,),
                 "str": (str,), "ScalarType": (_dtype.dtype,), "int": (_ExactInt,), "SymInt": (_ExactInt,)
                 }.get(self.type, ())
        return plain + (type(None),) if self.allow_none and plain else plain

    def __str__(self):
        text = f"{self.type_name} {self.name}"
        return f"{text} = {self.default_str}" if self.optional else text


class _Overload:
    """One schema, with what binding a call to it needs precomputed."""
    __slots__ = ("index", "name", "schema", "params", "hidden", "checks", "max_pos", "min_args", "tails",
                 "varargs", "names", "text", "pieces")

    def __init__(self, schema, index, drop_self=False):
        self.schema = schema
        schema, _, flag = schema.partition("|")
        self.hidden = flag.strip() == "hidden"
        head, _, rest = schema.partition("(")
        self.name = head.strip().partition(".")[0]
        self.index = index
        params, keyword_only = [], False
        body = rest.rpartition(")")[0]
        for text in _split_args(body):
            if text == "*":
                keyword_only = True
            else:
                params.append(_Param(text, keyword_only))
        if drop_self:
            params = params[1:]
        self.params = tuple(params)
        self.checks = tuple(_or_none(p.check) if p.allow_none else p.check for p in params)
        self.max_pos = sum(not p.keyword_only for p in params)
        self.min_args = sum(not p.optional for p in params)
        # the values of the parameters after the n-th, for a call with n positional arguments
        self.tails = tuple(tuple(p.default for p in params[n:]) if all(p.optional for p in params[n:]) else None
                           for n in range(self.max_pos + 1))
        self.varargs = self.max_pos == 1 and params[0].is_int_list
        self.names = {p.name: i for i, p in enumerate(params)}
        self.text = "(" + ", ".join(_with_star(params)) + ")"
        self.pieces = [(t.rpartition(" ")[0] or t, t.rpartition(" ")[2]) for t in self.text[1:-1].split(", ")]

    def bind(self, args, kwargs, strict):
        """The values of the call's arguments, or None (strict: torch's TypeError) if it does not fit."""
        params = self.params
        nargs = len(args)
        if self.varargs and nargs and _is_int(args[0]) and (nargs > 1 or not params[0].size):
            args, nargs = (args,), 1        # view(2, 3) as view((2, 3))
        if nargs > self.max_pos:
            return self._extra_args(nargs) if strict else None
        values = []
        for i in range(nargs):
            p, x = params[i], args[i]
            v = None if x is None and p.allow_none else self._convert(p, x, i)
            if v is _NO:
                return self._wrong_type(p, x, f" (position {i + 1})") if strict else None
            values.append(v)
        used = 0
        for i in range(nargs, len(params)):
            p = params[i]
            x = kwargs.get(p.name, _NO) if kwargs else _NO
            if x is _NO:
                if not p.optional:
                    return self._missing(i) if strict else None
                values.append(p.default)
                continue
            used += 1
            v = None if x is None and p.allow_none else self._convert(p, x, i)
            if v is _NO:
                return self._wrong_type(p, x, "") if strict else None
            values.append(v)
        if kwargs and used < len(kwargs):
            return self._extra_kwargs(kwargs, nargs) if strict else None
        return tuple(values)

    def _wrong_type(self, p, x, where):
        raise ArgumentError(f"{self.name}(): argument '{p.name}'{where} must be {p.type_name}, not {_tp_name(x)}")

    def _convert(self, p, x, pos):
        try:
            return p.check(x)
        except _Unpack as e:
            raise ArgumentError(f"{self.name}(): argument '{p.name}' {e}") from None
        except _TensorListElement as e:
            raise ArgumentError(f"expected Tensor as element {e.args[0]} in argument {pos}, but got {e.args[1]}") from None

    def _extra_args(self, nargs):
        if self.min_args != self.max_pos:
            raise ArgumentError(f"{self.name}() takes from {self.min_args} to {self.max_pos} positional arguments "
                            f"but {nargs} were given")
        s = "" if self.max_pos == 1 else "s"
        raise ArgumentError(f"{self.name}() takes {self.max_pos} positional argument{s} but {nargs} were given")

    def _missing(self, i):
        names = [f'"{p.name}"' for p in self.params[i:] if not p.optional]
        s = "s" if len(names) == 1 else ""   # sic: torch's plural is backwards
        raise ArgumentError(f"{self.name}() missing {len(names)} required positional argument{s}: {', '.join(names)}")

    def _extra_kwargs(self, kwargs, nargs):
        for key in kwargs:
            i = self.names.get(key)
            if i is None:
                raise ArgumentError(f"{self.name}() got an unexpected keyword argument '{key}'")
            if i < nargs:
                raise ArgumentError(f"{self.name}() got multiple values for argument '{key}'")
        raise ArgumentError("invalid keyword arguments")

    def signature(self):
        """An inspect.Signature of this overload (what `inspect.signature(public)` shows)."""
        P = inspect.Parameter
        return inspect.Signature([P(p.name, P.KEYWORD_ONLY if p.keyword_only else P.POSITIONAL_OR_KEYWORD,
                                    default=p.default if p.optional else P.empty) for p in self.params])


def _or_none(check):
    def check_or_none(x):
        return None if x is None else check(x)
    return check_or_none


def _split_args(body):
    """Split a schema's argument list at top-level commas (defaults such as [0,1] hold commas)."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(body):
        depth += c in "[(" and 1 or c in "])" and -1 or 0
        if c == "," and depth == 0:
            out.append(body[start:i].strip())
            start = i + 1
    if body.strip():
        out.append(body[start:].strip())
    return out


def _with_star(params):
    star = False
    for p in params:
        if p.keyword_only and not star:
            star = True
            yield "*"
        yield str(p)


# ---- the parser ------------------------------------------------------------------------------
class Parser:
    """The overloads of one public op, from its schema strings (see the module docstring)."""
    __slots__ = ("name", "overloads", "_fast")

    def __init__(self, *schemas, _overloads=None):
        self.overloads = _overloads or tuple(_Overload(s, i) for i, s in enumerate(schemas))
        self.name = self.overloads[0].name
        if any(o.name != self.name for o in self.overloads):
            raise ValueError(f"overloads of different ops: {[o.name for o in self.overloads]}")
        self._fast = None

    def method(self):
        """The parser of the Tensor method: `self` bound apart, overloads without a Tensor first dropped."""
        return Parser(_overloads=tuple(_Overload(o.schema, o.index, drop_self=True) for o in self.overloads
                                       if o.schema.partition("(")[2].lstrip().startswith("Tensor ")))

    def parse(self, args, kwargs):
        """(index of the overload the call binds to, its argument values with defaults filled)."""
        n = len(args)
        for o, plains, exact, max_pos, tails in self._fast or self._prepare():
            if n <= max_pos:
                for plain, x in zip(plains, args):
                    if not isinstance(x, plain):
                        break
                else:
                    if not kwargs and tails[n] is not None:
                        return o.index, args + tails[n]
                    plain = None
                if plain in exact:   # an argument no conversion could make fit
                    continue
            values = o.bind(args, kwargs, False)
            if values is not None:
                return o.index, values
        return self._fail(args, kwargs)

    def _prepare(self):
        """Per overload, for the common call (positional arguments of the types that pass unchanged):
        the classes each argument must be an instance of, and the defaults after the n-th argument."""
        fast = []
        for o in self.overloads:
            plains = tuple(p.plain() for p in o.params)
            exact = [plain for p, plain in zip(o.params, plains) if p.type in _EXACT]
            fast.append((o, plains, frozenset(exact), -1 if o.varargs else o.max_pos, o.tails))
        self._fast = tuple(fast)
        return self._fast

    def _fail(self, args, kwargs):
        overloads = self.overloads
        if len(overloads) == 1:
            return overloads[0].index, overloads[0].bind(args, kwargs, True)
        n = len(args) + len(kwargs)
        plausible = [o for o in overloads if not o.hidden and o.min_args <= n <= len(o.params)]
        if len(plausible) == 1:
            plausible[0].bind(args, kwargs, True)
        raise ArgumentError(_invalid_combination(self.name, [o for o in overloads if not o.hidden], args, kwargs))

    def signature(self, fn):
        """Decorator: give the public function overload 0's signature, for inspect.signature and help()."""
        fn.__signature__ = self.overloads[0].signature()
        fn.parser = self   # the registry makes the Tensor method's errors from parser.method()
        return fn


# ---- "received an invalid combination of arguments" (torch/csrc/utils/invalid_arguments.cpp) --
# torch builds this message by re-reading the printed signatures: each ", "-separated piece is
# "<type> <name>" split at its last space (so "Number alpha = 1" reads as type "Number alpha =",
# and "*" counts as an argument), and a piece matches a value whose type name equals its type.
# The quirks are torch's; they decide which overloads get a "didn't match" line.
def _piece_matches(type_name, x):
    tp = _tp_name(x)
    if type_name == "float":
        return tp in ("float", "int")
    return tp == type_name


def _arg_desc(args, kwargs):
    parts = [_tp_name(x) + ", " for x in args] + [f"{k}={_tp_name(v)}, " for k, v in kwargs.items()]
    text = "".join(parts)
    return "(" + (text[:-2] if args else text) + ")"


def _formatted_arg_desc(pieces, args, kwargs):
    parts = []
    values = list(args) + [kwargs[pieces[i][1]] for i in range(len(args), len(args) + len(kwargs))]
    for i, x in enumerate(values):
        text = _tp_name(x)
        if isinstance(x, (tuple, list)):
            inner = ", ".join(_tp_name(e) for e in x)
            text += f" of ({inner},)" if isinstance(x, tuple) and len(x) == 1 else \
                (f" of ({inner})" if isinstance(x, tuple) else f" of [{inner}]")
        if i >= len(args):
            text = pieces[i][1] + "=" + text
        parts.append(text if i < len(pieces) and _piece_matches(pieces[i][0], x) else f"!{text}!")
    return "(" + ", ".join(parts) + ")"


def _unmatched_kwargs(pieces, kwargs):
    names = {name for _, name in pieces[max(len(pieces) - len(kwargs), 0):]}
    return [k for k in kwargs if k not in names]


def _invalid_combination(name, overloads, args, kwargs):
    msg = f"{name}() received an invalid combination of arguments - "
    got = len(args) + len(kwargs)
    if len(overloads) == 1:
        o = overloads[0]
        unmatched = _unmatched_kwargs(o.pieces, kwargs) if kwargs else []
        if unmatched:
            return msg + "got unrecognized keyword arguments: " + ", ".join(unmatched)
        desc = _formatted_arg_desc(o.pieces, args, kwargs) if got == len(o.pieces) else _arg_desc(args, kwargs)
        return msg + f"got {desc}, but expected {o.text}"
    msg += f"got {_arg_desc(args, kwargs)}, but expected one of:\n"
    for o in overloads:
        msg += f" * {o.text}\n"
        if got == len(o.pieces):
            unmatched = _unmatched_kwargs(o.pieces, kwargs) if kwargs else []
            if unmatched:
                msg += "      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched) + "\n"
            else:
                msg += ("      didn't match because some of the arguments have invalid types: "
                        + _formatted_arg_desc(o.pieces, args, kwargs) + "\n")
    return msg
