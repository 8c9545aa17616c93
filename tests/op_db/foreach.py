"""Registry entries for the `_foreach_<op>` overloads (see op_db/__init__.py for the format).

Out of place, each overload records one node for the whole list (ForeachMulBackward0List, ...): its
yaml entry's backward and forward-AD formulas are reached only by calling it. Every overload gets one
sample on a list of two tensors of different shapes (so that element i really pairs with element i of
the other lists), in the element function's smooth domain.
"""
from . import OpInfo, S

from .pointwise import POS, UNIT

# the element function's domain where it is smooth, and away from its kinks (round, sign, ...)
DOMAIN = {**dict.fromkeys(["acos", "asin"], UNIT),
          **dict.fromkeys(["log", "log10", "log1p", "log2", "lgamma", "rsqrt", "sqrt", "reciprocal"], POS),
          **dict.fromkeys(["ceil", "floor", "round", "trunc", "frac", "sign", "abs"], dict(low=0.1, high=0.4))}
UNARY = ("abs", "acos", "asin", "atan", "ceil", "clone", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor",
         "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign",
         "sin", "sinh", "sqrt", "tan", "tanh", "trunc")


def _pair(**kw):
    return [S(2, 3, **kw), S(4, **kw)]


def _lists(n_lists, xs):
    """xs (n_lists * 2 tensors) as n_lists lists of two."""
    return [list(xs[2 * k:2 * k + 2]) for k in range(n_lists)]


def sample(name, n_lists, call, domains=(), extra=(), **kw):
    """`call(T, *lists, *extra)`: n_lists tensor lists (domain k for list k, default [-1, 1)), then `extra`."""
    inputs = [spec for k in range(n_lists) for spec in _pair(**(domains[k] if k < len(domains) else {}))]
    return OpInfo(name, lambda T, *xs: call(T, *_lists(n_lists, xs[:2 * n_lists]), *xs[2 * n_lists:]),
                  inputs + list(extra), **kw)


OPS = [sample(f"_foreach_{n}", 1, lambda T, a, _n=n: getattr(T, f"_foreach_{_n}")(a), [DOMAIN.get(n, {})])
       for n in UNARY]
OPS += [
    sample("_foreach_max", 1, lambda T, a: T._foreach_max(a)),
    sample("_foreach_norm", 1, lambda T, a: T._foreach_norm(a)),
    sample("_foreach_norm_ord3", 1, lambda T, a: T._foreach_norm(a, 3)),
    sample("_foreach_add_list", 2, lambda T, a, b: T._foreach_add(a, b, alpha=2.5)),
    sample("_foreach_sub_list", 2, lambda T, a, b: T._foreach_sub(a, b, alpha=-0.5)),
    sample("_foreach_mul_list", 2, lambda T, a, b: T._foreach_mul(a, b)),
    sample("_foreach_div_list", 2, lambda T, a, b: T._foreach_div(a, b), [{}, POS]),
    sample("_foreach_pow_list", 2, lambda T, a, b: T._foreach_pow(a, b), [POS]),
    # a 0-d tensor operand: torch 2.13's backward raises "inconsistent range for TensorList output"
    # when it requires grad (ndgrad's gradient is checked by gradcheck), so parity is on a constant one
    *[sample(f"_foreach_{n}_tensor{suffix}", 1, lambda T, a, s, _n=n: getattr(T, f"_foreach_{_n}")(a, s),
             extra=[S(low=0.5, high=2.0, requires_grad=rg)], torch_parity=not rg)
      for n in ("mul", "div") for suffix, rg in (("", True), ("_constant", False))],
    sample("_foreach_pow_scalar_and_tensor", 1, lambda T, a: T._foreach_pow(1.5, a)),
    sample("_foreach_lerp_list", 3, lambda T, a, b, w: T._foreach_lerp(a, b, w)),
    sample("_foreach_lerp_scalar", 2, lambda T, a, b: T._foreach_lerp(a, b, 0.3)),
    sample("_foreach_lerp_scalarlist", 2, lambda T, a, b: T._foreach_lerp(a, b, [0.3, -0.6])),
    sample("_foreach_addcmul_scalar", 3, lambda T, a, b, c: T._foreach_addcmul(a, b, c, 0.7)),
    sample("_foreach_addcmul_scalarlist", 3, lambda T, a, b, c: T._foreach_addcmul(a, b, c, [0.7, -2.0])),
    sample("_foreach_addcdiv_scalar", 3, lambda T, a, b, c: T._foreach_addcdiv(a, b, c, 0.7), [{}, {}, POS]),
    sample("_foreach_addcdiv_scalarlist", 3, lambda T, a, b, c: T._foreach_addcdiv(a, b, c, [0.7, -2.0]),
           [{}, {}, POS]),
]
# the element-wise binary ops: a list against a list, a scalar, a list of scalars (pow against
# positive bases; clamp and maximum away from ties, which random values never meet)
for n in ("add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max", "pow"):
    dom = [POS] if n == "pow" else []
    if n not in ("add", "sub", "mul", "div", "pow"):
        OPS.append(sample(f"_foreach_{n}_list", 2, lambda T, a, b, _n=n: getattr(T, f"_foreach_{_n}")(a, b)))
    OPS.append(sample(f"_foreach_{n}_scalar", 1, lambda T, a, _n=n: getattr(T, f"_foreach_{_n}")(a, 0.25), dom))
    OPS.append(sample(f"_foreach_{n}_scalarlist", 1,
                      lambda T, a, _n=n: getattr(T, f"_foreach_{_n}")(a, [0.25, -1.5]), dom))
