"""Random ops: the factories (rand, randn, randint, randperm, normal and their _like forms) and the
in-place fills (normal_, uniform_, bernoulli_, random_, exponential_, ...), drawn from a Generator as
torch's CPU kernels draw them (the samplers below), so that the same seed gives torch's numbers.

Samples carry no gradient: ops that take differentiable inputs (normal(mean, std), bernoulli(p),
`x.clone().normal_()`) have derivatives.yaml entries with zero gradients, so their grad_fn is
torch's (NormalBackward3, ...). The in-place fills write through `call_inplace` like any in-place op.
"""
import math

import numpy as np

from .. import _dtype
from . import _registry
from ._registry import OPS, call_inplace, op, register
from .._random import generator as _generator, get_rng_state, rng, set_rng_state  # noqa: F401 (rng: for ops outside)
from .._tensor import Tensor
from ..autograd.record import _unsafe_preserve_version_counter
from ._schema import Parser
from .creation import _FACTORY_KWARGS, _check_device, _check_out, _dtype_arg, _new, _shape

register("get_rng_state")(get_rng_state)
register("set_rng_state")(set_rng_state)


def _float_only(fname, d):
    if d._rank < 2:
        raise NotImplementedError(f"{fname}: draws floating-point numbers; dtype {d} is not supported "
                                  "(use randint for integers)")


# ---- torch's CPU samplers, on arrays ---------------------------------------------------------
# Each draws what torch's CPU kernel draws from the same Generator state: the same words, turned into
# numbers by the same arithmetic (float32 where torch computes in float, the C library's functions
# where torch calls them), one element after another in the output's memory order.
_F64, _F32 = np.dtype(np.float64), np.dtype(np.float32)
_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)
_EXTENDED = np.finfo(np.longdouble).nmant >= 63   # x87 long double: 11 bits beyond a double's


def _libm(np_fn, math_fn, x):
    """math_fn, the C library's double function torch calls, on a float64 array, vectorised: the
    long-double result rounds to the C library's except near the midpoint of two doubles (or without
    a long double wider than a double), where each value is asked of math_fn itself."""
    x = np.asarray(x, np.float64)
    if not _EXTENDED:
        return np.array([math_fn(v) for v in x.ravel().tolist()], np.float64).reshape(x.shape)
    with np.errstate(all="ignore"):
        wide = np_fn(x.astype(np.longdouble))
        out = wide.astype(np.float64)
        gap = np.abs(wide - out) / np.spacing(np.abs(out)).astype(np.longdouble)
        unsure = (gap > 0.45) | (np.abs(np.frexp(out)[0]) == 0.5)   # below a power of 2 the ulp halves
    idx = np.flatnonzero(unsure)
    if idx.size:
        flat = out.reshape(-1)
        flat[idx] = [math_fn(v) for v in x.reshape(-1)[idx].tolist()]
    return out


def _log1p(x):
    """The C library's log1p, element by element: its errors reach 0.8 ulp, too far from the exact value
    for the long-double check of `_libm` to tell where they are."""
    return np.array([math.log1p(v) for v in np.asarray(x, np.float64).ravel().tolist()], np.float64).reshape(np.shape(x))


