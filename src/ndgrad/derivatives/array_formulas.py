"""The array namespace: what derivatives.yaml formulas run against on the engine's array path.

In a plain backward (no create_graph, hooks, anomaly mode... see engine.py) nothing observes the
gradients between nodes, so the engine passes NumPy arrays and a node whose formulas all compile
against this namespace runs them on arrays, skipping the op glue (argument parsing, promotion,
wrapping) that the Tensor formulas pay per call. loader.py compiles each formula a second time
with operators, method calls and function calls renamed (`a * b` -> `_op_Mult(a, b)`,
`g.t()` -> `_m_t(g)`, `conj(x)` -> `_f_conj(x)`); an entry gets an array version only if every
name it uses is defined here. A formulas.py helper the formulas call (`pow_backward`...) is compiled
the same way, on first need (loader.helper_form), unless a function here stands for it.

Each function here computes exactly what the Tensor path computes (the same NumPy kernel on the
same arrays, so the numbers are bitwise equal) and only where it can be sure of that: same-dtype
floating or complex arrays, with Python int/float/bool scalars (which never lift a floating dtype).
Anything else (mixed dtypes, where torch's promotion differs from NumPy's; integer arrays; Tensors;
lists...) raises Fallback, and the node reruns on the Tensor path.
"""
import builtins
import inspect
import operator

import numpy as np

from .. import _dtype
from .._dtype import from_numpy_dtype
from ..autograd.node import TensorMeta
from ..ops import _registry, shape as _shape_ops
from ..ops.linalg import _product
from ..ops.activation import silu_backward_arrays as _silu_backward_arrays
from . import formulas

__all__ = ["Fallback", "SCOPE"]

_ndarray = np.ndarray
_asarray = np.asarray
_SPECS = {s.name: s for s in _registry.SPECS}
_NUMBER = (int, float, bool)


class Fallback(Exception):
    """The array path cannot reproduce the Tensor path here: the node runs its Tensor formulas."""


def _arr(x):
    # NumPy gives a scalar for a 0-d result; the Tensor path wraps it as a 0-d array (_registry._wrap)
    return x if type(x) is _ndarray else _asarray(x)


def _float_array(a):
    if type(a) is not _ndarray or a.dtype.kind not in "fc":
        raise Fallback
    return a


def _pointwise(spec):
    """An op's kernel on arrays, where _registry.call would run exactly it: for an op that promotes,
    arrays of one floating/complex dtype and Python int/float/bool scalars (they never lift a
    floating dtype); for one that does not, arrays of any dtype; and what _unwrap passes through
    unchanged (None, strings, dtypes, sequences of numbers). Keyword arguments are bound as the
    op's public function binds them."""
    kernel, operands, promote, broadcast = spec.kernel, spec.operands, spec.promote, spec.broadcast
    signature = []   # the forward's, on the first call with keywords (inspect.signature at import is slow)

    def run(*args, **kwargs):
        if len(args) == 2 and not kwargs:   # the usual case, the loop below without it: two arrays of one dtype
            a, b = args
            if type(a) is _ndarray and type(b) is _ndarray and a.dtype is b.dtype and a.dtype.kind in "fc":
                out = kernel(a, b)
                return out if type(out) is _ndarray else _result(out)
        if kwargs:
            if not signature:
                signature.append(inspect.signature(spec.forward))
            try:
                bound = signature[0].bind(*args, **kwargs)
            except TypeError:
                raise Fallback from None
            bound.apply_defaults()
            args = tuple(bound.arguments.values())
        dtype = None
        arrays = 0
        for i, a in enumerate(args):
            t = type(a)
            operand = operands is None or i in operands
            if t is _ndarray:
                arrays += 1
                kind = a.dtype.kind
                if kind == "V":   # bfloat16: computed in float32 by the glue
                    raise Fallback
                if kind == "u" and a.dtype in _dtype.UNSIGNED_NP:
                    raise Fallback   # uint16/32/64: the glue decides whether the op takes them (ops/_unsigned.py)
                if promote is not None:   # (_unwrap promotes when any two arrays' dtypes differ, operands or not)
                    if dtype is None:
                        dtype = a.dtype
                        if kind not in "fc":
                            raise Fallback
                    elif a.dtype != dtype:
                        raise Fallback
            elif t in _NUMBER:
                continue
            elif a is None or t is str:
                if broadcast and (operand if t is str else operands is not None and i in operands):
                    raise Fallback   # the glue's TypeError
            elif t is list or t is tuple:
                for x in a:
                    if type(x) not in _NUMBER and x is not None:
                        raise Fallback
            elif t is not _dtype.dtype:
                raise Fallback
        if not arrays:
            raise Fallback
        return _result(kernel(*args))
    run.__name__ = spec.name
    return run


