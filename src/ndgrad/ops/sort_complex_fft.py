"""Sorting (sort, topk, msort, argsort), complex numbers (complex, polar, real/imag views,
_neg_view), the FFT kernels behind `ndgrad.fft` (_fft_r2c, _fft_c2r, _fft_c2c), the foreach ops
(`_foreach_<op>`: one node for the whole list, as torch records them) and segment_reduce.
"""
import collections
import operator

import numpy as np

from .. import _dtype
from . import _registry as _dispatch
from ._registry import op, register
from ..backends.numpy_backend import fft
from .._tensor import Tensor, _wrap_dim
from ..autograd.grad_mode import no_grad
from .reduction import _structseq

return_types = collections.namedtuple("return_types", ["sort", "topk"])(
    _structseq("sort", ["values", "indices"]), _structseq("topk", ["values", "indices"]))


# ---- sorting --------------------------------------------------------------------------------
def _sorted(a, dim, descending):
    """(values, indices) of a stable sort of `a` along `dim`; nan counts as the largest value."""
    if a.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    d = _wrap_dim(dim, a.ndim)
    if descending:   # ascending stable sort of the reversed array, reversed: ties keep their order
        idx = a.shape[d] - 1 - np.argsort(np.flip(a, d), axis=d, kind="stable")
        idx = np.flip(idx, d)
    else:
        idx = np.argsort(a, axis=d, kind="stable")
    return np.take_along_axis(a, idx, d), idx.astype(np.int64)


@op("sort", public=False)
def _sort(input, dim=-1, descending=False):
    return _sorted(input, dim, descending)


@op("sort.stable", public=False)
def _sort_stable(input, stable, dim=-1, descending=False):
    return _sorted(input, dim, descending)


@register(method=True)
def sort(input, dim=-1, descending=False, stable=None):
    """(values, indices) sorted along dim; ties keep their order. Passing `stable` selects torch's
    stable overload (SortBackward1), as in torch."""
    if stable is None:
        return return_types.sort(*_sort(input, dim, descending))
    return return_types.sort(*_sort_stable(input, stable, dim, descending))


@register(method=True)
def msort(input):
    return _sort(input, 0, False)[0]


@register(method=True)
def argsort(input, dim=-1, descending=False, stable=False):
    with no_grad():
        return _sort(input, dim, descending)[1]


@op("topk", public=False)
def _topk(input, k, dim=-1, largest=True, sorted=True):
    size = input.shape[_wrap_dim(dim, input.ndim)] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, idx = _sorted(input, dim, largest)
    if input.ndim == 0:
        return values, idx
    key = [slice(None)] * input.ndim
    key[_wrap_dim(dim, input.ndim)] = slice(0, k)
    return values[tuple(key)], idx[tuple(key)]


@register(method=True)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (smallest with largest=False) elements along dim, in sorted order."""
    return return_types.topk(*_topk(input, operator.index(k), dim, largest, sorted))


# ---- complex numbers ------------------------------------------------------------------------
_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _check_float_pair(a, b):
    if a.dtype not in _COMPLEX_OF or b.dtype not in _COMPLEX_OF:
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_type_word(a.dtype)} and {_type_word(b.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"Expected object of scalar type {_type_word(a.dtype)} but got scalar type "
                           f"{_type_word(b.dtype)} for second argument")


_type_word = _dtype.type_word


@op("complex")
def complex(real, imag):
    """real + i·imag (float tensors of one dtype, broadcast)."""
    _check_float_pair(real, imag)
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape), _COMPLEX_OF[real.dtype])
    out.real, out.imag = real, imag
    return out


@op("polar")
def polar(abs, angle):
    """abs·(cos(angle) + i·sin(angle))."""
    _check_float_pair(abs, angle)
    return complex.spec.forward(abs * np.cos(angle), abs * np.sin(angle))


def _real(input):
    """The real part: for a complex tensor a view (view_as_real(input)[..., 0]), else input itself."""
    return _nd().view_as_real(input).select(-1, 0) if input.is_complex() else input


def _imag(input):
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _nd().view_as_real(input).select(-1, 1)


real = register("real")(_real)
imag = register("imag")(_imag)
# torch's Tensor.real / .imag are attributes (writable views), not methods
for _name in ("real", "imag"):
    _dispatch.METHODS.pop(_name, None)
Tensor.real = property(_real, lambda self, value: _real(self).copy_(value))
Tensor.imag = property(_imag, lambda self, value: _imag(self).copy_(value))


@op("_neg_view", public="_neg_view")
def _neg_view(input):
    """torch's lazily negated view; ndgrad negates eagerly (a copy)."""
    return np.negative(input)