def _fma64(a, b, c):
    """a*b + c rounded once, in float64 (torch's compiled double kernels fuse these): the product's
    rounding error is recovered exactly (Dekker's product) and added back with the sum's."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b
    split = 134217729.0   # 2**27 + 1
    ta, tb = a * split, b * split
    ah, bh = ta - (ta - a), tb - (tb - b)
    al, bl = a - ah, b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    back = s - p
    return s + (((p - (s - back)) + (c - back)) + err)


def _fma32(a, b, c):
    """float32 a*b + c rounded once (as the FMA that torch's compiled float kernels use): the product is
    exact in float64. a, b, c: float32 arrays or NumPy float32 scalars (or values exact in float32)."""
    out = np.multiply(a, b, dtype=np.float64)
    out += c
    return out.astype(_F32)


def _uniform01(gen, n, np_dtype):
    """torch's uniform [0, 1) draws, exact in float64: 53 bits of a 64-bit word for double, else 24
    bits of a 32-bit word (half and bfloat16 included)."""
    if np_dtype == _F64:
        return (gen._random64(n) & _MASK53).astype(np.float64) * 2.0 ** -53
    return (gen._random32(n) & _MASK24).astype(np.float64) * 2.0 ** -24


def _uniform_values(gen, n, np_dtype, low=0.0, high=1.0):
    """torch's uniform_(low, high) values: x * (to - from) + from, fused, with from/to of the dtype
    and their difference in it, the rest in double (in float for half and bfloat16, from/to and their
    difference too); a value that rounds up to `to` becomes `from`."""
    x = _uniform01(gen, n, np_dtype)
    if np_dtype == _F64:
        span = float(high) - float(low)
        # a power-of-two span makes the product exact: fused or not, one rounding
        values = x * span + float(low) if math.frexp(span)[0] in (0.5, 0.0) else _fma64(x, span, float(low))
    elif np_dtype == _F32:
        lo, hi = np.float32(low), np.float32(high)
        values = (x * np.float64(hi - lo) + np.float64(lo)).astype(_F32)
    else:
        lo, hi = np.float32(low), np.float32(high)
        values = _fma32(x, hi - lo, lo).astype(np_dtype)
    to, start = np.asarray(high, np_dtype), np.asarray(low, np_dtype)
    return np.where(values == to, start, values)


def _double_normals(gen, n):
    """n draws of torch's scalar normal_distribution<double>: Box-Muller on two uniforms, the cosine
    returned and the sine kept by the generator for its next draw."""
    out = []
    if n and gen._normal64 is not None:
        out.append(gen._normal64)
        gen._normal64 = None
    pairs = (n - len(out) + 1) // 2
    u = _uniform01(gen, 2 * pairs, _F64)
    if pairs <= 8:   # a few: in Python floats, quicker than arrays
        for u1, u2 in zip(u[0::2].tolist(), u[1::2].tolist()):
            radius, theta = math.sqrt(-2.0 * math.log1p(-u2)), 2.0 * math.pi * u1
            out += (radius * math.cos(theta), radius * math.sin(theta))
        both = np.array(out)
    else:
        u = u.reshape(pairs, 2)
        radius = np.sqrt(-2.0 * _log1p(-u[:, 1]))
        theta = 2.0 * math.pi * u[:, 0]
        both = np.concatenate([out, np.stack([radius * np.cos(theta), radius * np.sin(theta)], 1).reshape(-1)])
    if len(both) > n:
        gen._normal64 = float(both[n])
    return both[:n]


def _gamma_sample(gen, alpha, single):
    """One Gamma(alpha, 1) draw as torch's CPU sample_gamma: Marsaglia and Tsang's rejection on the
    scalar normal and double uniform draws, alpha < 1 boosted by a power of a uniform; `single`:
    alpha is a float32, whose own arithmetic torch keeps in float."""
    real = np.float32 if single else float
    third = real(np.float32(1) / np.float32(3))   # a float literal, 1.0f / 3.0f
    scale = 1.0
    if alpha < 1:
        if alpha == 0:
            return 0.0
        scale *= math.pow(1 - _uniform01(gen, 1, _F64)[0], float(real(1) / real(alpha)))
        alpha = real(alpha) + real(1)
    d = float(real(alpha) - third)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = float(_double_normals(gen, 1)[0])
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - float(_uniform01(gen, 1, _F64)[0])
        xx = x * x
        if u < 1.0 - float(np.float32(0.0331)) * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _poisson_sample(gen, lam):
    """One Poisson(lam) draw as torch's CPU sample_poisson: Hoermann's transformed rejection (PTRS) from
    lam = 10 on, below it the product of double uniforms until it falls under exp(-lam)."""
    def uniform():
        return float(_uniform01(gen, 1, _F64)[0])
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(k + 1.0):
                return k
    if lam == 0:
        return 0
    count, prod, limit = 0, 1.0, math.exp(-lam)
    while True:
        prod *= uniform()
        if prod <= limit:
            return count
        count += 1


_STIRLING_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                   0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                   0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    """log(k!) minus its Stirling approximation (tabulated up to 9)."""
    if k <= 9:
        return _STIRLING_TAILS[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_sample(gen, count, prob, single):
    """One Binomial(count, prob) draw as torch's CPU sample_binomial: inversion by sums of geometric
    draws below a mean of 10, else Hoermann's BTRS, on the smaller of prob and 1 - prob; `single`:
    count and prob are float32, whose own arithmetic torch keeps in float."""
    real = np.float32 if single else float
    count, prob = real(count), real(prob)

    def uniform():
        return float(_uniform01(gen, 1, _F64)[0])

    def inversion(p):
        logprob, total, draws = math.log1p(-float(p)), 0.0, real(0)
        while True:
            total += math.ceil(math.log(uniform()) / logprob)
            draws += real(1)
            if total > count:
                return draws - real(1)

    def btrs(p):
        stddev = float(real(math.sqrt(count * p * (real(1) - p))))
        b = 1.15 + 2.53 * stddev
        a = -0.0873 + 0.0248 * b + 0.01 * float(p)
        c = float(count * p) + 0.5
        v_r = 0.92 - 4.2 / b
        r = float(p / (real(1) - p))
        alpha = (2.83 + 5.1 / b) * stddev
        m = float(real(math.floor((count + real(1)) * p)))
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = real(math.floor((2 * a / us + b) * u + c))
            if k < 0 or k > count:
                continue
            if us >= 0.07 and v <= v_r:
                return k
            v = math.log(v * alpha / (a / (us * us) + b))
            bound = ((m + 0.5) * math.log((m + 1) / (r * (float(count) - m + 1)))
                     + float(count + real(1)) * math.log((float(count) - m + 1) / float(count - k + real(1)))
                     + (float(k) + 0.5) * math.log(r * float(count - k + real(1)) / float(k + real(1)))
                     + _stirling_tail(m) + _stirling_tail(float(count) - m)
                     - _stirling_tail(float(k)) - _stirling_tail(float(count - k)))
            if v <= bound:
                return k

    if count <= 0 or prob <= 0:
        return 0.0
    if prob >= 1:
        return float(count)
    if prob <= 0.5:
        return float(btrs(prob) if count * prob >= 10 else inversion(prob))
    if prob > 0.5:
        q = real(1) - prob
        return float(count - (btrs(q) if count * q >= 10 else inversion(q)))
    return math.nan


def _affine64(x, scale, shift):
    """x * scale + shift fused, as torch's double kernels compute it (exact when scale is a power of two
    and shift 0, as for randn)."""
    if shift == 0 and math.frexp(scale)[0] in (0.5, 0.0):
        return x * scale
    return _fma64(x, scale, shift)


def _avx_log(x):
    """log of a float32 array as torch's AVX kernels compute it (Cephes' polynomial, fused as compiled)."""
    bits = np.maximum(x, np.float32(1.17549435e-38)).view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + np.float32(1)
    x = ((bits & ~0x7F800000) | np.int32(0x3F000000)).view(_F32)   # mantissa in [0.5, 1)
    small = x < np.float32(0.707106781186547524)
    x = (x - np.float32(1)) + np.where(small, x, np.float32(0))
    e = e - small.astype(_F32)
    z = x * x
    y = np.full_like(x, np.float32(7.0376836292e-2))
    for c in (-1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
              2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1):
        y = _fma32(y, x, np.float32(c))
    y = _fma32(y * x, z, e * np.float32(-2.12194440e-4))
    y = y - z * np.float32(0.5)
    return _fma32(e, np.float32(0.693359375), x + y)


def _avx_sincos(x):
    """(sin, cos) of a non-negative float32 array as torch's AVX kernels compute them."""
    j = ((x * np.float32(1.27323954473516)).astype(np.int32) + 1) & ~1   # octant, made even
    y = j.astype(_F32)
    for c in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = _fma32(y, np.float32(c), x)
    z = x * x
    cos = _fma32(_fma32(np.float32(2.443315711809948e-5), z, np.float32(-1.388731625493765e-3)), z,
                 np.float32(4.166664568298827e-2)) * z
    cos = _fma32(cos, z, -np.float32(0.5) * z) + np.float32(1)
    sin = _fma32(_fma32(np.float32(-1.9515295891e-4), z, np.float32(8.3321608736e-3)), z,
                 np.float32(-1.6666654611e-1)) * z
    sin = _fma32(sin, x, x)
    swap = (j & 2) != 0
    sin, cos = np.where(swap, cos, sin), np.where(swap, sin, cos)
    return np.where((j & 4) != 0, -sin, sin), np.where(((j - 2) & 4) == 0, -cos, cos)


