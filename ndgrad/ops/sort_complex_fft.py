"""Sorting (sort, topk, msort, argsort), complex numbers (complex, polar, real/imag views,
_neg_view), the FFT kernels behind `ndgrad.fft` (_fft_r2c, _fft_c2r, _fft_c2c), the foreach ops
(`_foreach_<op>`: one node for the whole list, as torch records them) and segment_reduce.
"""
import collections
import operator

import numpy as np
import scipy.fft

from .. import _dispatch, _dtype
from .._dispatch import op, register
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


def _type_word(dt):
    name = _dtype.from_numpy_dtype(dt).name.capitalize()
    return _dispatch._TYPE_WORD.get(name, name)


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
    return input.view_as_real().select(-1, 0) if input.is_complex() else input


def _imag(input):
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return input.view_as_real().select(-1, 1)


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
        return scipy.fft.fftn(input, axes=dim, norm=_NORM_FORWARD[normalization])
    return scipy.fft.ifftn(input, axes=dim, norm=_NORM_BACKWARD[normalization])


@op("_fft_r2c", public="_fft_r2c")
def _fft_r2c(input, dim, normalization, onesided):
    """Real-to-complex forward DFT over dims; onesided keeps n//2 + 1 entries of the last dim."""
    if onesided:
        return scipy.fft.rfftn(input, axes=dim, norm=_NORM_FORWARD[normalization])
    return scipy.fft.fftn(input, axes=dim, norm=_NORM_FORWARD[normalization])


@op("_fft_c2r", public="_fft_c2r")
def _fft_c2r(input, dim, normalization, last_dim_size):
    """Backward DFT of a Hermitian signal given by its onesided half; the last dim has last_dim_size
    points (the imaginary parts of its zero and Nyquist entries are ignored)."""
    s = [input.shape[d] for d in dim[:-1]] + [last_dim_size]
    return scipy.fft.irfftn(input, s=s, axes=dim, norm=_NORM_BACKWARD[normalization])


# ---- foreach --------------------------------------------------------------------------------
# `_foreach_<op>(tensors, ...)` applies the pointwise op to each tensor of a list (with the
# matching element of list arguments). Out of place, torch records ONE node for the call with an
# output per tensor; its backward (formulas.foreach_vjp) reuses the pointwise op's own derivative.
# In place (`_foreach_add_`), torch records each element's pointwise in-place op; so does ndgrad.
FOREACH_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor",
                 "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt",
                 "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "zero")

# overload -> (yaml schema suffix, argument kinds after `self`); kinds: L tensor list, T tensor,
# S scalar, SL scalar list
FOREACH_FORMS = {
    "List": ("List(Tensor[] self, Tensor[] other)", "L"),
    "Scalar": ("Scalar(Tensor[] self, Scalar scalar)", "S"),
    "ScalarList": ("ScalarList(Tensor[] self, Scalar[] scalars)", "SL"),
    "Tensor": ("Tensor(Tensor[] self, Tensor other)", "T"),
}
# public name -> (pointwise function name, overloads), alpha-less; add/sub take alpha for lists
FOREACH_BINARY = {
    "add": ("add", ("List", "Scalar", "ScalarList", "Tensor")),
    "sub": ("sub", ("List", "Scalar", "ScalarList")),
    "mul": ("mul", ("List", "Scalar", "ScalarList", "Tensor")),
    "div": ("div", ("List", "Scalar", "ScalarList", "Tensor")),
    "maximum": ("maximum", ("List", "Scalar", "ScalarList")),
    "minimum": ("minimum", ("List", "Scalar", "ScalarList")),
    "clamp_min": ("clamp_min", ("List", "Scalar", "ScalarList")),
    "clamp_max": ("clamp_max", ("List", "Scalar", "ScalarList")),
    "pow": ("pow", ("List", "Scalar", "ScalarList")),
}


def _nd():
    import ndgrad
    return ndgrad


def _as_tensor(x):
    return Tensor._make(x, False, None, 0) if isinstance(x, np.ndarray) else x


def _scalar_operand(fn_name, x, s):
    """maximum/minimum take a tensor operand: a scalar becomes one of x's dtype."""
    if fn_name in ("maximum", "minimum"):
        return _nd().full_like(x, s)
    return s


def foreach_apply(fn_name, *args):
    """The pointwise op `fn_name` on element i of every list argument (scalars are shared); runs on
    Tensors so the op's own dtype rules and errors apply; returns one result per list element."""
    fn = getattr(_nd(), fn_name)
    lists = [a for a in args if isinstance(a, (list, tuple))]
    if not lists[0]:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in lists[1:]:
        if len(other) != len(lists[0]):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(lists[0])} and "
                               f"{len(other)}")
    out = []
    for i in range(len(lists[0])):
        xs = [a[i] if isinstance(a, (list, tuple)) else a for a in args]
        xs = [_as_tensor(x) for x in xs]
        if len(xs) == 2 and not isinstance(xs[1], Tensor):
            xs[1] = _scalar_operand(fn_name, xs[0], xs[1])
        out.append(fn(*xs))
    return out


def _foreach_forward(fn_name):
    def forward(self, *rest):
        with no_grad():
            return tuple(t._data for t in foreach_apply(fn_name, self, *rest))
    return forward


def _register_foreach():
    """One private op per (public name, overload) and a public `_foreach_<name>` that picks it."""
    for name in FOREACH_UNARY:
        if name == "zero":
            continue
        spec = op(f"_foreach_{name}", public=False)(_named(_foreach_forward(name), 1))
        _public_foreach(name, lambda self, _s=spec: _s(self))
        _inplace_foreach(name, lambda t, *a, _n=name: getattr(t, _n + "_")(*a))
    for name, (fn_name, forms) in FOREACH_BINARY.items():
        overloads = {f: op(f"_foreach_{name}.{f}", public=False)(_named(_foreach_forward(fn_name), 2)) for f in forms}
        _public_foreach(name, _binary_picker(name, overloads))
        _inplace_foreach(name, lambda t, o, _n=fn_name: getattr(t, _n + "_")(o))


def _named(fn, n_args):
    names = ["self", "other", "weight"][:n_args]
    scope = {"fn": fn}
    exec(f"def forward({', '.join(names)}):\n    return fn({', '.join(names)})\n", scope)
    return scope["forward"]


def _binary_picker(name, overloads):
    def pick(self, other):
        if isinstance(other, (list, tuple)):
            form = "List" if other and isinstance(other[0], Tensor) else "ScalarList"
        elif isinstance(other, Tensor) and "Tensor" in overloads and other.ndim == 0 and name in ("mul", "div"):
            form = "Tensor"
        else:
            form = "Scalar"
            if isinstance(other, Tensor):
                other = other.item()
        if form not in overloads:
            raise TypeError(f"_foreach_{name}(): no overload for a {form} second argument")
        return overloads[form](self, other)
    return pick


def _public_foreach(name, fn):
    fn.__name__ = f"_foreach_{name}"
    register(fn.__name__)(fn)


def _inplace_foreach(name, elem):
    def inplace(self, *args):
        lists = [a if isinstance(a, (list, tuple)) else None for a in args]
        for i, t in enumerate(self):
            elem(t, *[a[i] if lst is not None else a for a, lst in zip(args, lists)])
    inplace.__name__ = f"_foreach_{name}_"
    register(inplace.__name__)(inplace)


_register_foreach()