# ---- FFT kernels (ndgrad.fft composes them) ---------------------------------------------------
# normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the product of the transformed sizes; the
# scipy `norm` that gives it for a forward (e^-i) and for a backward (e^+i) transform
_NORM_FORWARD = ("backward", "ortho", "forward")
_NORM_BACKWARD = ("forward", "ortho", "backward")


@op("_fft_c2c", public="_fft_c2c")
def _fft_c2c(input, dim, normalization, forward):
    """Complex-to-complex DFT over dims, e^-i (forward) or e^+i."""
    if forward:
        return fft().fftn(input, axes=dim, norm=_NORM_FORWARD[normalization])
    return fft().ifftn(input, axes=dim, norm=_NORM_BACKWARD[normalization])


@op("_fft_r2c", public="_fft_r2c")
def _fft_r2c(input, dim, normalization, onesided):
    """Real-to-complex forward DFT over dims; onesided keeps n//2 + 1 entries of the last dim."""
    if onesided:
        return fft().rfftn(input, axes=dim, norm=_NORM_FORWARD[normalization])
    return fft().fftn(input, axes=dim, norm=_NORM_FORWARD[normalization])


@op("_fft_c2r", public="_fft_c2r")
def _fft_c2r(input, dim, normalization, last_dim_size):
    """Backward DFT of a Hermitian signal given by its onesided half; the last dim has last_dim_size
    points (the imaginary parts of its zero and Nyquist entries are ignored)."""
    s = [input.shape[d] for d in dim[:-1]] + [last_dim_size]
    return fft().irfftn(input, s=s, axes=dim, norm=_NORM_BACKWARD[normalization])


# ---- foreach --------------------------------------------------------------------------------
# `_foreach_<op>(tensors, ...)` applies a pointwise op to each tensor of a list (with the matching
# element of list arguments; other arguments are shared). Out of place, torch records ONE node for
# the call, with an output per tensor: each overload below is an op whose forward maps the element
# function over the lists, and whose yaml formula (formulas.foreach_vjp) runs the same element
# function's own derivative. In place (`_foreach_add_`) torch records each element's in-place op;
# so does ndgrad.
FOREACH_UNARY = ("abs", "acos", "asin", "atan", "ceil", "clone", "cos", "cosh", "erf", "erfc", "exp", "expm1",
                 "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt",
                 "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")
# name -> {overload: argument names}; the overload "" is the entry without a suffix
FOREACH_OVERLOADS = {
    **{n: {"List": ("self", "other", "alpha"), "Scalar": ("self", "scalar"), "ScalarList": ("self", "scalars")}
       for n in ("add", "sub")},
    **{n: {"List": ("self", "other"), "Scalar": ("self", "scalar"), "ScalarList": ("self", "scalars"),
           "Tensor": ("self", "other")} for n in ("mul", "div")},
    **{n: {"List": ("self", "other"), "Scalar": ("self", "scalar"), "ScalarList": ("self", "scalars")}
       for n in ("maximum", "minimum", "clamp_min", "clamp_max")},
    "pow": {"List": ("self", "exponent"), "Scalar": ("self", "exponent"), "ScalarList": ("self", "exponent"),
            "ScalarAndTensor": ("self", "exponent")},
    "lerp": {"List": ("self", "tensors1", "weights"), "Scalar": ("self", "tensors1", "weight"),
             "ScalarList": ("self", "tensors1", "weight")},
    **{n: {"Scalar": ("self", "tensor1", "tensor2", "value"), "ScalarList": ("self", "tensor1", "tensor2", "scalars")}
       for n in ("addcmul", "addcdiv")},
    "norm": {"Scalar": ("self", "ord", "dtype")},
    "max": {"": ("self",)},
    **{n: {"": ("self",)} for n in FOREACH_UNARY},
}
_ELEMENTS = {}


def foreach_element(name):
    """The pointwise function `_foreach_<name>` applies to each element (on Tensors)."""
    fn = _ELEMENTS.get(name)
    if fn is None:
        nd = _nd()

        def operand(x, y):   # maximum/minimum take a tensor: a scalar becomes one of x's dtype
            return y if isinstance(y, Tensor) else nd.full_like(x, y)
        special = {
            "add": lambda x, y, alpha=1: nd.add(x, y, alpha=alpha),
            "sub": lambda x, y, alpha=1: nd.sub(x, y, alpha=alpha),
            "maximum": lambda x, y: nd.maximum(x, operand(x, y)),
            "minimum": lambda x, y: nd.minimum(x, operand(x, y)),
            "addcmul": lambda x, a, b, value=1: nd.addcmul(x, a, b, value=value),
            "addcdiv": lambda x, a, b, value=1: nd.addcdiv(x, a, b, value=value),
            "norm": lambda x, ord=2, dtype=None: nd._linalg_vector_norm(x, ord, None, False, dtype=dtype),
            "max": lambda x: nd.amax(x),
        }
        fn = _ELEMENTS[name] = special.get(name) or getattr(nd, name)
    return fn