def _box_muller_16(u, np_dtype, mean, std):
    """torch's normal_fill_16 on rows of 16 uniforms: (u[j], u[j + 8]) -> the pair of normals at j and j + 8."""
    u = u.reshape(-1, 16)
    if np_dtype == _F32:   # the AVX kernel
        radius = np.sqrt(np.float32(-2) * _avx_log(np.float32(1) - u[:, :8]))
        sin, cos = _avx_sincos(np.float32(2 * math.pi) * u[:, 8:])
        mean, std = np.float32(mean), np.float32(std)
        return np.concatenate([_fma32(radius * cos, std, mean), _fma32(radius * sin, std, mean)], 1)
    if np_dtype == _F64:
        radius = np.sqrt(-2.0 * _libm(np.log, math.log, 1.0 - u[:, :8]))
        theta = 2.0 * math.pi * u[:, 8:]
        return np.concatenate([_affine64(radius * np.cos(theta), std, mean), _affine64(radius * np.sin(theta), std, mean)], 1)
    raise AssertionError(f"no 16-wide normal kernel for {np_dtype}")


def _normal_values(gen, n, np_dtype, mean=0.0, std=1.0, contiguous=True):
    """torch's normal_(mean, std) values for n elements of np_dtype: 16 or more contiguous ones are
    filled with uniforms turned into normals 16 at a time (the last 16 drawn and turned again when n is
    not a multiple of 16); otherwise one scalar double normal per element."""
    if n < 16 or not contiguous:
        return _affine64(_double_normals(gen, n), std, mean).astype(np_dtype)
    if np_dtype not in (_F32, _F64):
        # half and bfloat16: float32 normals for the whole blocks of 16 covering n, the last block
        # giving the last 16 elements, then rounded
        whole = -(-n // 16) * 16
        full = _normal_values(gen, whole, _F32, mean, std)
        return np.concatenate([full[:n - 16], full[whole - 16:]]).astype(np_dtype)
    u = _uniform_values(gen, n, np_dtype)
    whole = n - n % 16
    out = np.empty(n, np_dtype)
    out[:whole] = _box_muller_16(u[:whole], np_dtype, mean, std).reshape(-1)
    if n % 16:
        out[n - 16:] = _box_muller_16(_uniform_values(gen, 16, np_dtype), np_dtype, mean, std).reshape(-1)
    return out


def _fill_order(array):
    """(shape, axes): the order torch's kernels write `array`'s elements in (memory order: the axes by
    decreasing stride), as the shape to draw a flat sample into and the axes that put it back."""
    if array.flags.c_contiguous or array.ndim < 2:
        return array.shape, None
    order = sorted(range(array.ndim), key=lambda d: -abs(array.strides[d]))
    return tuple(array.shape[d] for d in order), tuple(np.argsort(order))


def _draw_like(array, draw):
    """draw(n) -> n values, laid into an array of `array`'s shape in torch's order of its elements."""
    shape, axes = _fill_order(array)
    values = np.asarray(draw(int(np.prod(shape, dtype=np.int64)))).reshape(shape)
    return values if axes is None else values.transpose(axes)


def _real_view(np_dtype):
    return np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)


def _uniform(gen, shape, np_dtype, low=0.0, high=1.0):
    """torch's uniform samples of a new (contiguous) array; complex: real and imaginary parts in turn."""
    g = _generator(gen)
    n = int(np.prod(shape, dtype=np.int64))
    if np_dtype.kind == "c":
        return _uniform_values(g, 2 * n, _real_view(np_dtype), low, high).view(np_dtype).reshape(shape)
    return _uniform_values(g, n, np_dtype, low, high).reshape(shape)


def _standard_normal(gen, shape, np_dtype, mean=0.0, std=1.0, contiguous=True):
    """torch's normal samples of a new array; complex: parts of variance std**2 / 2, in turn."""
    g = _generator(gen)
    n = int(np.prod(shape, dtype=np.int64))
    if np_dtype.kind == "c":
        return _normal_values(g, 2 * n, _real_view(np_dtype), mean, std / math.sqrt(2),
                              contiguous).view(np_dtype).reshape(shape)
    return _normal_values(g, n, np_dtype, mean, std, contiguous).reshape(shape)


# ---- factories ------------------------------------------------------------------------------
# Most factories have two overloads in torch: with a generator (a required keyword) and without.
def _generator_overloads(head, rest=""):
    return (f"{head}, *, Generator? generator, Tensor? out=None, {_FACTORY_KWARGS}{rest})",
            f"{head}, *, Tensor? out=None, {_FACTORY_KWARGS}{rest})")


def _without_generator(which, values, n):
    """(generator, the values after it) of overload `which` of _generator_overloads, n positional values."""
    return (values[n], values[n + 1:]) if which % 2 == 0 else (None, values[n:])