def _result(out):
    """A kernel's result as the glue wraps it (target None): arrays, NumPy scalars as 0-d arrays."""
    if type(out) is _ndarray:
        return out
    if isinstance(out, np.generic):
        return _asarray(out)
    if type(out) is tuple:
        return tuple([_result(o) for o in out])
    raise Fallback   # sparse, nested, None...


def _binary(name, pyop, swap, reflected=None):
    """`a <op> b` as Tensor's operator computes it: the op's kernel on (array, array of its dtype) or
    (array, Python number); with the number first, the kernel on (array, number) where the op
    commutes (`2 * g` is `mul(g, 2)`), the `reflected` op's (`1 - s` is `rsub(s, 1)`), else Fallback
    (reciprocal-times)."""
    kernel = _SPECS[name].kernel
    reflected = swap and kernel or reflected and _SPECS[reflected].kernel

    def run(a, b):
        ta, tb = type(a), type(b)
        if ta is _ndarray:
            if a.dtype.kind not in "fc" or tb is _ndarray and b.dtype != a.dtype or \
                    tb is not _ndarray and tb is not float and tb is not int:
                raise Fallback
            out = kernel(a, b)
            return out if type(out) is _ndarray else _arr(out)
        if tb is _ndarray:
            if not reflected or b.dtype.kind not in "fc" or ta is not float and ta is not int:
                raise Fallback
            return _arr(reflected(b, a))
        if ta in _PYTHON_VALUES and tb in _PYTHON_VALUES:   # (sizes: `(1,) * n`, `shape + (k,)`)
            return pyop(a, b)
        raise Fallback
    return run


_PYTHON_VALUES = frozenset((int, float, bool, tuple, list))


def _compare(pyop, name):
    """`a <cmp> b`: of Python values, or as Tensor's operator compares a floating array with an array of
    its dtype or a Python number (the op's kernel: a bool array, as the Tensor path's bool Tensor;
    complex arrays only for == and !=, the others being torch's error there)."""
    kernel = _SPECS[name].kernel
    kinds = "fc" if name in ("eq", "ne") else "f"

    def run(a, b):
        if type(a) is _ndarray:
            if a.dtype.kind not in kinds or not (type(b) is int or type(b) is float or type(b) is _ndarray
                                                  and b.dtype == a.dtype):
                raise Fallback
            return _arr(kernel(a, b))
        if type(b) is _ndarray or hasattr(a, "_array") or hasattr(b, "_array"):
            raise Fallback
        return pyop(a, b)
    return run


_op_Mult = _binary("mul.Tensor", operator.mul, True)
_op_Add = _binary("add.Tensor", operator.add, True)
_op_Sub = _binary("sub.Tensor", operator.sub, False, "rsub.Scalar")
_op_Div = _binary("div.Tensor", operator.truediv, False)
_neg_kernel = _SPECS["neg"].kernel


def _op_USub(a):
    if type(a) is _ndarray:
        return _arr(_neg_kernel(_float_array(a)))
    if type(a) in _NUMBER:
        return -a
    raise Fallback


def _f_conj(x):
    if type(x) is float or type(x) is int:
        return x
    if type(x) is _ndarray:   # the Tensor path's lazy conj view resolves to these values (apply_bits)
        return _arr(x.conj()) if x.dtype.kind == "c" else x
    if type(x) in _NUMBER or type(x) is complex or x is None:
        return formulas.conj(x)
    raise Fallback


def _a_dtype(x):
    """`x.dtype` as the Tensor path reads it (an ndgrad dtype) of an array or a saved TensorMeta."""
    if type(x) is _ndarray:
        return from_numpy_dtype(x.dtype)
    if type(x) is TensorMeta:
        return x.dtype
    raise Fallback


def _m_numel(x):
    if type(x) is _ndarray:
        return x.size
    if type(x) is TensorMeta:
        return x.numel()
    raise Fallback


