"""Activations: relu/threshold, leaky_relu, elu/selu/celu, gelu, silu, softplus, hardtanh, hardsigmoid,
hardswish, mish, shrinks, log_sigmoid, glu, prelu, rrelu; softmax / log_softmax and _masked_softmax.

Each op's backward is itself an op here (`_gelu_backward`, `_softmax_backward_data`, ...): one NumPy
kernel for the first derivative and a derivatives.yaml entry of its own, so double backward records
the nodes torch records. Underscored names are torch's internal (ATen) forms; the user-facing forms
with nn.functional's signatures are at the end of each section and in ndgrad/nn/functional/activation.py.
The lowest nn family: the others take `_inplace`, `_float_only` and `_zero` from here.
"""
import inspect
import math
import sys
import types

import numpy as np
from numpy._core.umath import clip as _clip   # (the ufunc: see _relu_into)

from .. import _dtype, _parallel, _pool
from ._registry import call_inplace, op, register
from ._scratch import buffer
from .._tensor import _wrap_dim
from ..backends.numpy_backend import special
from . import _fused, creation
from .pointwise import _sigmoid as _sigmoid_kernel
from ._branchless import _SMALL, _UINT, where as _branchless_where
from .linalg import _type_name
from .._random import generator as _generator
from .random import _uniform01