def _filled(shape, d, requires_grad, fill, draw):
    """A new tensor as torch's random factories make one: allocated (the `empty` op), then filled in
    place by fill(tensor) in the factory's kernel, below autograd (its version stays 0) and below the
    dispatch modes (which see no fill). A profile shows both ops nested in the factory's range, as
    torch's does. While no profiler (or vmap) watches the ops, the same values come from draw() into a
    new array, without the two trips through the op glue (which would double a small factory's cost)."""
    if _registry.profile_op is None:
        return _new(draw(), requires_grad)
    t = OPS["empty"](shape, dtype=d)
    hook, _registry.dispatch_hook = _registry.dispatch_hook, None
    try:
        with _unsafe_preserve_version_counter(t):
            fill(t)
    finally:
        _registry.dispatch_hook = hook
    return t.requires_grad_() if requires_grad else t


_rand_args = Parser(*_generator_overloads("rand(SymInt[] size"))
_randn_args = Parser(*_generator_overloads("randn(SymInt[] size"))


@register(aten=("rand", "default"))
@_rand_args.signature
def rand(*args, **kwargs):
    """Samples of the uniform distribution on [0, 1).

    Args:
        size: the shape, as ints or one sequence.
        generator: the generator to draw from (default: the global one, seeded by
            `torch.manual_seed`).
        dtype: a floating dtype (default: the default float dtype).
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: the samples: torch's, after the same seed.

    Example::

        >>> x = torch.rand(2, 3)
        >>> x.shape, bool(((0 <= x) & (x < 1)).all())
        (torch.Size([2, 3]), True)
    """
    which, values = _rand_args.parse(args, kwargs)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, 1)
    _check_out("rand", out)
    _check_device("rand", device)
    d = _dtype_arg("rand", dtype)
    _float_only("rand", d)
    shape = _shape(values[0])
    return _filled(shape, d, requires_grad, lambda t: uniform_(t, generator=generator),
                   lambda: _uniform(generator, shape, d.np))


@register(aten=("randn", "default"))
@_randn_args.signature
def randn(*args, **kwargs):
    """Samples of the standard normal distribution (mean 0, variance 1).

    Args:
        size: the shape, as ints or one sequence.
        generator: the generator to draw from (default: the global one, seeded by
            `torch.manual_seed`).
        dtype: a floating dtype (default: the default float dtype).
        requires_grad: whether autograd records operations on the result.

    Returns:
        Tensor: the samples: torch's, after the same seed.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> a = torch.randn(3)
        >>> _ = torch.manual_seed(0)
        >>> torch.equal(a, torch.randn(3))
        True
    """
    which, values = _randn_args.parse(args, kwargs)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, 1)
    _check_out("randn", out)
    _check_device("randn", device)
    d = _dtype_arg("randn", dtype)
    _float_only("randn", d)
    shape = _shape(values[0])
    return _filled(shape, d, requires_grad, lambda t: normal_(t, generator=generator),
                   lambda: _standard_normal(generator, shape, d.np))


def _int_values(gen, n, base, span, np_dtype):
    """torch's uniform_int_from_to: word % span + base, the word 64 bits wide from a span of 2**28 on."""
    words = gen._random64(n) if span >= 1 << 28 else gen._random32(n)
    if span >= 1 << 64:   # random_(int64 min, None): every int64
        return words.view(np.int64).astype(np_dtype)
    values = (words % np.uint64(span) + np.uint64(base % (1 << 64))).view(np.int64)
    return values.astype(np_dtype)


def _float_bounds(low, high, np_dtype):
    """As torch, for a floating dtype: `from` moved up and `to - 1` down to integers the dtype holds
    (by a step of its precision at their magnitude, where rounding went the wrong way)."""
    digits = _digits(np_dtype)
    if digits is None:
        return low, high
    up = int(np_dtype.type(low + 1))
    if up < low:
        low = up + (1 << (abs(low + 1).bit_length() - 1 - digits + 1))
    down = int(np_dtype.type(high - 1))
    if down >= high:
        high = down - (1 << (abs(high - 1).bit_length() - 1 - digits + 1))
    return low, high


def _integers(gen, low, high, shape, np_dtype):
    n = int(np.prod(shape, dtype=np.int64))
    return _from_to(_generator(gen), n, low, high, np_dtype).reshape(shape)


_randint_args = Parser(*_generator_overloads("randint(SymInt high, SymInt[] size"),
                       *_generator_overloads("randint(SymInt low, SymInt high, SymInt[] size"))


@register()
@_randint_args.signature
def randint(*args, **kwargs):
    """randint(low=0, high, size, *, generator=None, dtype=torch.int64, requires_grad=False) -> Tensor

    A tensor of `size` filled with random integers drawn uniformly from [`low`, `high`).

    Args:
        low (int): the smallest value. Default: ``0``.
        high (int): one more than the largest value.
        size (tuple of int): the shape.
        generator (torch.Generator, optional): the generator to draw from.
        dtype (torch.dtype): the dtype of the result. Default: ``torch.int64``.

    Returns:
        Tensor: the random integers.

    Example::

        >>> x = torch.randint(3, 10, (2, 4))
        >>> x.shape, x.dtype
        (torch.Size([2, 4]), torch.int64)
        >>> bool(((x >= 3) & (x < 10)).all())
        True
    """
    which, values = _randint_args.parse(args, kwargs)
    n = 2 if which < 2 else 3   # (high, size) or (low, high, size)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, n)
    low, high, size = (0, *values[:2]) if n == 2 else values[:3]
    _check_out("randint", out)
    _check_device("randint", device)
    d = _dtype_arg("randint", dtype, _dtype.int64)
    shape = _shape(size, "randint")
    return _filled(shape, d, requires_grad, lambda t: random_(t, low, high, generator=generator),
                   lambda: _integers(generator, low, high, shape, d.np))


_randperm_args = Parser(*_generator_overloads("randperm(SymInt n"))