def _m_dim(x):
    if type(x) is _ndarray or type(x) is TensorMeta:
        return len(x.shape)
    raise Fallback


def _f_maybe_multiply(grad, alpha):
    return grad if alpha == 1 else _op_Mult(grad, alpha)


def _m_stride(x):
    """`x.stride()` as the Tensor path reads it, of an array or a saved TensorMeta."""
    if type(x) is _ndarray and x.size:
        return tuple(s // x.itemsize for s in x.strides)
    if type(x) is TensorMeta:
        return x.stride()
    raise Fallback   # (an empty array: Tensor.stride's contiguous strides)


_column_major = formulas.column_major


def _f_mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, alpha):
    g = _m_t(_m_mm(_f_conj(mat2), _m_t(grad))) if _column_major(mat1_sizes, mat1_strides) else \
        _m_mm(grad, _f_conj(_m_t(mat2)))
    return g if alpha == 1 else _f_maybe_multiply(g, _f_conj(alpha))


def _f_mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, alpha):
    g = _m_t(_m_mm(_m_t(grad), _f_conj(mat1))) if _column_major(mat2_sizes, mat2_strides) else \
        _m_mm(_f_conj(_m_t(mat1)), grad)
    return g if alpha == 1 else _f_maybe_multiply(g, _f_conj(alpha))


_sum_dim_kernel = _SPECS["sum.dim_IntList"].kernel


def _f_sum_to(t, shape):
    """gradient_checks.sum_to on an array: the same reduction kernel, then the same reshape view."""
    _float_array(t)
    shape = tuple(shape)
    tshape = t.shape
    if tshape == shape:
        return t
    lead = len(tshape) - len(shape)
    if lead < 0:
        raise Fallback
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and tshape[lead + i] != 1:
            dims.append(lead + i)
        elif s != tshape[lead + i]:
            raise Fallback   # the Tensor path raises its error
    if dims:
        t = _arr(_sum_dim_kernel(t, dims, True))
    return _m_reshape(t, shape) if lead else t


def _f_reduce_backward(grad, shape, dim, keepdim):
    ndim = len(shape)
    if keepdim or ndim == 0:
        return grad
    _float_array(grad)
    for d in formulas.normalize_dims(dim, ndim):   # sorted, as unsqueeze_dims inserts them
        grad = _m_unsqueeze(grad, d)
    return grad


def _f_zeros_like(a):
    return np.zeros_like(_float_array(a))   # zeros laid out as `a` (torch's preserve_format)


def _sizes(args):
    """A size given as one sequence or as ints (Tensor.expand / reshape / view's forms)."""
    if len(args) == 1 and type(args[0]) is not int:
        args = args[0]
    size = tuple(args)
    for s in size:
        if type(s) is not int:
            raise Fallback
    return size


def _m_expand(a, *size):
    """Tensor.expand (shape._expand_checked, then the expand kernel shape.broadcast_view)."""
    _float_array(a)
    size = _sizes(size)
    shape = a.shape
    lead = len(size) - len(shape)
    if lead < 0:
        raise Fallback
    target = list(size)
    for i in range(lead, len(size)):
        have = shape[i - lead]
        if size[i] == -1:
            target[i] = have
        elif have != 1 and size[i] != have:
            raise Fallback
    for s in size[:lead]:
        if s < 0:
            raise Fallback
    return _shape_ops.broadcast_view(a, tuple(target))


_view_kernel, _alias_kernel = _SPECS["view"].kernel, _SPECS["_reshape_alias"].kernel
_clone_kernel, _unsafe_view_kernel = _SPECS["clone"].kernel, _SPECS["_unsafe_view"].kernel


def _m_reshape(a, *shape):
    """Tensor.reshape (shape._reshape) with the same kernels, so the same layout: a view where the
    strides allow one, else a view of a clone."""
    shape = _shape_ops._infer_size(_sizes(shape), _float_array(a).size)
    if a.flags.c_contiguous:
        return _view_kernel(a, shape)
    try:
        return _alias_kernel(a, shape)
    except _shape_ops._NotViewable:
        return _unsafe_view_kernel(_clone_kernel(a), shape)


def _m_view(a, *shape):
    if not _float_array(a).flags.c_contiguous:   # (a view of another layout may be refused: the Tensor path says)
        raise Fallback
    return _m_reshape(a, *shape)