# Python floats, so float32 inputs stay float32
_GELU_K = math.sqrt(2 / math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_SQRT_HALF = math.sqrt(0.5)
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _axis(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _inplace(entry, forward):
    """`forward` applied in place and recorded under yaml entry `entry` (torch gives some in-place
    activations an entry of their own: they save the result instead of the input)."""
    spec = op(entry, public=False)(forward).spec
    signature = inspect.signature(forward)

    def apply(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return call_inplace(spec, tuple(bound.arguments.values()))
    return apply


# ---- relu and threshold -------------------------------------------------------------------
@op("relu", method=True, inplace=True)
def relu(input):
    _no_complex_clamp(input)
    if input.dtype == np.bool_:
        raise RuntimeError("relu: Boolean inputs not supported for relu; cast to a numeric dtype first")
    return _relu_replay(input)


def _relu_replay(input, out=None):   # (ndgrad.compile's tapes call it, `out` as for _softmax_replay below)
    if (pooled := _pool.relu(input, out)) is not None:   # (large float arrays: the native pool's threads)
        return pooled
    if _parallel.contiguous(input):
        return _parallel.elementwise(_relu_into, np.empty_like(input) if out is None else out, input)
    return _relu_into(input, out)


# NumPy's clip ufunc, bounded by 0-d arrays of the input's dtype, is torch's relu to the bit (-0.0 stays
# -0.0, NaN stays NaN, where np.maximum gives +0.0) and, unlike np.maximum, vectorised here: 3x faster on
# large float32 arrays, and faster than np.maximum's scalar handling on small ones. (np.clip, its Python
# wrapper, costs 2 us per call.)
_RELU_BOUNDS = {np.dtype(t): (np.zeros((), t), np.full((), np.inf, t)) for t in (np.float16, np.float32, np.float64)}


def _relu_into(input, out=None):
    bounds = _RELU_BOUNDS.get(input.dtype) if type(input) is np.ndarray else None
    if bounds is None:   # integers, other array types
        return np.maximum(input, 0, out=out)
    return _clip(input, bounds[0], bounds[1], out=out)


_relu_replay.out_operand = 0
relu.__wrapped__.replay = _relu_replay
register("relu_")(relu.inplace)


def _threshold(input, threshold, value):
    # `value` where input <= threshold, as torch's kernel decides: a NaN input stays NaN
    threshold, value = _real_scalar(threshold, input.dtype), _real_scalar(value, input.dtype)
    return np.where(input <= threshold, np.asarray(value, input.dtype), input)


def _real_scalar(value, np_dtype):
    """A complex Scalar for a real tensor: its real part, if it has no imaginary part (as torch converts)."""
    if isinstance(value, complex) and np_dtype.kind != "c":
        if value.imag:
            ctype = {"float16": "c10::Half", "float32": "float", "float64": "double"}.get(np_dtype.name, np_dtype.name)
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        return value.real
    return value


threshold = op("threshold", public="threshold")(_threshold)
threshold_ = register("threshold_")(_inplace("threshold_", _threshold))


_ZEROS = {np.dtype(t): np.zeros((), t) for t in (np.float16, np.float32, np.float64)}


@op("threshold_backward", public="_threshold_backward")
def _threshold_backward(grad_output, input, threshold):   # branch-free: a ReLU's mask is random
    # as torch: zero where input <= threshold, so a NaN input passes its gradient
    if type(grad_output) is np.ndarray and type(input) is np.ndarray and type(threshold) in (int, float):
        if grad_output.size < _SMALL and _fused._kernels is None and input.dtype is grad_output.dtype \
                and input.shape == grad_output.shape and (zero := _ZEROS.get(input.dtype)) is not None:
            # small, and numba not loaded (its kernel takes small arrays once it is): one selection, the same bits
            return np.where(input <= threshold, zero, grad_output)
        if (fused := _fused.threshold_backward(grad_output, input, threshold)) is not None:
            return fused
    uint = _UINT.get(grad_output.itemsize) if type(grad_output) is np.ndarray and grad_output.size >= _SMALL else None
    if uint is not None and grad_output.dtype.kind == "f" and type(input) is np.ndarray \
            and input.shape == grad_output.shape:
        def select(g, x, out):
            # _branchless_where's bit selection in three passes, not five: the comparison made into the
            # all-ones words at once (1 where zeroed, minus 1: 0 there, all ones where the gradient passes)
            np.copyto(out, np.less_equal(x, threshold))
            out -= 1
            return np.bitwise_and(g.view(uint), out, out=out)
        keep = np.empty(grad_output.shape, uint)
        if _parallel.contiguous(grad_output, input):
            _parallel.elementwise(select, keep, grad_output, input)
        else:
            select(grad_output, input, keep)
        return keep.view(grad_output.dtype)
    return _branchless_where(~(input <= threshold), grad_output, np.zeros((), grad_output.dtype))


# ---- other activations (user-facing forms in nn/functional/activation.py) ----------------------------
def _leaky_relu_forward(input, negative_slope=0.01):
    _float_only("leaky_relu_cpu", input)
    return np.where(input > 0, input, input * np.asarray(negative_slope, input.dtype))


leaky_relu = op("leaky_relu", public="_leaky_relu")(_leaky_relu_forward)
leaky_relu_ = _inplace("leaky_relu_", _leaky_relu_forward)


@op("leaky_relu_backward", public="_leaky_relu_backward")
def _leaky_relu_backward(grad_output, input, negative_slope, self_is_result):
    return np.where(input > 0, grad_output, grad_output * np.asarray(negative_slope, grad_output.dtype))


def _elu_forward(input, alpha=1, scale=1, input_scale=1):
    neg = np.expm1(np.minimum(input, 0) * input_scale) * alpha
    return np.where(input > 0, input, neg) * np.asarray(scale, input.dtype)


elu = op("elu", public="_elu")(_elu_forward)
elu_ = _inplace("elu_", _elu_forward)


@register()
def selu(input):
    return elu(input, _SELU_ALPHA, _SELU_SCALE)


@register()
def selu_(input):
    return elu_(input, _SELU_ALPHA, _SELU_SCALE)


def _celu_forward(input, alpha=1.0):
    return _elu_forward(input, alpha, 1, 1 / alpha)


celu = op("celu", public="celu")(_celu_forward)
celu_ = register("celu_")(_inplace("celu_", _celu_forward))


@op("elu_backward", public="_elu_backward")
def _elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result):
    x = self_or_result
    if is_result:   # exp(x * input_scale) recovered from the output: out / (scale * alpha) + 1
        slope = (x / scale + alpha) * input_scale
    else:
        slope = np.exp(np.minimum(x, 0) * input_scale) * (alpha * input_scale)
    return grad_output * np.where(x > 0, np.asarray(scale, x.dtype), slope * scale)


# GELU's tanh form, t = tanh(k (x + c x^3)), computed in one buffer (the MLP of a transformer
# spends its time here; never x**3: NumPy's float32 power is ~300x slower than x*x*x)
_GELU_C = 0.044715


def _gelu_tanh(x, block=1 << 16, keep=None):
    """gelu(x) = 0.5 x (1 + t), computed block by block into the result: each block's passes run
    in cache rather than over the whole array in memory. `keep` (a C-contiguous array of x's shape and
    dtype) receives t, the same bits _gelu_tanh_derivative computes."""
    out = np.empty_like(x, order="C")
    xf, of = x.reshape(-1), out.reshape(-1)
    kf = None if keep is None else keep.reshape(-1)
    fused = _fused.kernels(xf, of)
    if fused is not None:
        d = x.dtype.type
        c, one, k, half = d(_GELU_C), d(1), d(_GELU_K), d(0.5)

    def blocks(a, b):   # blocks a..b-1 (intra-op threads take ranges of blocks)
        for i in range(a * block, min(b * block, xf.size), block):
            xb, o = xf[i:i + block], of[i:i + block]
            t = o if kf is None else kf[i:i + block]
            if fused is not None:   # the same operations, compiled: two passes around NumPy's tanh
                fused.gelu_inner(xb, c, one, k, t)
                np.tanh(t, out=t)
                fused.gelu_outer(t, xb, one, half, o)
                continue
            np.multiply(xb, xb, out=t)
            t *= _GELU_C
            t += 1
            t *= xb
            t *= _GELU_K
            np.tanh(t, out=t)
            np.add(t, 1, out=o)
            o *= xb
            o *= 0.5
    _parallel.run(blocks, -(-xf.size // block), 16 * xf.size)   # (tanh costs several plain passes)
    return out


def _gelu_tanh_derivative(x, grad_output=None, block=1 << 16, tanh=None):
    """d gelu/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) du/dx = (1 + t) (0.5 + 0.5 x du/dx (1 - t)), with
    du/dx = k (1 + 3 c x^2). Computed block by block into the result: the two scratch rows are a
    cache-sized block (this is the backward memory peak of a transformer's MLP); x^2 is computed once
    per block, and the halving folded into the constants (exact: a power of two). With `grad_output`
    (of x's shape and dtype) the result is grad_output times the derivative, multiplied in the block.
    `tanh`: t as _gelu_tanh kept it (C-contiguous, x's shape), read instead of computed again."""
    out = np.empty(x.shape, x.dtype)
    xf, of = x.reshape(-1), out.reshape(-1)
    gf = None if grad_output is None else grad_output.reshape(-1)
    tf = None if tanh is None else tanh.reshape(-1)
    fused = _fused.kernels(xf, of, gf, tf)
    if fused is not None:
        d = x.dtype.type
        consts = d(1.5 * _GELU_C * _GELU_K), d(0.5 * _GELU_K), d(_GELU_C), d(1), d(_GELU_K)
        one, half, no_grad_output = d(1), d(0.5), np.empty(0, x.dtype)

    def blocks(a, b):   # blocks a..b-1 (intra-op threads take ranges of blocks, each its own scratch)
        scratch = np.empty((2, min(block, xf.size)), x.dtype)
        for i in range(a * block, min(b * block, xf.size), block):
            xb, t = xf[i:i + block], of[i:i + block]
            s, u = scratch[0, :xb.size], scratch[1, :xb.size]
            if fused is not None:   # the same operations, compiled: two passes around NumPy's tanh
                fused.gelu_slope_inner(xb, *consts, s, t, tf is None)
                tb = t if tf is None else tf[i:i + block]
                if tf is None:
                    np.tanh(t, out=t)
                fused.gelu_slope_outer(tb, s, no_grad_output if gf is None else gf[i:i + block], one, half, t)
                continue
            np.multiply(xb, xb, out=u)
            np.multiply(u, 1.5 * _GELU_C * _GELU_K, out=s)   # s = 0.5 x du/dx
            s += 0.5 * _GELU_K
            s *= xb
            if tf is None:
                u *= _GELU_C                                  # t = tanh(k (x + c x^3))
                u += 1
                np.multiply(u, xb, out=t)
                t *= _GELU_K
                np.tanh(t, out=t)
                tb = t
            else:
                tb = tf[i:i + block]
            np.subtract(1, tb, out=u)
            s *= u
            s += 0.5
            np.add(tb, 1, out=t)
            t *= s
            if gf is not None:
                t *= gf[i:i + block]
    _parallel.run(blocks, -(-xf.size // block), (16 if tf is None else 12) * xf.size)
    return out


def _times_grad(local, grad_output):
    """grad_output * local, into `local` (a fresh buffer) when the product has its shape and dtype."""
    if grad_output.shape == local.shape and np.result_type(grad_output, local) == local.dtype:
        local *= grad_output
        return local
    return grad_output * local


@op("gelu", public="_gelu")
def _gelu(input, *, approximate="none"):
    if approximate == "tanh":
        return _gelu_tanh(input)
    if approximate != "none":
        raise RuntimeError(f"gelu: approximate argument must be either none or tanh, got {approximate!r}")
    return _gelu_erf(input)


def _gelu_erf(x):
    if x.dtype == np.float16:   # in float32, rounded once (SciPy's erf would return float64)
        return _gelu_erf(x.astype(np.float32)).astype(np.float16)
    return 0.5 * x * (1 + _erf(x * _SQRT_HALF))


@op("gelu_backward", public="_gelu_backward")
def _gelu_backward(grad_output, input, *, approximate="none"):
    x = input
    if approximate == "tanh":
        if grad_output.shape == x.shape and grad_output.dtype == x.dtype:   # the product in the blocks
            return _gelu_tanh_derivative(x, grad_output)
        return _times_grad(_gelu_tanh_derivative(x), grad_output)
    return grad_output * (0.5 * (1 + _erf(x * _SQRT_HALF)) + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI)


# ndgrad.compile's tapes keep GELU's tanh from the forward for the backward (compiler._KEPT): the
# backward then reads it instead of computing it again, the same bits (the same operations on x)
def _gelu_tanh_keeping(input):
    """(gelu(input, approximate="tanh"), its tanh)."""
    t = np.empty(input.shape, input.dtype)
    return _gelu_tanh(input, keep=t), t


def _gelu_tanh_backward_kept(grad_output, input, tanh):
    """gelu_backward(grad_output, input, approximate="tanh"), the tanh given."""
    if grad_output.shape == input.shape and grad_output.dtype == input.dtype:
        return _gelu_tanh_derivative(input, grad_output, tanh=tanh)
    return _times_grad(_gelu_tanh_derivative(input, tanh=tanh), grad_output)


def _silu_forward(input):
    if not _blockable(input):
        return input / (1 + np.exp(-input))
    out = np.empty(input.shape, input.dtype)
    xf, of = input.reshape(-1), out.reshape(-1)

    def blocks(i, j):   # x / (1 + exp(-x)), the same operations block by block (in cache)
        t = np.empty(min(_BLOCK, xf.size), xf.dtype)
        for k in range(i * _BLOCK, min(j * _BLOCK, xf.size), _BLOCK):
            xb, tb = xf[k:k + _BLOCK], t[:min(_BLOCK, xf.size - k)]
            np.negative(xb, out=tb)
            np.exp(tb, out=tb)
            np.add(tb, 1, out=tb)
            np.divide(xb, tb, out=of[k:k + _BLOCK])
    _parallel.run(blocks, -(-xf.size // _BLOCK), 8 * xf.size)
    return out


def silu_backward_arrays(grad, x):
    """formulas.silu_backward on arrays of one shape and dtype, grad * s * (1 + x * (1 - s)) with
    s = sigmoid(x): the same operations (the sigmoid op's kernel included), block by block in cache.
    None where the arrays are not such (the node then runs the formula on the Tensor path)."""
    if type(x) is not np.ndarray or x.dtype.kind != "f" or x.dtype.itemsize < 4 or type(grad) is not np.ndarray \
            or grad.shape != x.shape or grad.dtype != x.dtype:
        return None
    out = np.empty(x.shape, x.dtype)
    xf, gf, of = x.reshape(-1), grad.reshape(-1), out.reshape(-1)

    def blocks(i, j):
        u = np.empty(min(_BLOCK, xf.size), xf.dtype)
        for k in range(i * _BLOCK, min(j * _BLOCK, xf.size), _BLOCK):
            xb, ob, ub = xf[k:k + _BLOCK], of[k:k + _BLOCK], u[:min(_BLOCK, xf.size - k)]
            sb = _sigmoid_kernel(xb)
            np.multiply(gf[k:k + _BLOCK], sb, out=ob)
            np.subtract(1, sb, out=ub)
            np.multiply(xb, ub, out=ub)
            np.add(ub, 1, out=ub)
            np.multiply(ob, ub, out=ob)
    _parallel.run(blocks, -(-xf.size // _BLOCK), 12 * xf.size)
    return out


_BLOCK = 1 << 16   # elements of a block of an elementwise formula's passes (its scratch stays in L2)


def _blockable(x):
    """Whether x is an array elementwise passes may run over block by block: real floating, NumPy,
    large enough for the blocks to pay."""
    return type(x) is np.ndarray and x.dtype.kind == "f" and x.dtype.itemsize >= 4 and x.size > _BLOCK


silu = op("silu", public="_silu")(_silu_forward)
silu_ = _inplace("silu", _silu_forward)


@op("softplus", public="_softplus")
def _softplus(input, beta=1, threshold=20):
    bx = input * beta
    return np.where(bx > threshold, input, np.logaddexp(0, bx) / beta)


@op("softplus_backward", public="_softplus_backward")
def _softplus_backward(grad_output, input, beta, threshold):
    bx = input * beta
    return np.where(bx > threshold, grad_output, grad_output / (1 + np.exp(-bx)))


def _hardtanh_forward(input, min_val=-1, max_val=1):
    _no_complex_clamp(input)
    if input.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype.kind in "iu":   # torch clamps integers to the bounds made integers (truncated)
        min_val, max_val = int(min_val), int(max_val)
    if min_val > max_val:
        raise RuntimeError(f"hardtanh: min_val ({min_val}) cannot be greater than max_val ({max_val})")
    return np.clip(input, min_val, max_val)


hardtanh = op("hardtanh", public="_hardtanh")(_hardtanh_forward)
hardtanh_ = _inplace("hardtanh", _hardtanh_forward)


@op("hardtanh_backward", public="_hardtanh_backward")
def _hardtanh_backward(grad_output, input, min_val, max_val):
    return np.where((input > min_val) & (input < max_val), grad_output, np.zeros((), grad_output.dtype))


def _erf(x):
    return special().erf(x)


# ---- softmax and log_softmax --------------------------------------------------------------
def _along(input, dim):
    """input as a row-major array (torch's softmax results are, whatever the input's layout; NumPy
    would keep a transposed one) with at least one dim, and the softmax axis (0-d tensors: their one element)."""
    axis = _axis(dim, input.ndim)
    return (input.reshape(1), 0) if input.ndim == 0 else (np.ascontiguousarray(input), axis)


def _no_complex_clamp(input):
    if input.dtype.kind == "c":   # (relu, hardtanh and relu6 are clamps in torch)
        raise NotImplementedError("clamp is not supported for complex types")


def _no_complex_softmax(name, input, dim):
    if input.dtype.kind == "c":
        kernel = f"{name}_lastdim_kernel_impl" if dim in (-1, input.ndim - 1) else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(input)}'")


def _float_input(name, input):
    if input.dtype.kind not in "fc":
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_name(input)}\'; pass dtype= '
                                  "(e.g. dtype=torch.float32) to compute it in floating point")


@op("_softmax")
def _softmax(input, dim, half_to_float):
    return _softmax_into(input, dim, half_to_float)


def _softmax_into(input, dim, half_to_float, out=None):
    _float_input("softmax", input)
    _no_complex_softmax("softmax", input, dim)
    x, axis = _along(input.astype(np.float32) if half_to_float else input, dim)
    # (out: a C-contiguous buffer of the result's shape and dtype, the input's own where a compiled tape
    # knows nothing else reads it: see _softmax_replay)
    if _direct(x):
        e = np.subtract(x, _row_max(x, axis))
        np.exp(e, out=e)
        e /= e.sum(axis, keepdims=True)
        return e.reshape(input.shape)
    e = np.empty(x.shape, x.dtype) if out is None else out.reshape(x.shape)
    if axis == x.ndim - 1 and x.ndim > 1 and x.shape[-1] and _fused.softmax_rows(_rows(x), _rows(e)):
        return e.reshape(input.shape)

    def rows(a, b):   # (intra-op threads take ranges of rows when the softmax runs along the last dim)
        xr, er = x[a:b], e[a:b]
        np.subtract(xr, _row_max(xr, axis), out=er)
        np.exp(er, out=er)   # in place: one buffer, the result (attention's softmax is the size of its scores)
        er /= er.sum(axis, keepdims=True)
    _last_dim_rows(rows, x, axis, 5)
    return e.reshape(input.shape)


def _rows(a):
    """A C-contiguous array as (rows, last dim)."""
    return a.reshape(-1, a.shape[-1])


def _row_max(x, axis):
    """x.max(axis, keepdims=True), -inf along an empty dim. NumPy reduces a short last dim of a
    C-contiguous array row by row, a loop restarted per row (64 rows of 10 float32: 4 µs; 1000 rows of 2:
    28 µs): there the max is taken down the columns of a column-major copy (1.4 and 2 µs; a max is exact,
    so the same values)."""
    if axis == x.ndim - 1 and 0 < x.shape[-1] < 32 and x.size >= 32 * x.shape[-1] and type(x) is np.ndarray \
            and x.flags.c_contiguous:
        return np.asfortranarray(_rows(x)).max(1).reshape(x.shape[:-1] + (1,))
    return x.max(axis, keepdims=True, initial=-np.inf)


def _last_dim_rows(fn, x, axis, passes):
    """fn(a, b) over ranges of x's leading dim, in parallel where the reduction runs along x's last dim
    (every row then on its own); fn(0, len) at once otherwise."""
    if axis == x.ndim - 1 and x.ndim > 1 and passes * x.size >= _parallel.MIN_WORK:
        _parallel.run(fn, x.shape[0], passes * x.size)
    else:
        fn(0, x.shape[0])


# ndgrad.compile's tapes call these: `out` may be an operand's buffer (out_operand: which), given when the
# tape knows nothing else reads it (compiler._reusable); the same operations, no fresh result buffer
def _softmax_replay(input, dim, half_to_float, out=None):
    return _softmax_into(input, dim, half_to_float, out)


_softmax_replay.out_operand = 0
_softmax.__wrapped__.replay = _softmax_replay


@op("_log_softmax")
def _log_softmax(input, dim, half_to_float):
    _float_input("log_softmax", input)
    _no_complex_softmax("log_softmax", input, dim)
    x, axis = _along(input.astype(np.float32) if half_to_float else input, dim)
    if _direct(x):
        shifted = x - _row_max(x, axis)
        shifted -= np.log(np.exp(shifted).sum(axis, keepdims=True))
        return shifted.reshape(input.shape)
    out = np.empty(x.shape, x.dtype)
    k = _fused.kernels(x, out) if axis == x.ndim - 1 and x.ndim > 1 and x.shape[-1] else None

    def rows(a, b):   # the same operations by blocks of rows, the exponentials in a cache-sized scratch
        for i, j in _row_blocks(x, axis, a, b):
            xr, o = x[i:j], out[i:j]
            if k is not None:   # the row max and shift, and the row sums, compiled (as softmax's)
                x2, o2 = _rows(xr), _rows(o)
                k.softmax_shift(x2, o2, 0, x2.shape[0])
                totals = np.empty((x2.shape[0], 1), x.dtype)
                k.row_totals(np.exp(o2, out=buffer("log_softmax_exp", o2.shape, o2.dtype)), totals[:, 0])
                np.subtract(o2, np.log(totals, out=totals), out=o2)
                continue
            np.subtract(xr, _row_max(xr, axis), out=o)
            o -= np.log(np.exp(o, out=buffer("log_softmax_exp", o.shape, o.dtype)).sum(axis, keepdims=True))
    _last_dim_rows(rows, x, axis, 5)
    return out.reshape(input.shape)


def _row_blocks(x, axis, a, b):
    """Blocks [i, j) of rows a..b of x of about 2**16 elements each where the reduction runs along the
    last dim (a row's passes then stay in cache); (a, b) at once otherwise."""
    if axis != x.ndim - 1 or x.ndim < 2 or x.size <= 1 << 16:
        return ((a, b),)
    step = max(1, (1 << 16) // max(1, math.prod(x.shape[1:])))
    return [(i, min(b, i + step)) for i in range(a, b, step)]


@op("_softmax_backward_data")
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    return _softmax_backward_into(grad_output, output, dim, input_dtype)


def _softmax_backward_into(grad_output, output, dim, input_dtype, out=None):
    y, axis = _along(output, dim)
    g = grad_output.reshape(y.shape)
    if _direct(y) or not (_plain(g) and g.dtype == y.dtype):
        gi = (g - (g * y).sum(axis, keepdims=True)) * y
        return gi.reshape(output.shape).astype(input_dtype.np, copy=False)
    gi = np.empty(y.shape, y.dtype) if out is None else out.reshape(y.shape)
    if axis == y.ndim - 1 and y.size and _fused.softmax_backward_rows(_rows(np.ascontiguousarray(g)), _rows(y),
                                                                      _rows(gi)):
        return gi.reshape(output.shape).astype(input_dtype.np, copy=False)

    def rows(a, b):   # y (g - sum(g y)): the product g y only feeds the sum, so it goes to a scratch buffer
        gr, yr, ir = g[a:b], y[a:b], gi[a:b]
        gy = np.multiply(gr, yr, out=buffer("softmax_gy", yr.shape, yr.dtype))
        np.subtract(gr, gy.sum(axis, keepdims=True), out=ir)
        np.multiply(ir, yr, out=ir)
    _last_dim_rows(rows, y, axis, 6)
    return gi.reshape(output.shape).astype(input_dtype.np, copy=False)


def _softmax_backward_replay(grad_output, output, dim, input_dtype, out=None):
    return _softmax_backward_into(grad_output, output, dim, input_dtype, out)


_softmax_backward_replay.out_operand = 0
_softmax_backward_data.__wrapped__.replay = _softmax_backward_replay


def _plain(*arrays):
    """Whether all are NumPy arrays (scratch buffers are NumPy's: other backends get fresh arrays)."""
    return all(type(a) is np.ndarray for a in arrays)


_SMALL_ROWS = 1 << 12


def _direct(x):
    """Whether the softmax family computes on x with plain NumPy calls: x is not a NumPy array (no scratch
    buffers), or so small that no compiled kernel takes it and row blocks, threads and scratch buffers
    cost more than the few passes (a classifier's logits)."""
    return type(x) is not np.ndarray or x.size <= _SMALL_ROWS and x.size < _fused.MIN_SIZE


@op("_log_softmax_backward_data")
def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    y, axis = _along(output, dim)
    g = grad_output.reshape(y.shape)
    if _direct(y) or not (_plain(g) and g.dtype == y.dtype):
        gi = g - np.exp(y) * g.sum(axis, keepdims=True)
        return gi.reshape(output.shape).astype(input_dtype.np, copy=False)
    gi = np.empty(y.shape, y.dtype)
    k = _fused.kernels(y, g, gi) if axis == y.ndim - 1 and y.ndim > 1 and y.shape[-1] else None

    def rows(a, b):   # the same operations by blocks of rows, exp(y) in a cache-sized scratch
        for i, j in _row_blocks(y, axis, a, b):
            gr = g[i:j]
            e = np.exp(y[i:j], out=buffer("log_softmax_exp", gr.shape, gr.dtype))
            if k is not None:   # the row sums and the rest compiled, in one pass
                k.log_softmax_backward(_rows(np.ascontiguousarray(gr)), _rows(e), _rows(gi[i:j]))
                continue
            e *= gr.sum(axis, keepdims=True)
            np.subtract(gr, e, out=gi[i:j])
    _last_dim_rows(rows, y, axis, 4)
    return gi.reshape(output.shape).astype(input_dtype.np, copy=False)


def _softmax_public(kernel):
    def fn(input, dim, dtype=None):
        if dtype is not None:
            input = input.to(dtype)
        return kernel(input, dim, False)
    return fn


softmax = register("softmax", method=True)(_softmax_public(_softmax))


@op("_safe_softmax", public=False)
def _safe_softmax_op(input, dim, dtype):
    """softmax, with 0 (not nan) where every element along dim is -inf (attention's fully masked rows)."""
    x = input if dtype is None else input.astype(dtype.np)
    y, axis = _along(x, dim)
    e = np.exp(y - _row_max(y, axis))
    with np.errstate(invalid="ignore"):
        e = e / e.sum(axis, keepdims=True)
    e = np.where((y == -np.inf).all(axis, keepdims=True), 0, e)
    return e.reshape(x.shape)


def _safe_softmax(input, dim, dtype=None):
    return _safe_softmax_op(input, dim, dtype)


# torch.ops.aten: a namespace shared by the op modules that need one (created by the first)
_pkg = sys.modules[__package__]
_pkg.aten = getattr(_pkg, "aten", None) or types.SimpleNamespace()
_pkg.aten._safe_softmax = _safe_softmax
log_softmax = register("log_softmax", method=True)(_softmax_public(_log_softmax))


def _zero(a):
    return np.zeros((), a.dtype)


def _float_only(name, a):
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f'"{name}" not implemented for \'{_type_name(a)}\'; use a floating-point input')


# ---- activations --------------------------------------------------------------------------
@op("hardsigmoid", public="_hardsigmoid")
def _hardsigmoid(input):
    _float_only("hardsigmoid", input)
    return np.clip(input / 6 + 0.5, 0, 1).astype(input.dtype, copy=False)


hardsigmoid_ = _inplace("hardsigmoid", _hardsigmoid.spec.forward)


def _hardswish_forward(input):
    _float_only("hardswish", input)
    return input * np.clip(input / 6 + 0.5, 0, 1).astype(input.dtype, copy=False)


_hardswish = op("hardswish", public="_hardswish")(_hardswish_forward)
hardswish_ = _inplace("hardswish", _hardswish_forward)


@op("hardswish_backward", public="_hardswish_backward")
def _hardswish_backward(grad_output, self):
    slope = np.where(self <= -3, 0, np.where(self < 3, self / 3 + 0.5, 1)).astype(grad_output.dtype, copy=False)
    return grad_output * slope


def _mish_forward(input):
    _float_only("mish", input)
    return input * np.tanh(np.logaddexp(0, input))


_mish = op("mish", public="_mish")(_mish_forward)
mish_ = _inplace("mish", _mish_forward)


def _check_lambd(lambd):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {float(lambd)}.")


@op("hardshrink", public="hardshrink", method=True)
def hardshrink(input, lambd=0.5):
    return np.where(np.abs(input) > lambd, input, _zero(input))


@op("hardshrink_backward", public="_hardshrink_backward")
def _hardshrink_backward(grad_out, self, lambd):
    return np.where(np.abs(self) > lambd, grad_out, _zero(grad_out))


@op("softshrink", public="_softshrink")
def _softshrink(input, lambd=0.5):
    _check_lambd(lambd)
    return np.where(input > lambd, input - lambd, np.where(input < -lambd, input + lambd, _zero(input)))


@op("softshrink_backward", public="_softshrink_backward")
def _softshrink_backward(grad_output, self, lambd):
    return np.where(np.abs(self) > lambd, grad_output, _zero(grad_output))


@op("log_sigmoid", public="_log_sigmoid")
def _log_sigmoid(input):
    _float_only("log_sigmoid", input)
    return -np.logaddexp(0, -input)


@op("log_sigmoid_backward", public="_log_sigmoid_backward")
def _log_sigmoid_backward(grad_output, self):
    return grad_output / (1 + np.exp(self))


def _glu_halves(input, dim):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = _axis(dim, input.ndim)
    if input.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {input.shape[axis]}")
    return np.split(input, 2, axis) + [axis]


@op("glu", public="_glu")
def _glu(input, dim=-1):
    a, b, _ = _glu_halves(input, dim)
    return a / (1 + np.exp(-b))


@op("glu_backward", public="_glu_backward")
def _glu_backward(grad_output, self, dim):
    a, b, axis = _glu_halves(self, dim)
    s = 1 / (1 + np.exp(-b))
    return np.concatenate([grad_output * s, grad_output * a * s * (1 - s)], axis)


def _prelu_check(input, weight):
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")


@op("_prelu_kernel", promote="same")
def _prelu_kernel(self, weight):
    return np.where(self > 0, self, self * weight)


@op("_prelu_kernel_backward", promote="same")
def _prelu_kernel_backward(grad_output, self, weight):
    pos = self > 0
    gi = np.where(pos, grad_output, grad_output * weight)
    gw = np.where(pos, _zero(grad_output), grad_output * self)
    lead = gw.ndim - weight.ndim
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(weight.shape) if n == 1 and gw.shape[lead + i] != 1)
    return gi, gw.sum(axes, keepdims=True).reshape(weight.shape)


@op("rrelu_with_noise", public="_rrelu_with_noise")
def _rrelu_with_noise(self, noise, lower, upper, training):
    """rrelu; in training, draws each negative input's slope into `noise` (in place, as torch)."""
    if not training:
        return np.where(self >= 0, self, self * np.asarray((lower + upper) / 2, self.dtype))
    # torch draws a double uniform(lower, upper), bounds rounded to self's dtype (float for a narrower
    # one), for each input <= 0 in order, and only for those
    negative = self <= 0
    lower, upper = (float(np.asarray(b, np.float64 if self.dtype == np.float64 else np.float32)) for b in (lower, upper))
    slope = np.ones(self.shape, self.dtype)
    slope[negative] = _uniform01(_generator(), int(negative.sum()), np.dtype(np.float64)) * (upper - lower) + lower
    noise[...] = slope.reshape(noise.shape)
    return self * noise.reshape(self.shape)


@op("rrelu_with_noise_backward", public="_rrelu_with_noise_backward")
def _rrelu_with_noise_backward(grad_output, self, noise, lower, upper, training, self_is_result):
    if training and upper - lower > 1e-6:
        return grad_output * noise
    slope = np.asarray((lower + upper) / 2, grad_output.dtype)
    return np.where(self > 0, grad_output, grad_output * slope)


def hardsigmoid(input, inplace=False):
    return hardsigmoid_(input) if inplace else _hardsigmoid(input)


def hardswish(input, inplace=False):
    return hardswish_(input) if inplace else _hardswish(input)


def mish(input, inplace=False):
    return mish_(input) if inplace else _mish(input)


def softshrink(input, lambd=0.5):
    return _softshrink(input, lambd)


def logsigmoid(input):
    return _log_sigmoid(input)


def glu(input, dim=-1):
    return _glu(input, dim)


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


@register("prelu")
def prelu(input, weight):
    _prelu_check(input, weight)
    if input.ndim >= 2:
        weight = weight.view([1, weight.numel()] + [1] * (input.ndim - 2))
    elif input.ndim == 0 and weight.ndim:   # the result has the input's shape: a 0-d input stays 0-d
        weight = weight.view(())
    return _prelu_kernel(input, weight)


@register("rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if inplace:
        return rrelu_(input, lower, upper, training)
    return _rrelu_with_noise(input, creation.empty_like(input), lower, upper, training)


_rrelu_with_noise_ = _inplace("rrelu_with_noise_", _rrelu_with_noise.__wrapped__)   # (saves the result)


@register("rrelu_")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _rrelu_with_noise_(input, creation.empty_like(input), lower, upper, training)


# ---- masked softmax ---------------------------------------------------------------------------
@op("_masked_softmax", public=False)
def _masked_softmax_full(input, mask, dim):
    _float_input("masked_softmax", input)
    x = np.where(mask, -np.inf, input).reshape(input.shape or (1,))
    e = np.exp(x - x.max(dim, keepdims=True))   # a fully masked slice gives NaN, as torch's CPU kernel
    return (e / e.sum(dim, keepdims=True)).reshape(input.shape)


@op("_masked_softmax_backward")
def _masked_softmax_backward(grad_output, output, mask, dim):
    y, g = output.reshape(output.shape or (1,)), grad_output.reshape(output.shape or (1,))
    gi = y * (g - (g * y).sum(dim, keepdims=True))
    return np.where(mask, np.zeros((), gi.dtype), gi.reshape(output.shape))


@register()
def _masked_softmax(input, mask, dim=None, mask_type=None):
    """softmax over dim (default: the last) with the entries where mask is True left out.

    mask_type 0: an (L, L) mask for every (batch, head) of a 4-d input; 1: a (B, L) key padding mask;
    2 (or None): a mask of input's shape.
    """
    if mask.dtype != _dtype.bool_:
        raise RuntimeError("Mask should be a boolean tensor")
    shape = tuple(input.shape)
    if tuple(mask.shape) != shape:   # a mask of input's shape is taken whatever mask_type says
        if input.ndim == 4 and mask_type == 0:
            if tuple(mask.shape) != shape[2:]:
                raise RuntimeError("For mask_type == 0 mask shape should be (L, L)")
            mask = mask.expand(shape)
        elif input.ndim == 4 and mask_type == 1:
            if tuple(mask.shape) != (shape[0], shape[3]):
                raise RuntimeError("For mask_type == 1 mask shape should be (B, L)")
            mask = mask.view(shape[0], 1, 1, shape[3]).expand(shape)
        elif input.ndim == 4 and mask_type not in (None, 2):
            raise RuntimeError("Mask Type should be 0 (src_mask) or 1 (src_key_padding_mask), or 2 (default_mask)")
        else:
            raise RuntimeError("For mask_type == 2 mask shape should match input shape")
    return _masked_softmax_full(input, mask, _wrap_dim(-1 if dim is None else dim, input.ndim))