def _nd():
    import ndgrad
    return ndgrad


def foreach_apply(name, *args):
    """foreach_element(name) on element i of every list argument; one result per element."""
    fn = foreach_element(name)
    lists = [a for a in args if isinstance(a, (list, tuple))]
    if not lists[0]:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in lists[1:]:
        if len(other) != len(lists[0]):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(lists[0])} and "
                               f"{len(other)}")
    return [fn(*[a[i] if isinstance(a, (list, tuple)) else a for a in args]) for i in range(len(lists[0]))]


def _foreach_op(name, overload, arg_names):
    def forward(*args):
        args = [[_as_tensor(x) for x in a] if isinstance(a, (list, tuple)) else _as_tensor(a) for a in args]
        with no_grad():
            return tuple(t._data for t in foreach_apply(name, *args))
    scope = {"forward": forward}
    exec(f"def {name}({', '.join(arg_names)}):\n    return forward({', '.join(arg_names)})\n", scope)
    return op(f"_foreach_{name}" + (f".{overload}" if overload else ""), public=False)(scope[name])


def _as_tensor(x):
    return Tensor._make(x, False, None, 0) if isinstance(x, np.ndarray) else x


def _pick(name, ops, self, rest):
    """The overload torch's argument parser picks for `_foreach_<name>(self, *rest)`."""
    if "" in ops:
        return ops[""](self, *rest)
    if name == "norm":
        return ops["Scalar"](self, *rest)
    if name == "pow" and not isinstance(self, (list, tuple)):
        return ops["ScalarAndTensor"](self, *rest)
    other = rest[-1] if name in ("lerp", "addcmul", "addcdiv") else rest[0]
    if name in ("addcmul", "addcdiv") and isinstance(other, Tensor):   # a 1-D tensor of scalars
        other = other.tolist()
    if isinstance(other, (list, tuple)):
        form = "List" if other and isinstance(other[0], Tensor) else "ScalarList"
    elif isinstance(other, Tensor) and other.ndim == 0 and name in ("mul", "div"):
        form = "Tensor"
    else:
        form = "Scalar"
        if isinstance(other, Tensor):
            if other.ndim:
                raise TypeError(f"_foreach_{name}(): a tensor operand must be 0-dimensional")
            other = other.item()
    rest = list(rest)
    rest[-1 if name in ("lerp", "addcmul", "addcdiv") else 0] = other
    if form not in ops:
        raise TypeError(f"_foreach_{name}(): no overload takes a {form.lower()} here")
    return ops[form](self, *rest)


def _register_foreach():
    for name, overloads in FOREACH_OVERLOADS.items():
        ops = {ov: _foreach_op(name, ov, args) for ov, args in overloads.items()}
        if name in ("add", "sub"):
            def public(self, other, *, alpha=1, _n=name, _ops=ops):
                is_list = isinstance(other, (list, tuple)) and other and isinstance(other[0], Tensor)
                return _pick(_n, _ops, self, (other, alpha) if is_list else (other,))
        elif name in ("addcmul", "addcdiv"):
            def public(self, tensor1, tensor2, value=1, _n=name, _ops=ops):
                return _pick(_n, _ops, self, (tensor1, tensor2, value))
        elif name == "norm":
            def public(self, ord=2, dtype=None, _ops=ops):
                return _pick("norm", _ops, self, (ord, dtype))
        else:
            def public(self, *rest, _n=name, _ops=ops):
                return _pick(_n, _ops, self, rest)
        public.__name__ = f"_foreach_{name}"
        register(public.__name__)(public)
        if name not in ("norm", "max"):
            _register_foreach_inplace(name)
    _register_foreach_inplace("zero")


def _register_foreach_inplace(name):
    """`_foreach_<name>_`: each element's in-place op (its method `<name>_`, else a copy_ of the result)."""
    def inplace(self, *args, **kwargs):
        for i, t in enumerate(self):
            xs = [a[i] if isinstance(a, (list, tuple)) else a for a in args]
            method = getattr(t, name + "_", None)
            if name in ("addcmul", "addcdiv") and len(xs) == 3:   # the methods take `value` by keyword only
                kwargs = {**kwargs, "value": xs.pop()}
            if method is not None:
                method(*xs, **kwargs)
            else:
                t.copy_(foreach_element(name)(t, *xs, **kwargs))
    inplace.__name__ = f"_foreach_{name}_"
    register(inplace.__name__)(inplace)


_register_foreach()