_t_kernel = _SPECS["t"].kernel


def _m_t(a):
    if _float_array(a).ndim > 2:
        raise Fallback
    return _t_kernel(a)


def _m_transpose(a, dim0, dim1):
    n = _float_array(a).ndim
    if type(dim0) is not int or type(dim1) is not int or not (-max(n, 1) <= dim0 < max(n, 1)) \
            or not (-max(n, 1) <= dim1 < max(n, 1)):
        raise Fallback
    if n == 0:
        return a
    return np.swapaxes(a, dim0, dim1)


def _m_unsqueeze(a, dim):
    if type(a) is not _ndarray:   # (any dtype: a view computes nothing; select_backward's int64 indices)
        raise Fallback
    n = a.ndim
    if type(dim) is not int or not (-n - 1 <= dim <= n):
        raise Fallback
    return np.expand_dims(a, dim % (n + 1))


def _m_squeeze(a, *dim):
    """Tensor.squeeze() / squeeze(dim) / squeeze(dims), as a view (shape._squeeze_dims)."""
    n = _float_array(a).ndim
    if not dim:
        dims = range(n)
    else:
        d = dim[0] if len(dim) == 1 else dim
        dims = (d,) if type(d) is int else tuple(d)
        if not all(type(x) is int and -max(n, 1) <= x < max(n, 1) for x in dims):
            raise Fallback
        dims = tuple(x % max(n, 1) for x in dims)
    return _SPECS["squeeze.dims"].kernel(a, dims)


def _m_permute(a, *dims):
    dims = _sizes(dims)
    n = _float_array(a).ndim
    if len(dims) != n or not all(-max(n, 1) <= d < max(n, 1) for d in dims):
        raise Fallback
    wrapped = tuple(d % max(n, 1) for d in dims)
    if len(set(wrapped)) != n:
        raise Fallback
    return np.transpose(a, wrapped)


_f_invert_permutation = formulas.invert_permutation
_select_backward = _pointwise(_SPECS["select_backward"])
_slice_backward = _pointwise(_SPECS["slice_backward"])


def _f_unselect(grad, input_sizes, dim, index):
    return _select_backward(_float_array(grad), tuple(input_sizes), dim, index)


def _f_unslice(grad, input_sizes, dim, start, end, step):
    return _slice_backward(_float_array(grad), tuple(input_sizes), dim, start, end, step)


_masked_fill_kernel = _SPECS["masked_fill.Scalar"].kernel


def _m_masked_fill(a, mask, value):
    """Tensor.masked_fill with a number (the glue's value: that number as a 0-d array of a's dtype)."""
    if type(mask) is not _ndarray or mask.dtype != np.bool_ or type(value) not in _NUMBER \
            or np.broadcast_shapes(mask.shape, _float_array(a).shape) != a.shape:
        raise Fallback
    return _arr(_masked_fill_kernel(a, mask, np.asarray(value).astype(a.dtype)))


def _m_mm(a, b):
    # the mm kernel without its checks, which these make (np.matmul's error on sizes that do not
    # match is a Fallback: the Tensor path raises torch's)
    if _float_array(a).ndim != 2 or _float_array(b).ndim != 2 or a.dtype != b.dtype:
        raise Fallback
    return _arr(_product(a, b))


_f_mm = _m_mm
_f_conv_grads = formulas.conv_grads   # (a selection of convolution_backward's outputs: any values)


# formulas.py's helpers of Python values only (dims, shapes): the same functions on either path
_f_normalize_dims, _f_reduced_numel = formulas.normalize_dims, formulas.reduced_numel


def _f__is_tensor(x):
    return type(x) is _ndarray   # (on the array path every Tensor value is an array)


_where_kernel = _SPECS["where.self"].kernel


def _f_where(condition, input, other):
    """where.self's kernel on a bool condition array and operands that are floating arrays of one
    dtype or Python numbers (which never lift it)."""
    if type(condition) is not _ndarray or condition.dtype != np.bool_:
        raise Fallback
    dtype = None
    for v in (input, other):
        if type(v) is _ndarray:
            if dtype is None:
                dtype = _float_array(v).dtype
            elif v.dtype != dtype:
                raise Fallback
        elif type(v) is not int and type(v) is not float:
            raise Fallback
    if dtype is None:
        raise Fallback
    return _arr(_where_kernel(condition, input, other))