@register(aten=("randperm", "default"))
@_randperm_args.signature
def randperm(*args, **kwargs):
    """A random permutation of the integers 0, ..., `n` - 1.

    Args:
        n (int): the number of integers.
        generator (torch.Generator, optional): the generator to draw from.
        dtype (torch.dtype): the dtype of the result. Default: ``torch.int64``.

    Returns:
        Tensor: the permutation.

    Example::

        >>> p = torch.randperm(5)
        >>> p.sort().values
        tensor([0, 1, 2, 3, 4])
    """
    which, values = _randperm_args.parse(args, kwargs)
    generator, (out, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, 1)
    n = values[0]
    _check_out("randperm", out)
    _check_device("randperm", device)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return _new(_permutation(generator, n).astype(_dtype_arg("randperm", dtype, _dtype.int64).np), requires_grad)


def _permutation(gen, n):
    """torch's randperm: Fisher-Yates, swapping r[i] with r[i + word % (n - i)] for i = 0 .. n - 2
    (64-bit words once n is too large for 32-bit ones to be near uniform). For large n the swaps run as
    many at a time as commute: a run of steps whose positions no other step of the run touches."""
    g = _generator(gen)
    r = np.arange(n, dtype=np.int64)
    if n < 2:
        return r
    steps = n - 1
    words = g._random32(steps) if n < (1 << 32) // 20 else g._random64(steps)
    i = np.arange(steps, dtype=np.int64)
    j = i + (words % (n - i).astype(np.uint64)).astype(np.int64)
    first = np.full(n, steps, np.int64)   # per position, the first step of the run that swaps into it
    s = 0
    while s < steps:
        if steps - s <= 64 or n <= 1 << 15:   # the last few, or a small n (faster so): one at a time
            rest = r.tolist()
            for a, b in zip(range(s, steps), j[s:].tolist()):
                rest[a], rest[b] = rest[b], rest[a]
            return np.array(rest, np.int64)
        e = min(steps, s + 2 * int(math.sqrt(n - s)) + 16)
        a, b = np.arange(s, e), j[s:e]
        # step k clashes with an earlier step of the run that swaps into the same position, or into k
        np.minimum.at(first, b, a)
        clash = np.flatnonzero((first[b] < a) | (first[a] < a))
        first[b] = steps
        e = s + max(int(clash[0]), 1) if clash.size else e
        a, b = a[:e - s], b[:e - s]
        r[a], r[b] = r[b], r[a].copy()
        s = e
    return r


def _like_dtype(fname, input, dtype, device):
    _check_device(fname, device)
    return _dtype_arg(fname, dtype, input.dtype)


@register(aten=("rand_like", "default"))
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False, memory_format=None):
    d = _like_dtype("rand_like", input, dtype, device)
    _float_only("rand_like", d)
    return _new(_uniform(generator, input._array.shape, d.np), requires_grad)


@register(aten=("randn_like", "default"))
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
               requires_grad=False, memory_format=None):
    d = _like_dtype("randn_like", input, dtype, device)
    _float_only("randn_like", d)
    return _new(_standard_normal(generator, input._array.shape, d.np), requires_grad)


_randint_like_args = Parser(*(f"randint_like(Tensor input, {bounds}, *, {generator}MemoryFormat? memory_format=None, "
                              f"{_FACTORY_KWARGS})" for bounds in ("SymInt low, SymInt high", "Tensor high", "SymInt high")
                              for generator in ("Generator? generator, ", "")))


@register()
@_randint_like_args.signature
def randint_like(*args, **kwargs):
    """randint_like(input, low=0, high, *, dtype=None, requires_grad=False) -> Tensor

    A tensor of `input`'s shape (and, unless `dtype` is given, dtype) filled with random integers drawn
    uniformly from [`low`, `high`).

    Args:
        input (Tensor): the tensor whose shape and dtype the result takes.
        low (int): the smallest value. Default: ``0``.
        high (int): one more than the largest value.
        dtype (torch.dtype, optional): the dtype of the result.

    Returns:
        Tensor: the random integers.

    Example::

        >>> x = torch.randint_like(torch.zeros(2, 3), 5)
        >>> x.shape, x.dtype
        (torch.Size([2, 3]), torch.float32)
        >>> bool(((x >= 0) & (x < 5)).all())
        True
    """
    which, values = _randint_like_args.parse(args, kwargs)
    n = 3 if which < 2 else 2   # (input, low, high) or (input, high)
    generator, (_, dtype, layout, device, pin_memory, requires_grad) = _without_generator(which, values, n)
    input, low, high = values[:3] if n == 3 else (values[0], 0, values[1])
    if which in (2, 3):   # a 0-dim tensor high
        high = int(high.item())
    d = _like_dtype("randint_like", input, dtype, device)
    return _new(_integers(generator, low, high, input._array.shape, d.np), requires_grad)


