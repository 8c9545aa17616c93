"""Registry entries for pointwise ops (see op_db/__init__.py for the format).

Differentiable entries use float64 inputs in each function's smooth domain. Entries for type
promotion and integer / bool inputs use float32 or integer tensors (check_grad=False): the
parity test checks their result dtype against torch.
"""
from . import B, I, OpInfo, S

POS = dict(low=0.5, high=2.0)          # log, sqrt, lgamma, ...
UNIT = dict(low=-0.9, high=0.9)        # asin, atanh, erfinv, ...
ABOVE1 = dict(low=1.2, high=3.0)       # acosh
F32 = dict(atol=1e-6, rtol=1e-6)       # float32 results: NumPy and torch may differ in the last bit


def promo(name, call, inputs, **kw):
    """A type-promotion entry: values and result dtype against torch; no gradcheck."""
    return OpInfo(name, call, inputs, check_grad=False, **{**F32, **kw})


def nograd(name, call, inputs, **kw):
    """An op without a gradient (bool or integer results)."""
    return OpInfo(name, call, inputs, check_grad=False, **kw)


ARITHMETIC = [
    OpInfo("add", lambda T, x, y: T.add(x, y), [S(2, 3), S(3)], grad_fn="AddBackward0"),
    OpInfo("add_broadcast_both", lambda T, x, y: x + y, [S(3, 1), S(1, 4)], grad_fn="AddBackward0"),
    OpInfo("add_alpha", lambda T, x, y: T.add(x, y, alpha=2.5), [S(2, 3), S(2, 3)], grad_fn="AddBackward0"),
    OpInfo("add_scalar", lambda T, x: x + 2, [S(2, 3)], grad_fn="AddBackward0"),
    OpInfo("add_scalar_alpha", lambda T, x: x.add(2.0, alpha=-3), [S(3)], grad_fn="AddBackward0"),
    OpInfo("radd", lambda T, x: 1.5 + x, [S(3)], grad_fn="AddBackward0"),
    OpInfo("add_0d", lambda T, x, y: x + y, [S(2, 3), S()], grad_fn="AddBackward0"),
    OpInfo("add_inplace", lambda T, x, y: x.clone().add_(y, alpha=2), [S(2, 3), S(3)], grad_fn="AddBackward0"),
    OpInfo("iadd", lambda T, x, y: _iadd(x.clone(), y), [S(2, 3), S(2, 3)], grad_fn="AddBackward0"),
    OpInfo("sub", lambda T, x, y: x - y, [S(2, 3), S(3)], grad_fn="SubBackward0"),
    OpInfo("sub_alpha", lambda T, x, y: T.sub(x, y, alpha=0.5), [S(4), S(4)], grad_fn="SubBackward0"),
    OpInfo("sub_scalar", lambda T, x: x - 2, [S(3)], grad_fn="SubBackward0"),
    OpInfo("subtract", lambda T, x, y: T.subtract(x, y), [S(3), S(3)], grad_fn="SubBackward0"),
    OpInfo("sub_inplace", lambda T, x, y: x.clone().sub_(y), [S(2, 3), S(3)], grad_fn="SubBackward0"),
    OpInfo("isub", lambda T, x: _isub(x.clone(), 3), [S(3)], grad_fn="SubBackward0"),
    OpInfo("rsub_operator", lambda T, x: 1 - x, [S(2, 3)], grad_fn="RsubBackward1"),
    OpInfo("rsub_tensor", lambda T, x, y: T.rsub(x, y), [S(2, 3), S(3)], grad_fn="RsubBackward0"),
    OpInfo("rsub_tensor_alpha", lambda T, x, y: T.rsub(x, y, alpha=2), [S(3), S(3)], grad_fn="RsubBackward0"),
    OpInfo("rsub_scalar", lambda T, x: T.rsub(x, 2.0, alpha=3), [S(3)], grad_fn="RsubBackward1"),
    OpInfo("mul", lambda T, x, y: T.mul(x, y), [S(2, 3), S(2, 3)], grad_fn="MulBackward0"),
    OpInfo("mul_broadcast", lambda T, x, y: x * y, [S(4, 1, 3), S(2, 1)], grad_fn="MulBackward0"),
    OpInfo("mul_scalar", lambda T, x: x * 2.5, [S(3)], grad_fn="MulBackward0"),
    OpInfo("rmul", lambda T, x: 2 * x, [S(3)], grad_fn="MulBackward0"),
    OpInfo("mul_same", lambda T, x: x * x, [S(3)], grad_fn="MulBackward0"),
    OpInfo("multiply", lambda T, x, y: T.multiply(x, y), [S(3), S(3)], grad_fn="MulBackward0"),
    OpInfo("mul_inplace", lambda T, x, y: x.clone().mul_(y), [S(2, 3), S(3)], grad_fn="MulBackward0"),
    OpInfo("imul", lambda T, x: _imul(x.clone(), 4), [S(3)], grad_fn="MulBackward0"),
    OpInfo("mul_complex", lambda T, x, y: x * y, [S(3, dtype="complex128"), S(3, dtype="complex128")],
           grad_fn="MulBackward0", check_grad=False),
    OpInfo("div", lambda T, x, y: T.div(x, y), [S(2, 3), S(3, **POS)], grad_fn="DivBackward0"),
    OpInfo("div_operator", lambda T, x, y: x / y, [S(2, 3), S(2, 3, **POS)], grad_fn="DivBackward0"),
    OpInfo("div_scalar", lambda T, x: x / 2, [S(3)], grad_fn="DivBackward0"),
    OpInfo("rdiv", lambda T, x: 2 / x, [S(3, **POS)], grad_fn="MulBackward0"),
    OpInfo("true_divide", lambda T, x, y: T.true_divide(x, y), [S(3), S(3, **POS)], grad_fn="DivBackward0"),
    OpInfo("divide", lambda T, x, y: x.divide(y), [S(3), S(3, **POS)], grad_fn="DivBackward0"),
    OpInfo("div_trunc", lambda T, x, y: T.div(x, y, rounding_mode="trunc"), [S(2, 3, low=-4, high=4), S(3, **POS)],
           grad_fn="DivBackward2"),
    OpInfo("div_floor", lambda T, x, y: x.div(y, rounding_mode="floor"), [S(2, 3, low=-4, high=4), S(3, **POS)],
           grad_fn="DivBackward2"),
    OpInfo("div_floor_scalar", lambda T, x: T.div(x, 0.3, rounding_mode="floor"), [S(4)], grad_fn="DivBackward2"),
    OpInfo("div_inplace", lambda T, x, y: x.clone().div_(y), [S(2, 3), S(3, **POS)], grad_fn="DivBackward0"),
    OpInfo("div_inplace_mode", lambda T, x: x.clone().div_(0.3, rounding_mode="trunc"), [S(4)],
           grad_fn="DivBackward2"),
    OpInfo("itruediv", lambda T, x: _itruediv(x.clone(), 3), [S(3)], grad_fn="DivBackward0"),
    OpInfo("pow_scalar", lambda T, x: x ** 2, [S(2, 3)], grad_fn="PowBackward0"),
    OpInfo("pow_scalar_float", lambda T, x: T.pow(x, 2.5), [S(2, 3, **POS)], grad_fn="PowBackward0"),
    OpInfo("pow_scalar_negative", lambda T, x: x.pow(-1.5), [S(4, **POS)], grad_fn="PowBackward0"),
    OpInfo("pow_scalar_zero", lambda T, x: x ** 0, [S(3)], grad_fn="PowBackward0"),
    OpInfo("pow_tensor", lambda T, x, y: x ** y, [S(2, 3, **POS), S(3)], grad_fn="PowBackward1"),
    OpInfo("pow_tensor_0d", lambda T, x, y: T.pow(x, y), [S(3, **POS), S()], grad_fn="PowBackward1"),
    OpInfo("pow_self", lambda T, x: x ** x, [S(3, **POS)], grad_fn="PowBackward1"),
    OpInfo("rpow", lambda T, x: 2 ** x, [S(2, 3)], grad_fn="PowBackward2"),
    OpInfo("pow_scalar_base", lambda T, x: T.pow(0.5, x), [S(3)], grad_fn="PowBackward2"),
    OpInfo("pow_inplace", lambda T, x: x.clone().pow_(3), [S(3)], grad_fn="PowBackward0"),
    OpInfo("pow_inplace_tensor", lambda T, x, y: x.clone().pow_(y), [S(3, **POS), S(3)], grad_fn="PowBackward1"),
    OpInfo("ipow", lambda T, x: _ipow(x.clone(), 2), [S(3)], grad_fn="PowBackward0"),
    OpInfo("float_power", lambda T, x, y: T.float_power(x, y), [S(3, **POS), S(3)], grad_fn="PowBackward1"),
    OpInfo("float_power_scalar", lambda T, x: x.float_power(2), [S(3)], grad_fn="PowBackward0"),
    OpInfo("square", lambda T, x: T.square(x), [S(2, 3)], grad_fn="PowBackward0"),
    OpInfo("square_inplace", lambda T, x: x.clone().square_(), [S(3)], grad_fn="PowBackward0"),
    OpInfo("neg", lambda T, x: -x, [S(2, 3)], grad_fn="NegBackward0"),
    OpInfo("negative", lambda T, x: T.negative(x), [S(3)], grad_fn="NegBackward0"),
    OpInfo("neg_inplace", lambda T, x: x.clone().neg_(), [S(3)], grad_fn="NegBackward0"),
    OpInfo("positive", lambda T, x: +(x * 2), [S(3)], grad_fn="MulBackward0"),
    OpInfo("remainder", lambda T, x, y: T.remainder(x, y), [S(2, 3, low=-3, high=3), S(3, **POS)],
           grad_fn="RemainderBackward1"),
    OpInfo("mod_operator", lambda T, x, y: x % y, [S(4, low=-3, high=3), S(4, low=-2, high=-0.5)],
           grad_fn="RemainderBackward1"),
    OpInfo("remainder_scalar", lambda T, x: x % 0.3, [S(2, 3)], grad_fn="RemainderBackward0"),
    OpInfo("remainder_inplace", lambda T, x: x.clone().remainder_(0.7), [S(3)], grad_fn="RemainderBackward0"),
    OpInfo("fmod", lambda T, x, y: T.fmod(x, y), [S(2, 3, low=-3, high=3), S(3, **POS)], grad_fn="FmodBackward1"),
    OpInfo("fmod_scalar", lambda T, x: x.fmod(-0.3), [S(2, 3)], grad_fn="FmodBackward0"),
    OpInfo("fmod_inplace", lambda T, x, y: x.clone().fmod_(y), [S(3, low=-3, high=3), S(3, **POS)],
           grad_fn="FmodBackward1"),
    OpInfo("maximum", lambda T, x, y: T.maximum(x, y), [S(2, 3), S(3)], grad_fn="MaximumBackward0"),
    OpInfo("maximum_ties", lambda T, x, y: T.maximum(x, y), [S(3, fill=[1.0, 2.0, 3.0]), S(3, fill=[1.0, 0.0, 4.0])],
           grad_fn="MaximumBackward0", check_grad=False),
    OpInfo("minimum", lambda T, x, y: x.minimum(y), [S(2, 3), S(2, 3)], grad_fn="MinimumBackward0"),
    OpInfo("minimum_ties", lambda T, x, y: T.minimum(x, y), [S(3, fill=[1.0, 2.0, 3.0]), S(3, fill=[1.0, 0.0, 4.0])],
           grad_fn="MinimumBackward0", check_grad=False),
    OpInfo("fmax", lambda T, x, y: T.fmax(x, y), [S(2, 3), S(3)], grad_fn="FmaxBackward0"),
    OpInfo("fmax_nan", lambda T, x, y: T.fmax(x, y), [S(3, fill=[1.0, float("nan"), 3.0]),
                                                      S(3, fill=[float("nan"), 0.0, 3.0])],
           grad_fn="FmaxBackward0", check_grad=False),
    OpInfo("fmin", lambda T, x, y: x.fmin(y), [S(2, 3), S(2, 3)], grad_fn="FminBackward0"),
    OpInfo("atan2", lambda T, x, y: T.atan2(x, y), [S(2, 3), S(3)], grad_fn="Atan2Backward0"),
    OpInfo("arctan2_inplace", lambda T, x, y: x.clone().arctan2_(y), [S(3), S(3)], grad_fn="Atan2Backward0"),
    OpInfo("hypot", lambda T, x, y: T.hypot(x, y), [S(2, 3), S(3)], grad_fn="HypotBackward0"),
    OpInfo("copysign", lambda T, x, y: T.copysign(x, y), [S(2, 3), S(3)], grad_fn="CopysignBackward0"),
    OpInfo("copysign_scalar", lambda T, x: x.copysign(-1.0), [S(2, 3)], grad_fn="CopysignBackward1"),
    OpInfo("copysign_inplace", lambda T, x, y: x.clone().copysign_(y), [S(3), S(3)], grad_fn="CopysignBackward0"),
    OpInfo("lerp_scalar", lambda T, x, y: T.lerp(x, y, 0.3), [S(2, 3), S(3)], grad_fn="LerpBackward0"),
    OpInfo("lerp_scalar_high", lambda T, x, y: x.lerp(y, 0.8), [S(3), S(3)], grad_fn="LerpBackward0"),
    OpInfo("lerp_tensor", lambda T, x, y, w: T.lerp(x, y, w), [S(2, 3), S(3), S(2, 3, low=0, high=1)],
           grad_fn="LerpBackward1"),
    OpInfo("lerp_inplace", lambda T, x, y: x.clone().lerp_(y, 0.6), [S(3), S(3)], grad_fn="LerpBackward0"),
    OpInfo("addcmul", lambda T, x, a, b: T.addcmul(x, a, b, value=0.5), [S(2, 3), S(3), S(2, 1)],
           grad_fn="AddcmulBackward0"),
    OpInfo("addcmul_default", lambda T, x, a, b: x.addcmul(a, b), [S(3), S(3), S(3)], grad_fn="AddcmulBackward0"),
    OpInfo("addcmul_inplace", lambda T, x, a, b: x.clone().addcmul_(a, b, value=2), [S(3), S(3), S(3)],
           grad_fn="AddcmulBackward0"),
    OpInfo("addcdiv", lambda T, x, a, b: T.addcdiv(x, a, b, value=0.5), [S(2, 3), S(3), S(2, 3, **POS)],
           grad_fn="AddcdivBackward0"),
    OpInfo("addcdiv_inplace", lambda T, x, a, b: x.clone().addcdiv_(a, b), [S(3), S(3), S(3, **POS)],
           grad_fn="AddcdivBackward0"),
    OpInfo("where", lambda T, c, x, y: T.where(c, x, y), [B(2, 3), S(2, 3), S(3)], grad_fn="WhereBackward0"),
    OpInfo("where_scalar_other", lambda T, x: T.where(x > 0, x, 0.0), [S(2, 3)], grad_fn="WhereBackward0"),
    OpInfo("where_scalar_self", lambda T, c, y: T.where(c, 1.5, y), [B(4), S(4)], grad_fn="WhereBackward0"),
    OpInfo("where_method", lambda T, c, x, y: x.where(c, y), [B(2, 3), S(2, 3), S(2, 3)], grad_fn="WhereBackward0"),
    OpInfo("where_broadcast_cond", lambda T, c, x, y: T.where(c, x, y), [B(3, 1), S(1, 4), S(3, 4)],
           grad_fn="WhereBackward0"),
    nograd("where_index", lambda T, c: T.where(c), [B(3, 4)]),
    promo("where_scalars", lambda T, c: T.where(c, 1.0, 0), [B(4)]),
    OpInfo("clamp", lambda T, x: T.clamp(x, -0.5, 0.5), [S(2, 3)], grad_fn="ClampBackward1"),
    OpInfo("clamp_min_only", lambda T, x: x.clamp(min=-0.2), [S(2, 3)], grad_fn="ClampBackward1"),
    OpInfo("clamp_max_only", lambda T, x: x.clamp(max=0.2), [S(2, 3)], grad_fn="ClampBackward1"),
    OpInfo("clamp_crossed", lambda T, x: x.clamp(0.5, -0.5), [S(4)], grad_fn="ClampBackward1"),
    OpInfo("clip", lambda T, x: T.clip(x, -0.5, 0.5), [S(2, 3)], grad_fn="ClampBackward1"),
    OpInfo("clamp_tensor", lambda T, x, lo, hi: T.clamp(x, lo, hi),
           [S(2, 3), S(3, low=-1, high=0), S(2, 3, low=0, high=1)], grad_fn="ClampBackward0"),
    OpInfo("clamp_tensor_crossed", lambda T, x, lo, hi: x.clamp(lo, hi),
           [S(2, 4), S(4, low=-1, high=1), S(4, low=-1, high=1)], grad_fn="ClampBackward0"),
    OpInfo("clamp_tensor_min", lambda T, x, lo: x.clamp(min=lo), [S(2, 3), S(3)], grad_fn="ClampBackward0"),
    OpInfo("clamp_tensor_max", lambda T, x, hi: T.clamp(x, max=hi), [S(2, 3), S(3)], grad_fn="ClampBackward0"),
    OpInfo("clamp_inplace", lambda T, x: x.clone().clamp_(min=-0.3, max=0.3), [S(3, 2)], grad_fn="ClampBackward1"),
    OpInfo("clip_inplace_tensor", lambda T, x, lo: x.clone().clip_(lo), [S(3, 2), S(2)], grad_fn="ClampBackward0"),
    OpInfo("clamp_min", lambda T, x: T.clamp_min(x, 0.1), [S(2, 3)], grad_fn="ClampMinBackward0"),
    OpInfo("clamp_min_tensor", lambda T, x, m: x.clamp_min(m), [S(2, 3), S(3)], grad_fn="ClampMinBackward1"),
    OpInfo("clamp_min_inplace", lambda T, x: x.clone().clamp_min_(0.1), [S(3)], grad_fn="ClampMinBackward0"),
    OpInfo("clamp_max", lambda T, x: T.clamp_max(x, 0.1), [S(2, 3)], grad_fn="ClampMaxBackward0"),
    OpInfo("clamp_max_tensor", lambda T, x, m: x.clamp_max(m), [S(2, 3), S(3)], grad_fn="ClampMaxBackward1"),
    OpInfo("clamp_max_inplace", lambda T, x, m: x.clone().clamp_max_(m), [S(3), S(3)], grad_fn="ClampMaxBackward1"),
    nograd("floor_divide", lambda T, x, y: T.floor_divide(x, y), [I(2, 3, low=-9, high=9), I(3, low=1, high=4)]),
    nograd("floordiv_operator", lambda T, x: x // 0.3, [S(2, 3, requires_grad=False)]),
    nograd("rfloordiv", lambda T, x: 7 // x, [I(4, low=1, high=5)]),
    nograd("rmod", lambda T, x: 7 % x, [I(4, low=1, high=5)]),
    nograd("remainder_int_negative", lambda T, x: T.remainder(x, -3), [I(6, low=-9, high=9)]),
    nograd("fmod_int", lambda T, x, y: T.fmod(x, y), [I(6, low=-9, high=9), I(6, low=1, high=4)]),
    nograd("div_trunc_int", lambda T, x, y: T.div(x, y, rounding_mode="trunc"), [I(6, low=-9, high=9),
                                                                                I(6, low=-4, high=-1)]),
    nograd("div_floor_int", lambda T, x: x.div(-4, rounding_mode="floor"), [I(6, low=-9, high=9)]),
]


def _iadd(x, y):
    x += y
    return x


def _isub(x, y):
    x -= y
    return x


def _imul(x, y):
    x *= y
    return x


def _itruediv(x, y):
    x /= y
    return x


def _ipow(x, y):
    x **= y
    return x


# (name, input domain, grad_fn) of the functions of one tensor: each as a function, a method, in place
UNARY = [
    ("exp", {}, "ExpBackward0"), ("exp2", {}, "Exp2Backward0"), ("expm1", {}, "Expm1Backward0"),
    ("log", POS, "LogBackward0"), ("log2", POS, "Log2Backward0"), ("log10", POS, "Log10Backward0"),
    ("log1p", POS, "Log1PBackward0"), ("sin", {}, "SinBackward0"), ("cos", {}, "CosBackward0"),
    ("tan", {}, "TanBackward0"), ("asin", UNIT, "AsinBackward0"), ("acos", UNIT, "AcosBackward0"),
    ("atan", {}, "AtanBackward0"), ("sinh", {}, "SinhBackward0"), ("cosh", {}, "CoshBackward0"),
    ("tanh", {}, "TanhBackward0"), ("asinh", {}, "AsinhBackward0"), ("acosh", ABOVE1, "AcoshBackward0"),
    ("atanh", UNIT, "AtanhBackward0"), ("sqrt", POS, "SqrtBackward0"), ("rsqrt", POS, "RsqrtBackward0"),
    ("sigmoid", {}, "SigmoidBackward0"), ("erf", {}, "ErfBackward0"), ("erfc", {}, "ErfcBackward0"),
    ("erfinv", UNIT, "ErfinvBackward0"), ("lgamma", POS, "LgammaBackward0"), ("digamma", POS, "DigammaBackward0"),
    ("abs", {}, "AbsBackward0"), ("sign", {}, "SignBackward0"), ("sgn", {}, "SgnBackward0"),
    ("floor", dict(low=-3, high=3), "FloorBackward0"), ("ceil", dict(low=-3, high=3), "CeilBackward0"),
    ("round", dict(low=-3, high=3), "RoundBackward0"), ("trunc", dict(low=-3, high=3), "TruncBackward0"),
    ("frac", dict(low=-3, high=3), "FracBackward0"), ("logit", dict(low=0.1, high=0.9), "LogitBackward0"),
    ("sinc", dict(low=-2, high=2), "SincBackward0"), ("deg2rad", {}, "Deg2RadBackward0"),
    ("rad2deg", {}, "Rad2DegBackward0"), ("reciprocal", POS, "ReciprocalBackward0"),
    ("nan_to_num", {}, "NanToNumBackward0"), ("angle", {}, "AngleBackward0"),
    ("arcsin", UNIT, "AsinBackward0"), ("arccos", UNIT, "AcosBackward0"), ("arctan", {}, "AtanBackward0"),
    ("arcsinh", {}, "AsinhBackward0"), ("arccosh", ABOVE1, "AcoshBackward0"),
    ("arctanh", UNIT, "AtanhBackward0"), ("absolute", {}, "AbsBackward0"), ("fix", {}, "TruncBackward0"),
]
NO_INPLACE = {"angle"}
# AsinhBackward1, ...: torch's backward raises there ("derivative for 'inplace version of asinh' is not
# implemented"); ndgrad computes it, so these entries are checked by gradcheck, not against torch
OWN_INPLACE_ENTRY = {"asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh"}
ZERO_GRAD_TENSOR = {"sgn"}   # torch's gradient is a ZeroTensor, which has no .numpy(): see "sgn_parity"


def _unary_entries():
    out = []
    for name, domain, grad_fn in UNARY:
        kw = dict(torch_parity=name not in ZERO_GRAD_TENSOR)
        out.append(OpInfo(name, lambda T, x, n=name: getattr(T, n)(x), [S(2, 3, **domain)], grad_fn=grad_fn, **kw))
        out.append(OpInfo(name + "_method", lambda T, x, n=name: getattr(x, n)(), [S(3, **domain)], grad_fn=grad_fn,
                          **kw))
        if name not in NO_INPLACE:
            inplace_fn = grad_fn.replace("0", "1") if name in OWN_INPLACE_ENTRY else grad_fn
            out.append(OpInfo(name + "_inplace", lambda T, x, n=name: getattr(x.clone(), n + "_")(), [S(3, **domain)],
                              grad_fn=inplace_fn, torch_parity=kw["torch_parity"] and name not in OWN_INPLACE_ENTRY))
    return out


MATH = _unary_entries() + [
    OpInfo("exp_0d", lambda T, x: T.exp(x), [S()], grad_fn="ExpBackward0"),
    OpInfo("sgn_parity", lambda T, x: T.sgn(x) + x, [S(2, 3)], grad_fn="AddBackward0"),
    # (gradgradcheck of tanh / sigmoid checks these values; gradcheck cannot run autograd.grad inside)
    OpInfo("tanh_double_backward", lambda T, x: T.autograd.grad(x.tanh().sum(), x, create_graph=True)[0],
           [S(3)], grad_fn="TanhBackwardBackward0", check_grad=False),
    OpInfo("sigmoid_double_backward", lambda T, x: T.autograd.grad(x.sigmoid().sum(), x, create_graph=True)[0],
           [S(3)], grad_fn="SigmoidBackwardBackward0", check_grad=False),
    OpInfo("round_decimals", lambda T, x: T.round(x, decimals=2), [S(2, 3, low=-3, high=3)], grad_fn="RoundBackward1"),
    OpInfo("round_decimals_negative", lambda T, x: x.round(decimals=-1), [S(4, low=-30, high=30)],
           grad_fn="RoundBackward1"),
    OpInfo("round_inplace_decimals", lambda T, x: x.clone().round_(decimals=1), [S(4)], grad_fn="RoundBackward1"),
    nograd("round_half_even", lambda T, x: T.round(x), [S(5, fill=[0.5, 1.5, 2.5, -0.5, -2.5], requires_grad=False)]),
    OpInfo("logit_eps", lambda T, x: T.logit(x, eps=0.2), [S(2, 3, low=0.0, high=1.0)], grad_fn="LogitBackward0"),
    OpInfo("logit_inplace_eps", lambda T, x: x.clone().logit_(0.3), [S(4, low=0.0, high=1.0)],
           grad_fn="LogitBackward0"),
    OpInfo("polygamma_0", lambda T, x: T.polygamma(0, x), [S(2, 3, **POS)], grad_fn="PolygammaBackward0"),
    OpInfo("polygamma_2", lambda T, x: T.polygamma(2, x), [S(2, 3, **POS)], grad_fn="PolygammaBackward0"),
    OpInfo("polygamma_method", lambda T, x: x.polygamma(1), [S(3, **POS)], grad_fn="PolygammaBackward0"),
    OpInfo("polygamma_inplace", lambda T, x: x.clone().polygamma_(1), [S(3, **POS)], grad_fn="PolygammaBackward1"),
    OpInfo("sinc_zero", lambda T, x: T.sinc(x), [S(3, fill=[0.0, 0.5, 1.0])], grad_fn="SincBackward0",
           check_grad=False),
    OpInfo("xlogy", lambda T, x, y: T.xlogy(x, y), [S(2, 3), S(3, **POS)], grad_fn="XlogyBackward0"),
    OpInfo("xlogy_zero", lambda T, x, y: T.xlogy(x, y), [S(3, fill=[0.0, 0.0, 1.0]), S(3, fill=[0.0, 2.0, 3.0])],
           grad_fn="XlogyBackward0", check_grad=False),
    OpInfo("xlogy_scalar_self", lambda T, y: T.xlogy(2.0, y), [S(2, 3, **POS)], grad_fn="XlogyBackward1"),
    OpInfo("xlogy_scalar_other", lambda T, x: x.xlogy(3.0), [S(2, 3)], grad_fn="XlogyBackward2"),
    OpInfo("xlogy_inplace", lambda T, x, y: x.clone().xlogy_(y), [S(3), S(3, **POS)], grad_fn="XlogyBackward0"),
    OpInfo("logaddexp", lambda T, x, y: T.logaddexp(x, y), [S(2, 3), S(3)], grad_fn="LogaddexpBackward0"),
    OpInfo("logaddexp2", lambda T, x, y: x.logaddexp2(y), [S(2, 3), S(2, 3)], grad_fn="Logaddexp2Backward0"),
    OpInfo("mvlgamma", lambda T, x: T.mvlgamma(x, 3), [S(2, 3, low=1.5, high=3)], grad_fn="MvlgammaBackward0"),
    OpInfo("mvlgamma_inplace", lambda T, x: x.clone().mvlgamma_(p=2), [S(3, low=1.5, high=3)],
           grad_fn="MvlgammaBackward0"),
    OpInfo("igamma", lambda T, a, x: T.igamma(a, x), [S(2, 3, requires_grad=False, **POS), S(3, **POS)],
           grad_fn="IgammaBackward0"),
    OpInfo("igammac", lambda T, a, x: a.igammac(x), [S(2, 3, requires_grad=False, **POS), S(2, 3, **POS)],
           grad_fn="IgammacBackward0"),
    OpInfo("igamma_inplace", lambda T, a, x: a.clone().igamma_(x), [S(3, requires_grad=False, **POS), S(3, **POS)],
           grad_fn="IgammaBackward0"),
    OpInfo("ldexp", lambda T, x, e: T.ldexp(x, e), [S(2, 3), S(3)], grad_fn="LdexpBackward0"),
    OpInfo("ldexp_int_exponent", lambda T, x, e: x.ldexp(e), [S(2, 3), I(3, low=-3, high=3)], grad_fn="LdexpBackward0"),
    OpInfo("ldexp_inplace", lambda T, x, e: x.clone().ldexp_(e), [S(3), S(3)], grad_fn="LdexpBackward0"),
    OpInfo("frexp", lambda T, x: T.frexp(x), [S(2, 3, low=-4, high=4)], grad_fn="FrexpBackward0"),
    OpInfo("frexp_fields", lambda T, x: x.frexp().exponent * 1.0 + x.frexp().mantissa, [S(4, low=-4, high=4)],
           grad_fn="AddBackward0"),
    nograd("nextafter", lambda T, x, y: T.nextafter(x, y), [S(2, 3, requires_grad=False), S(3, requires_grad=False)]),
    nograd("heaviside", lambda T, x, v: T.heaviside(x, v),
           [S(4, fill=[-1.0, 0.0, 2.0, 0.0], requires_grad=False), S(fill=0.5, requires_grad=False)]),
    OpInfo("nan_to_num_values", lambda T, x: T.nan_to_num(x, nan=0.5, posinf=9.0),
           [S(4, fill=[1.0, float("nan"), float("inf"), -float("inf")])], grad_fn="NanToNumBackward0",
           check_grad=False),
    OpInfo("abs_complex", lambda T, x: T.abs(x), [S(3, dtype="complex128")], grad_fn="AbsBackward0",
           check_grad=False),
    OpInfo("exp_complex", lambda T, x: x.exp(), [S(3, dtype="complex128")], grad_fn="ExpBackward0",
           check_grad=False),
    OpInfo("sgn_complex", lambda T, x: T.sgn(x), [S(3, dtype="complex128")], grad_fn="SgnBackward0"),
    OpInfo("angle_complex", lambda T, x: T.angle(x), [S(3, dtype="complex128")], grad_fn="AngleBackward0"),
    OpInfo("conj_complex", lambda T, x: T.conj(x).exp() + x, [S(3, dtype="complex128")], grad_fn="AddBackward0",
           check_grad=False),
    OpInfo("conj_physical_complex", lambda T, x: T.conj_physical(x), [S(3, dtype="complex128")],
           grad_fn="ConjPhysicalBackward0", check_grad=False),
    OpInfo("conj_real", lambda T, x: x.conj() * 2, [S(3)], grad_fn="MulBackward0"),
    OpInfo("real_real", lambda T, x: T.real(x) * 2, [S(3)], grad_fn="MulBackward0"),
]

COMPARISONS = [
    OpInfo(f"{name}_inplace{kind}", call, inputs, grad_fn=f"{node}Backward{kind == '_tensor' and 1 or 0}")
    for name, node in [("eq", "Eq"), ("ne", "Ne"), ("lt", "Lt"), ("le", "Le"), ("gt", "Gt"), ("ge", "Ge"),
                       ("greater", "Gt"), ("less_equal", "Le")]
    for kind, call, inputs in [
        ("_scalar", lambda T, x, n=name: getattr(x.clone(), n + "_")(0.1), [S(2, 3)]),
        ("_tensor", lambda T, x, y, n=name: getattr(x.clone(), n + "_")(y), [S(2, 3), S(3)]),
    ]
] + [
    nograd(name, lambda T, x, y, n=name: getattr(T, n)(x, y), [S(2, 3), S(3)])
    for name in ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
                 "logical_and", "logical_or", "logical_xor"]
] + [
    nograd("eq_operator", lambda T, x: x == x, [S(3)]),
    nograd("ne_scalar", lambda T, x: x != 0.5, [S(2, 3)]),
    nograd("lt_operator", lambda T, x, y: x < y, [S(2, 3), S(2, 3)]),
    nograd("le_reflected", lambda T, x: 0.1 <= x, [S(2, 3)]),
    nograd("gt_int_float", lambda T, x: x > 1.5, [I(5, high=4)]),
    nograd("ge_int_float_tensor", lambda T, x, y: x >= y, [I(5, high=4), S(5, low=0, high=4, requires_grad=False)]),
    nograd("eq_none", lambda T, x: x == None, [S(3)]),  # noqa: E711  (torch answers False)
    nograd("logical_not", lambda T, x: T.logical_not(x), [S(2, 3)]),
    nograd("logical_and_int", lambda T, x, y: x.logical_and(y), [I(5, high=3), B(5)]),
    nograd("logical_xor_inplace", lambda T, x, y: x.clone().logical_xor_(y), [B(5), B(5)]),
    OpInfo("logical_or_inplace_float", lambda T, x, y: x.clone().logical_or_(y), [S(5), B(5)],
           grad_fn="CloneBackward0", check_grad=False),
    nograd("bitwise_and", lambda T, x, y: x & y, [I(5, high=16), I(5, high=16)]),
    nograd("bitwise_or_bool", lambda T, x, y: T.bitwise_or(x, y), [B(5), B(5)]),
    nograd("bitwise_xor_scalar", lambda T, x: x ^ 5, [I(5, high=16)]),
    nograd("bitwise_rand", lambda T, x: 6 & x, [I(5, high=16)]),
    nograd("bitwise_not", lambda T, x: ~x, [I(5, low=-8, high=8)]),
    nograd("bitwise_not_bool", lambda T, x: ~x, [B(5)]),
    nograd("bitwise_inplace", lambda T, x, y: x.clone().bitwise_and_(y), [I(5, high=16), I(5, high=16)]),
    nograd("iand", lambda T, x, y: _iand(x.clone(), y), [B(5), B(5)]),
    nograd("left_shift", lambda T, x: x << 2, [I(5, high=16)]),
    nograd("right_shift", lambda T, x, y: T.bitwise_right_shift(x, y), [I(5, high=64), I(5, high=4)]),
    nograd("rlshift", lambda T, x: 1 << x, [I(5, high=8)]),
    nograd("isnan", lambda T, x: T.isnan(x), [S(4, fill=[1.0, float("nan"), float("inf"), -float("inf")])]),
    nograd("isinf", lambda T, x: x.isinf(), [S(4, fill=[1.0, float("nan"), float("inf"), -float("inf")])]),
    nograd("isfinite", lambda T, x: T.isfinite(x), [S(4, fill=[1.0, float("nan"), float("inf"), -float("inf")])]),
    nograd("isposinf", lambda T, x: T.isposinf(x), [S(4, fill=[1.0, float("nan"), float("inf"), -float("inf")])]),
    nograd("isneginf", lambda T, x: x.isneginf(), [S(4, fill=[1.0, float("nan"), float("inf"), -float("inf")])]),
    nograd("isnan_int", lambda T, x: T.isnan(x), [I(3)]),
    nograd("signbit", lambda T, x: T.signbit(x), [S(4, fill=[1.0, -0.0, 0.0, -2.0])]),
    nograd("isclose", lambda T, x, y: T.isclose(x, y), [S(4, fill=[1.0, 1.0, 2.0, float("nan")]),
                                                        S(4, fill=[1.0 + 1e-9, 1.1, 2.0, float("nan")])]),
    nograd("isclose_nan", lambda T, x, y: x.isclose(y, rtol=0.2, equal_nan=True),
           [S(4, fill=[1.0, 1.0, 2.0, float("nan")]), S(4, fill=[1.0 + 1e-9, 1.1, 2.0, float("nan")])]),
    OpInfo("fill", lambda T, x: T.fill(x, 2.0), [S(2, 3)], grad_fn="FillBackward0"),
    OpInfo("fill_tensor", lambda T, x, v: T.fill(x, v), [S(2, 3), S()], grad_fn="FillBackward1"),
    OpInfo("fill_inplace", lambda T, x: x.clone().fill_(-1), [S(2, 3)], grad_fn="FillBackward2"),
    OpInfo("fill_inplace_tensor", lambda T, x, v: x.clone().fill_(v), [S(2, 3), S()], grad_fn="FillBackward3"),
    OpInfo("zero_inplace", lambda T, x: x.clone().zero_(), [S(2, 3)], grad_fn="ZeroBackward0"),
    nograd("fill_int", lambda T, x: T.fill(x, 2.7), [I(3)]),
]


def _iand(x, y):
    x &= y
    return x


PROMOTION = [
    promo("int_mul_float_scalar", lambda T, x: x * 2.5, [I(3, high=5)]),
    promo("int_add_int_scalar", lambda T, x: x + 2, [I(3, high=5, dtype="int32")]),
    promo("int32_add_int64_0d", lambda T, x, y: x + y, [I(3, high=5, dtype="int32"), I(values=3)]),
    promo("int32_add_int64", lambda T, x, y: x + y, [I(3, high=5, dtype="int32"), I(3, high=5)]),
    promo("uint8_add_int8", lambda T, x, y: x + y, [I(3, high=5, dtype="uint8"), I(3, high=5, dtype="int8")]),
    promo("int_add_float64_0d", lambda T, x, y: x + y, [I(3, high=5), S(dtype="float64", requires_grad=False)]),
    promo("float32_add_float64_0d", lambda T, x, y: x + y,
          [S(3, dtype="float32", requires_grad=False), S(dtype="float64", requires_grad=False)]),
    promo("float32_mul_float64", lambda T, x, y: x * y, [S(3, dtype="float32"), S(3)]),
    promo("float32_mul_float64_0d_grad", lambda T, x, y: x * y, [S(3, dtype="float32"), S()]),
    promo("float32_mul_python_float", lambda T, x: x * 1.5, [S(3, dtype="float32")]),
    promo("float32_mul_complex_scalar", lambda T, x: x * 2j, [S(3, dtype="float32", requires_grad=False)]),
    promo("float16_add_float32_0d", lambda T, x, y: x + y,
          [S(3, dtype="float16", requires_grad=False), S(dtype="float32", requires_grad=False)], atol=1e-3, rtol=1e-3),
    promo("bool_add_int_scalar", lambda T, x: x + 2, [B(4)]),
    promo("bool_add_bool", lambda T, x, y: x + y, [B(4), B(4)]),
    promo("bool_mul_float_scalar", lambda T, x: x * 1.5, [B(4)]),
    promo("bool_add_int_tensor", lambda T, x, y: x + y, [B(4), I(4, high=5, dtype="int16")]),
    promo("int_div_int", lambda T, x, y: x / y, [I(4, high=9), I(4, low=1, high=4)]),
    promo("int_div_scalar", lambda T, x: x / 2, [I(4, high=9)]),
    promo("int_rdiv_scalar", lambda T, x: 2 / x, [I(4, low=1, high=9)]),
    promo("int_floordiv_int", lambda T, x, y: x // y, [I(4, high=9), I(4, low=1, high=4)]),
    promo("int_pow_int", lambda T, x: x ** 2, [I(4, high=9)]),
    promo("int_pow_float", lambda T, x: x ** 0.5, [I(4, high=9)]),
    promo("int_rpow", lambda T, x: 2 ** x, [I(4, high=9)]),
    promo("float_rpow_int_tensor", lambda T, x: 2.5 ** x, [I(4, high=9)]),
    promo("bool_square", lambda T, x: T.square(x), [B(4)]),
    promo("int_exp", lambda T, x: T.exp(x), [I(4, high=5)]),
    promo("int32_sqrt", lambda T, x: x.sqrt(), [I(4, high=9, dtype="int32")]),
    promo("bool_sqrt", lambda T, x: T.sqrt(x), [B(4)]),
    promo("int_sigmoid", lambda T, x: T.sigmoid(x), [I(4, high=5)]),
    promo("int_reciprocal", lambda T, x: T.reciprocal(x), [I(4, low=1, high=5)]),
    promo("int_atan2", lambda T, x, y: T.atan2(x, y), [I(4, high=5), I(4, low=1, high=5)]),
    promo("int_xlogy", lambda T, x: T.xlogy(x, 3), [I(4, high=5)]),
    promo("int_clamp_float", lambda T, x: T.clamp(x, 0.5, 2.5), [I(4, high=5)]),
    promo("float32_clamp_float64_tensor", lambda T, x, lo: T.clamp(x, min=lo), [S(3, dtype="float32"), S(3)]),
    promo("int_floor", lambda T, x: T.floor(x), [I(4, high=5)]),
    promo("int_round", lambda T, x: x.round(), [I(4, high=5)]),
    promo("int_sign", lambda T, x: T.sign(x), [I(4, low=-3, high=3)]),
    promo("bool_sign", lambda T, x: T.sign(x), [B(4)]),
    promo("int_abs", lambda T, x: abs(x), [I(4, low=-3, high=3)]),
    promo("int_neg", lambda T, x: -x, [I(4, low=-3, high=3)]),
    promo("int_maximum_float", lambda T, x, y: T.maximum(x, y), [I(4, high=5), S(4, requires_grad=False)]),
    promo("int_copysign", lambda T, x: T.copysign(x, -1), [I(4, high=5)]),
    promo("int_fmod_float", lambda T, x: T.fmod(x, 1.5), [I(4, high=5)]),
    promo("int_remainder", lambda T, x: x % 3, [I(4, low=-5, high=5)]),
    promo("int_where_float_scalar", lambda T, c, x: T.where(c, x, 2.5), [B(4), I(4, high=5)]),
    promo("int_where_int_scalar", lambda T, c, x: T.where(c, x, 2), [B(4), I(4, high=5, dtype="int32")]),
    promo("int_addcmul_value", lambda T, x, a, b: T.addcmul(x, a, b, value=0.5), [I(3, high=5), I(3, high=5),
                                                                                  I(3, high=5)]),
    promo("int_lerp_float_end", lambda T, x, y: x.float() * 0 + T.lerp(y, y * 2, 0.25), [I(3), S(3, dtype="float32")]),
    promo("int_inplace_add_int", lambda T, x: x.clone().add_(3), [I(4, high=5)]),
    promo("float32_inplace_add_float64", lambda T, x, y: x.clone().add_(y),
          [S(3, dtype="float32", requires_grad=False), S(3, requires_grad=False)]),
    promo("int_inplace_eq_float", lambda T, x: x.clone().eq_(1.0), [I(4, high=3)]),
    promo("float_power_float32", lambda T, x: T.float_power(x, 2), [S(3, dtype="float32", requires_grad=False)]),
    promo("float_power_int", lambda T, x: T.float_power(x, 2), [I(3, high=5)]),
]

OPS = ARITHMETIC + MATH + COMPARISONS + PROMOTION