_pow_kernel = _SPECS["pow.Tensor_Scalar"].kernel


def _m_pow(a, exponent):
    """Tensor.pow with a Python number exponent (pow.Tensor_Scalar's kernel)."""
    if type(exponent) is not int and type(exponent) is not float:
        raise Fallback
    return _arr(_pow_kernel(_float_array(a), exponent))


_sum_all_kernel, _mean_all_kernel, _mean_dim_kernel = (_SPECS[n].kernel for n in ("sum", "mean", "mean.dim"))


def _reduction_method(all_kernel, dim_kernel):
    """Tensor.sum / Tensor.mean as their parser reads the formulas' calls (x.sum(), x.sum(dim),
    x.sum(dim, keepdim=...)): the kernels of the op each form is."""
    def method(a, dim=None, keepdim=False):
        if type(keepdim) is not bool or not (dim is None or type(dim) is int or type(dim) in (tuple, list) and all(
                type(d) is int for d in dim)):
            raise Fallback
        _float_array(a)
        if dim is None:
            if keepdim:
                raise Fallback
            return _arr(all_kernel(a))
        return _arr(dim_kernel(a, dim, keepdim))
    return method


_m_sum = _reduction_method(_sum_all_kernel, _sum_dim_kernel)
_m_mean = _reduction_method(_mean_all_kernel, _mean_dim_kernel)


_cat_kernel, _stack_kernel, _scatter_kernel, _flip_kernel = (
    _SPECS[n].kernel for n in ("cat", "stack", "scatter.src", "flip"))


def _float_arrays(tensors):
    """A list or tuple of floating arrays of one dtype, as a list (else Fallback)."""
    if type(tensors) is not list and type(tensors) is not tuple or not tensors:
        raise Fallback
    dtype = _float_array(tensors[0]).dtype
    for a in tensors:
        if type(a) is not _ndarray or a.dtype != dtype:
            raise Fallback
    return list(tensors)


def _f_cat(tensors, dim=0):
    """cat (shape.cat: its checks, then its kernel) of floating arrays of one dtype and ndim, none of
    them the 1-D empty ones cat skips (split's and unbind's backward)."""
    arrays = _float_arrays(tensors)
    ref = arrays[0].shape
    n = len(ref)
    if type(dim) is not int or not -n <= dim < n:
        raise Fallback
    dim %= n
    for a in arrays:
        s = a.shape
        if len(s) != n or s == (0,) or s[:dim] != ref[:dim] or s[dim + 1:] != ref[dim + 1:]:
            raise Fallback
    return _arr(_cat_kernel(arrays, dim, [a.shape[dim] for a in arrays]))


def _f_stack(tensors, dim=0):
    """stack (shape.stack: its checks, then its kernel) of floating arrays of one dtype and shape."""
    arrays = _float_arrays(tensors)
    shape = arrays[0].shape
    n = len(shape) + 1
    if type(dim) is not int or not -n <= dim < n:
        raise Fallback
    for a in arrays:
        if a.shape != shape:
            raise Fallback
    return _arr(_stack_kernel(arrays, dim % n))


def _m_new_zeros(a, *size):
    """Tensor.new_zeros(size) of a floating array: zeros of its dtype."""
    return np.zeros(_sizes(size), _float_array(a).dtype)


def _m_scatter(a, dim, index, src):
    """Tensor.scatter(dim, index, src) (scatter.src's kernel) into a floating array from one of its
    dtype, at int64 indices in range (a negative one is torch's error there: the Tensor path)."""
    n = max(_float_array(a).ndim, 1)
    if type(dim) is not int or not -n <= dim < n or type(index) is not _ndarray or index.dtype != np.int64 \
            or type(src) is not _ndarray or src.dtype != a.dtype or index.ndim != a.ndim or src.ndim != a.ndim \
            or index.size and index.min() < 0:
        raise Fallback
    return _arr(_scatter_kernel(a, dim % n, index, src))


def _m_flip(a, dims):
    """Tensor.flip(dims) (the flip kernel: a copy) of a floating array."""
    n = max(_float_array(a).ndim, 1)
    dims = (dims,) if type(dims) is int else tuple(dims)
    if not all(type(d) is int and -n <= d < n for d in dims) or len({d % n for d in dims}) != len(dims):
        raise Fallback
    return _arr(_flip_kernel(a, tuple(d % n for d in dims) if a.ndim else dims))