# ---- normal: four forms, as in torch --------------------------------------------------------
def _check_std(std):
    if isinstance(std, Tensor):
        if np.any(std._array < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _normal_sample(mean, std, generator, out_dtype, shape=None):
    """As torch: with numbers, normal_(mean, std) of a new tensor; with a tensor std, normal_(0, 1)
    times std plus mean; with a tensor mean and a number std, normal_(0, std) plus mean."""
    if shape is not None:
        return _standard_normal(generator, shape, out_dtype, mean, std)
    shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
    if isinstance(std, np.ndarray):
        return (_standard_normal(generator, shape, out_dtype) * std + mean).astype(out_dtype, copy=False)
    return (_standard_normal(generator, shape, out_dtype, 0.0, std) + mean).astype(out_dtype, copy=False)


@op("normal.Tensor_float", public=False)
def _normal_tensor_float(mean, std=1.0, generator=None):
    return _normal_sample(mean, std, generator, mean.dtype)


@op("normal.float_Tensor", public=False)
def _normal_float_tensor(mean, std, generator=None):
    return _normal_sample(mean, std, generator, std.dtype)


@op("normal.Tensor_Tensor", public=False)
def _normal_tensor_tensor(mean, std, generator=None):
    return _normal_sample(mean, std, generator, mean.dtype)


_normal_args = Parser("normal(Tensor mean, Tensor std, *, Generator? generator=None, Tensor? out=None)",
                      "normal(Tensor mean, float std=1, *, Generator? generator=None, Tensor? out=None)",
                      "normal(float mean, Tensor std, *, Generator? generator=None, Tensor? out=None)",
                      "normal(float mean, float std, SymInt[] size, *, Generator? generator=None, Tensor? out=None, "
                      f"{_FACTORY_KWARGS})")
_NORMAL = (_normal_tensor_tensor, _normal_tensor_float, _normal_float_tensor)


@register()
@_normal_args.signature
def normal(*args, **kwargs):
    """normal(mean, std, *, generator=None, out=None) -> Tensor
    normal(mean, std, size, *, generator=None, out=None) -> Tensor

    Samples from normal distributions N(`mean`, `std`²): one per element of the broadcast `mean` and
    `std` tensors (either may be a Python number when the other is a tensor), or, with two numbers
    and a `size`, a tensor of that shape.

    After the same seed the samples are torch's.

    Args:
        mean (Tensor or float): the means.
        std (Tensor or float): the standard deviations (non-negative).
        size (tuple of int, optional): the shape, when `mean` and `std` are numbers.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the samples.

    Example::

        >>> torch.normal(0.0, 1.0, (2, 3)).shape
        torch.Size([2, 3])
        >>> torch.normal(torch.tensor([1.0, 2.0]), 0.0)
        tensor([1., 2.])
    """
    which, (mean, std, *rest) = _normal_args.parse(args, kwargs)
    for t in (mean, std):
        if isinstance(t, Tensor) and t.dtype._rank < 2:
            raise NotImplementedError(f"normal: mean and std must be floating-point tensors, got {t.dtype}")
    _check_std(std)
    if which < 3:
        generator, out = rest
        _check_out("normal", out)
        return _NORMAL[which](mean, float(std) if which == 1 else std, generator)
    size, generator, out, dtype, layout, device, pin_memory, requires_grad = rest
    _check_out("normal", out)
    _check_device("normal", device)
    d = _dtype_arg("normal", dtype)
    _float_only("normal", d)
    shape = _shape(size, "normal")
    return _filled(shape, d, requires_grad, lambda t: normal_(t, mean, std, generator=generator),
                   lambda: _normal_sample(mean, std, generator, d.np, shape))


# ---- in-place fills: x.normal_(), x.uniform_(), ... -------------------------------------------
# Each fill is an op whose forward draws a fresh array of self's shape and dtype; `call_inplace`
# writes it into self and records the entry's (zero-gradient) node when self has history.
def _fill_op(entry, draw):
    """The op spec for `entry`, drawing with draw(generator, self_array, *params) -> values in torch's
    order of self's elements (see `_draw_like`)."""
    def forward(self, *params):
        gen, np_dtype = params[-1]
        if np_dtype != self.dtype:   # bfloat16: the glue hands forwards float32 copies
            self = self.astype(np_dtype)
        if self.dtype.kind == "c":   # as torch, drawn as its real view: each real part, then its imaginary part
            parts = np.lib.stride_tricks.as_strided(self.real, self.shape + (2,), self.strides + (self.itemsize // 2,))
            values = np.asarray(draw(_generator(gen), parts, *params[:-1]))
            return (values[..., 0] + 1j * values[..., 1]).astype(self.dtype)
        return np.asarray(draw(_generator(gen), self, *params[:-1])).astype(self.dtype, copy=False)
    forward.__name__ = "_" + entry.replace(".", "_")
    return op(entry, public=False)(forward).spec


def _fill(name, spec, self, params, generator, check=None, floating=True, complex_parts=False):
    if floating and self.dtype._rank != 2 and not (complex_parts and self.dtype.is_complex):
        raise NotImplementedError(f"{name}: fills floating-point tensors only, got {self.dtype}")
    if check is not None:
        check(*params)
    # the generator travels with self's dtype, which the draws follow (see forward above)
    return call_inplace(spec, (self,) + tuple(params) + ((generator, self._array.dtype),))


def _check_lambda(lambd):
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")


def _check_probability(p):
    if type(p) is float or type(p) is int:
        if not 0 <= p <= 1:   # (nan too)
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        return
    values = p._array if isinstance(p, Tensor) else p
    if np.any((values < 0) | (values > 1)):
        raise RuntimeError("bernoulli: probabilities must be in [0, 1]")


def _bernoulli_tensor(g, array, p):
    """torch's bernoulli_(p tensor): a uniform per element (double for a double p, else float), below p."""
    p = np.broadcast_to(np.asarray(p), array.shape)
    wide = _F64 if p.dtype == _F64 else _F32
    shape, axes = _fill_order(array)
    p_in_order = p if axes is None else p.transpose(np.argsort(axes))
    u = _uniform01(g, array.size, wide).reshape(shape)
    hits = u < p_in_order.astype(np.float64 if wide == _F64 else _F32)
    return hits if axes is None else hits.transpose(axes)


def _bernoulli_float(g, array, p):
    """torch's bernoulli_(float p) on CPU: a double uniform per element, below p. (On Intel CPUs torch
    built with MKL draws these with MKL's own generator instead; that stream is not reproduced.)"""
    return _draw_like(array, lambda n: _uniform01(g, n, _F64) < p)


def _exponentials(g, n, lambd):
    return (-1.0 / lambd) * _log1p(-_uniform01(g, n, _F64))


_NORMAL_ = _fill_op("normal_", lambda g, a, mean, std: _draw_like(
    a, lambda n: _normal_values(g, n, a.dtype, mean, std, a.flags.c_contiguous)))
_UNIFORM_ = _fill_op("uniform_", lambda g, a, low, high: _draw_like(a, lambda n: _uniform_values(g, n, a.dtype, low, high)))
_EXPONENTIAL_ = _fill_op("exponential_", lambda g, a, lambd: _draw_like(a, lambda n: _exponentials(g, n, lambd)))
_GEOMETRIC_ = _fill_op("geometric_", lambda g, a, p: _draw_like(a, lambda n: np.ceil(
    _libm(np.log, math.log, _uniform01(g, n, _F64)) / math.log1p(-p))))
_CAUCHY_ = _fill_op("cauchy_", lambda g, a, median, sigma: _draw_like(a, lambda n: _fma64(sigma, _libm(
    np.tan, math.tan, math.pi * (_uniform01(g, n, _F64) - 0.5)), median)))
_LOG_NORMAL_ = _fill_op("log_normal_", lambda g, a, mean, std: _draw_like(a, lambda n: _libm(
    np.exp, math.exp, _affine64(_double_normals(g, n), std, mean))))
_BERNOULLI_TENSOR_ = _fill_op("bernoulli_.Tensor", _bernoulli_tensor)
_BERNOULLI_FLOAT_ = _fill_op("bernoulli_.float", _bernoulli_float)
_RANDOM_FROM_ = _fill_op("random_.from", lambda g, a, low, high: _draw_like(a, lambda n: _from_to(g, n, low, high, a.dtype)))
_RANDOM_TO_ = _fill_op("random_.to", lambda g, a, high: _draw_like(a, lambda n: _from_to(g, n, 0, high, a.dtype)))
_RANDOM_ = _fill_op("random_", lambda g, a: _draw_like(a, lambda n: _random_values(g, n, a.dtype)))


def _from_to(g, n, low, high, np_dtype):
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    low, high = _float_bounds(low, high, np_dtype)
    return _int_values(g, n, low, high - low, np_dtype)


def _digits(np_dtype):
    """The bits of a floating dtype's significand (None for an integer or bool dtype)."""
    if np_dtype.kind in "iub":
        return None
    return {8: 53, 4: 24}.get(np_dtype.itemsize) or (11 if np_dtype == np.float16 else 8)


def _random_values(g, n, np_dtype):
    """torch's random_(): a word (64-bit for int64 and double) modulo the count of the dtype's integers
    from 0 (2**digits + 1 for a float), or its lowest bit for bool."""
    words = g._random64(n) if np_dtype in (np.int64, _F64) else g._random32(n)
    if np_dtype == np.bool_:
        return (words & np.uint64(1)).astype(bool)
    digits = _digits(np_dtype)
    span = (1 << digits) + 1 if digits else int(np.iinfo(np_dtype).max) + 1
    return (words % np.uint64(span)).astype(np_dtype)


def _full_range(dtype):
    """random_(from) draws from [from, this): up to the largest integer the dtype holds (exactly)."""
    if dtype == np.bool_:
        return 2
    digits = _digits(dtype)
    return (1 << digits) + 1 if digits else int(np.iinfo(dtype).max) + 1


@register(method=True)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    if self.dtype.is_complex:   # as torch: each part of variance std**2 / 2 (checked before it is scaled)
        _check_std(std)
        std = std / math.sqrt(2)
    return _fill("normal_", _NORMAL_, self, (mean, std), generator, lambda m, s: _check_std(s), complex_parts=True)


@register(method=True)
def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    def check(low, high):
        if low > high:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}")
    return _fill("uniform_", _UNIFORM_, self, (from_, to), generator, check, complex_parts=True)


@register(method=True)
def exponential_(self, lambd=1.0, *, generator=None):
    return _fill("exponential_", _EXPONENTIAL_, self, (lambd,), generator, _check_lambda)


@register(method=True)
def geometric_(self, p, *, generator=None):
    def check(p):
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill("geometric_", _GEOMETRIC_, self, (p,), generator, check)


@register(method=True)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    return _fill("cauchy_", _CAUCHY_, self, (median, sigma), generator)


@register(method=True)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    def check(mean, std):
        if not std > 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill("log_normal_", _LOG_NORMAL_, self, (mean, std), generator, check)


_bernoulli__args = Parser("bernoulli_(Tensor self, Tensor p, *, Generator? generator=None)",
                          "bernoulli_(Tensor self, float p=0.5, *, Generator? generator=None)").method()


@register(method=True)
def bernoulli_(self, *args, **kwargs):
    which, (p, generator) = _bernoulli__args.parse(args, kwargs)
    spec = (_BERNOULLI_TENSOR_, _BERNOULLI_FLOAT_)[which]
    return _fill("bernoulli_", spec, self, (p,), generator, _check_probability, floating=False)


_random__args = Parser("random_(Tensor self, *, Generator? generator=None)",
                       "random_(Tensor self, int from, int? to, *, Generator? generator=None)",
                       "random_(Tensor self, int to, *, Generator? generator=None)").method()


@register(method=True)
def random_(self, *args, **kwargs):
    """random_(input, from=0, to=None, *, generator=None) -> Tensor

    Fills `input` in place with random integers drawn uniformly from [`from`, `to`); without `to`,
    up to the largest integer that `input`'s dtype holds exactly (its mantissa's range for a float).

    Args:
        input (Tensor): the tensor to fill.
        from (int): the smallest value. Default: ``0``.
        to (int, optional): one more than the largest value.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: `input`.

    Example::

        >>> x = torch.empty(4).random_(2, 5)
        >>> bool(((x >= 2) & (x < 5)).all())
        True
    """
    which, (*bounds, generator) = _random__args.parse(args, kwargs)
    if which == 1 and bounds[1] is None:   # random_(from, None): up to the end of random_()'s range
        bounds[1] = _full_range(self._array.dtype)
    return _fill("random_", (_RANDOM_, _RANDOM_FROM_, _RANDOM_TO_)[which], self, tuple(bounds), generator,
                 floating=False)


# ---- sampling from tensors of parameters ------------------------------------------------------
@op("bernoulli", public=False)
def _bernoulli(input, generator=None):
    return _bernoulli_tensor(_generator(generator), np.empty(input.shape), input).astype(input.dtype)


@op("bernoulli.p", public=False)
def _bernoulli_p(input, p, generator=None):
    return _bernoulli_float(_generator(generator), np.empty(input.shape), p).astype(input.dtype)


_bernoulli_args = Parser("bernoulli(Tensor input, *, Generator? generator=None, Tensor? out=None)",
                         "bernoulli(Tensor input, float p, *, Generator? generator=None)")


@register(method=True)
@_bernoulli_args.signature
def bernoulli(*args, **kwargs):
    """bernoulli(input, *, generator=None) -> Tensor
    bernoulli(input, p, *, generator=None) -> Tensor

    Draws 0 or 1 for each element: 1 with the probability held by that element of `input`, or with
    the probability `p` for every element of a tensor of `input`'s shape.

    Args:
        input (Tensor): the probabilities (each in [0, 1]), or, with `p`, the tensor whose shape and dtype the result takes.
        p (float, optional): one probability for every element.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the 0/1 samples, in `input`'s dtype.

    Example::

        >>> torch.bernoulli(torch.tensor([0.0, 1.0, 1.0, 0.0]))
        tensor([0., 1., 1., 0.])
        >>> torch.bernoulli(torch.zeros(3), 1.0)
        tensor([1., 1., 1.])
    """
    which, values = _bernoulli_args.parse(args, kwargs)
    if which == 0:
        input, generator, out = values
        _check_out("bernoulli", out)
        _check_probability(input)
        return _bernoulli(input, generator)
    input, p, generator = values
    _check_probability(p)
    return _bernoulli_p(input, p, generator)


@op("poisson", public=False)
def _poisson(input, generator=None):
    gen = _generator(generator)   # element by element: each takes a varying number of draws
    return np.array([_poisson_sample(gen, lam) for lam in input.astype(np.float64).ravel().tolist()],
                    np.float64).reshape(input.shape).astype(input.dtype)


@register()
def poisson(input, generator=None):
    """Draws one sample from a Poisson distribution for each element of `input`, that element being its rate.
    (torch's sampler: the same seed gives torch's numbers.)

    Args:
        input (Tensor): the rates (non-negative).
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the samples, in `input`'s dtype.

    Example::

        >>> torch.poisson(torch.zeros(3))
        tensor([0., 0., 0.])
        >>> torch.poisson(torch.full((2, 2), 4.0)).shape
        torch.Size([2, 2])
    """
    if np.any(input._array < 0):
        raise RuntimeError("poisson: rates must be non-negative")
    return _poisson(input, generator)


@register(method=True)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Draws `num_samples` category indices per row of `input`, whose elements are the (not necessarily
    normalised) probabilities of the categories.

    Without replacement, a category is drawn at most once per row, so `num_samples` may not exceed the
    number of categories with a non-zero probability.

    Args:
        input (Tensor): the probabilities, 1-D (one distribution) or 2-D (one per row).
        num_samples (int): how many indices to draw per row.
        replacement (bool): draw with replacement. Default: ``False``.
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        LongTensor: the indices, of shape (`num_samples`,) or (rows, `num_samples`).

    Example::

        >>> torch.multinomial(torch.tensor([0.0, 0.0, 1.0]), 2, replacement=True)
        tensor([2, 2])
        >>> torch.multinomial(torch.tensor([[1.0, 0.0], [0.0, 1.0]]), 1)
        tensor([[0],
                [1]])
    """
    _check_out("multinomial", out)
    p = input._array
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.title}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > p.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = np.atleast_2d(p).astype(np.float64)
    if not np.all(np.isfinite(rows) & (rows >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = _generator(generator)
    if not replacement or num_samples == 1:
        # as torch: p / q for q ~ Exp(1) (drawn as an exponential_ of input's dtype), its largest first
        q = _exponentials(g, p.size, 1.0).astype(p.dtype).reshape(p.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = np.atleast_2d(p / q)
        picks = keys.argmax(-1)[:, None] if num_samples == 1 else np.argsort(-keys, -1, kind="stable")[:, :num_samples]
    else:
        # as torch: per row, the cumulative sums (in input's dtype) divided by the total, the last one
        # set to 1, and for each double uniform the first category whose cumulative sum reaches it
        u = _uniform01(g, rows.shape[0] * num_samples, _F64).reshape(rows.shape[0], num_samples)
        cdf = np.cumsum(np.atleast_2d(p), -1)
        cdf = cdf / cdf[:, -1:]
        cdf[:, -1] = 1
        picks = np.stack([np.searchsorted(c.astype(np.float64), v, side="left") for c, v in zip(cdf, u)])
    return _new(picks.reshape(p.shape[:-1] + (num_samples,)).astype(np.int64), False)


# ---- api: binomial
@register()
def binomial(count, prob, generator=None):
    """Draws one sample from Binomial(`count`, `prob`) for each pair of elements (the number of successes
    in `count` trials of success probability `prob`). Not differentiable, as in torch. (torch's sampler:
    the same seed gives torch's numbers.)

    Args:
        count (Tensor): the numbers of trials (a floating tensor).
        prob (Tensor): the success probabilities, in [0, 1].
        generator (torch.Generator, optional): the generator to draw from.

    Returns:
        Tensor: the samples, in `count`'s dtype.

    Example::

        >>> torch.binomial(torch.tensor([5.0, 10.0]), torch.tensor([1.0, 0.0]))
        tensor([5., 0.])
    """
    n, p = np.broadcast_arrays(count._array, prob._array)
    gen, single = _generator(generator), n.dtype == np.float32   # element by element: varying draws each
    draws = [_binomial_sample(gen, a, b, single) for a, b in zip(n.ravel().tolist(), p.ravel().tolist())]
    return _new(np.array(draws, np.float64).reshape(n.shape).astype(count._array.dtype))