_index_put_kernel = _SPECS["_index_put_impl_"].kernel


def _f__index_put_impl_op(input, indices, values, accumulate=False, unsafe=False):
    """_index_put_impl_'s kernel (index_backward's accumulation into fresh zeros): floating arrays of
    one dtype, the indices int64 or bool arrays or None (the kernel's other index dtypes: Fallback)."""
    if type(indices) is not list and type(indices) is not tuple or type(accumulate) is not bool \
            or type(values) is not _ndarray or values.dtype != _float_array(input).dtype:
        raise Fallback
    for a in indices:
        if a is not None and (type(a) is not _ndarray or a.dtype != np.int64 and a.dtype != np.bool_):
            raise Fallback
    return _arr(_index_put_kernel(input, list(indices), values, accumulate, unsafe))


def _m_is_complex(x):
    """`x.is_complex()` of an array or a saved TensorMeta."""
    if type(x) is _ndarray:
        return x.dtype.kind == "c"
    if type(x) is TensorMeta:
        return x.is_complex()
    raise Fallback


def _a_real(x):
    """`x.real` of a complex array (the view of its real parts)."""
    if type(x) is not _ndarray or x.dtype.kind != "c":
        raise Fallback
    return x.real


def _m_to(a, dtype):
    """Tensor.to(dtype) of a floating array to a floating or complex dtype: the array itself for its own
    dtype (as Tensor.to returns self), else the _to_copy kernel's cast."""
    if type(dtype) is not _dtype.dtype or dtype.np.kind not in "fc":
        raise Fallback
    if _float_array(a).dtype == dtype.np:
        return a
    return a.astype(dtype.np)


_embedding_dense_kernel = _SPECS["embedding_dense_backward"].kernel


def _f_embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
    """embedding's dense weight gradient (embedding_dense_backward's kernel, as formulas.embedding_backward
    calls it); a sparse one (a COO tensor) is the Tensor path's."""
    if sparse is not False or type(indices) is not _ndarray or indices.dtype != np.int64 and indices.dtype != np.int32:
        raise Fallback
    return _arr(_embedding_dense_kernel(_float_array(grad), indices, num_weights, padding_idx, scale_grad_by_freq))


def _f_silu_backward(grad, x):
    """formulas.silu_backward, its passes block by block where the arrays allow (the same bits)."""
    out = _silu_backward_arrays(grad, x)
    if out is None:
        raise Fallback   # (the Tensor path's formula; its rewritten array form would need this name)
    return out


_m_conj = _f_conj   # (Tensor.conj(): the same values, a real array itself)


def _build_scope():
    scope = {"__name__": __name__, "__builtins__": builtins}   # (NumPy warnings from formulas: ndgrad's filter)
    # every op that is its glue's call of a kernel (not a view, not in place), as a function and as a
    # method; run only on arrays and numbers (_pointwise's guard), where the glue adds nothing to the kernel
    entry_code = _registry.OPS["mul"].__code__   # (every such public function is one _entry_point closure)
    for table, prefix in ((_registry.OPS, "_f_"), (_registry.METHODS, "_m_")):
        for name, fn in table.items():
            spec = getattr(fn, "spec", None)
            if spec is not None and getattr(fn, "__code__", None) is entry_code and not spec.view \
                    and not name.endswith("_"):
                scope[prefix + name] = _pointwise(spec)
    for name, value in vars(formulas).items():   # formulas.py's numeric constants (LN2, ...)
        if type(value) in (int, float) and not name.startswith("_"):
            scope[name] = value
    scope.update(_op_Mult=_op_Mult, _op_Add=_op_Add, _op_Sub=_op_Sub, _op_Div=_op_Div, _op_USub=_op_USub,
                 _cmp_Lt=_compare(operator.lt, "lt"), _cmp_LtE=_compare(operator.le, "le"),
                 _cmp_Gt=_compare(operator.gt, "gt"), _cmp_GtE=_compare(operator.ge, "ge"),
                 _cmp_Eq=_compare(operator.eq, "eq"), _cmp_NotEq=_compare(operator.ne, "ne"))
    scope.update({k: v for k, v in globals().items() if k.startswith(("_f_", "_m_", "_a_"))})
    return scope


SCOPE = _build_scope()
