"""Pointwise ops beyond the registry: Python operators, type promotion over dtype pairs, and
errors, each compared with torch when it is installed (else with torch's recorded answers)."""
import itertools
import os
import operator

import numpy as np
import pytest

import ndgrad
from parity import both

try:
    import torch
except ImportError:  # the checks against torch skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def leaf(T, *values):
    return T.tensor(list(values) or [0.5, 1.5, 2.0], dtype=T.float64, requires_grad=True)


def graph(t):
    """grad_fn name and the names along next_functions, recursively (leaves as AccumulateGrad)."""
    def walk(fn):
        if fn is None:
            return None
        name = fn.name().replace("torch::autograd::", "")
        return (name, tuple(walk(f) for f, _ in fn.next_functions))
    return walk(t.grad_fn)


OPERATOR_CALLS = {
    "x + y": lambda x, y: x + y, "x + 2": lambda x, y: x + 2, "2 + x": lambda x, y: 2 + x,
    "x - 2": lambda x, y: x - 2, "1 - x": lambda x, y: 1 - x, "x * 2": lambda x, y: x * 2,
    "2 * x": lambda x, y: 2 * x, "x / 2": lambda x, y: x / 2, "2 / x": lambda x, y: 2 / x,
    "x / y": lambda x, y: x / y, "x ** 2": lambda x, y: x ** 2, "x ** y": lambda x, y: x ** y,
    "2 ** x": lambda x, y: 2 ** x, "x ** x": lambda x, y: x ** x, "-x": lambda x, y: -x,
    "+x * 1": lambda x, y: +x * 1, "abs(x)": lambda x, y: abs(x), "x % y": lambda x, y: x % y,
    "x % 0.7": lambda x, y: x % 0.7, "x += y": lambda x, y: operator.iadd(x * 1, y),
    "x -= 2": lambda x, y: operator.isub(x * 1, 2), "x *= y": lambda x, y: operator.imul(x * 1, y),
    "x /= y": lambda x, y: operator.itruediv(x * 1, y), "x **= 2": lambda x, y: operator.ipow(x * 1, 2),
    "x %= y": lambda x, y: operator.imod(x * 1, y),
    "(x > y) * x": lambda x, y: (x > y) * x, "(x == y) + x": lambda x, y: (x == y) + x,
    "where": lambda x, y: (x <= y).logical_not() * y,
}


def test_no_derivative_nodes():
    """torch records floor_divide and a number % tensor with its NotImplemented node; ndgrad's node
    has the op's name (FloorDivideBackward0, RemainderBackward2) and raises the same way in backward."""
    x = leaf(ndgrad)
    for y in (x // 0.3, 2 // x, 2 % x):
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="floor_divide|remainder"):
            y.sum().backward()


@needs_torch
@pytest.mark.parametrize("expr", OPERATOR_CALLS)
def test_operator_graph_matches_torch(expr):
    call = OPERATOR_CALLS[expr]
    ours = call(leaf(ndgrad), leaf(ndgrad, 1.0, 0.5, 3.0))
    theirs = call(leaf(torch), leaf(torch, 1.0, 0.5, 3.0))
    assert graph(ours) == graph(theirs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert str(ours.dtype) == str(theirs.dtype)


def test_operator_graph_names():
    x, y = leaf(ndgrad), leaf(ndgrad)
    assert (2 - x).grad_fn.name() == "RsubBackward1"
    assert ndgrad.rsub(x, y).grad_fn.name() == "RsubBackward0"
    assert [f.name() for f, _ in (2 / x).grad_fn.next_functions if f] == ["ReciprocalBackward0"]
    assert (x ** 2).grad_fn.name() == "PowBackward0"
    assert (x ** y).grad_fn.name() == "PowBackward1"
    assert (2 ** x).grad_fn.name() == "PowBackward2"


def test_comparison_with_other_types():
    x = ndgrad.ones(3)
    assert (x == None) is False  # noqa: E711
    assert (x != "a") is True
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"
    with pytest.raises(TypeError, match="unsupported operand"):
        x - [1]


# torch's complex32 (float16 with complex) has no NumPy dtype: those pairs are left out
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
          "complex128"]


def _make(T, dtype, dim):
    data = np.array([1, 0, 1] if dim else 1).astype(dtype)
    return T.tensor(data)


@needs_torch
@pytest.mark.parametrize("a,b", [(a, b) for a, b in itertools.product(DTYPES, DTYPES)
                                 if not {a, b} & {"complex64", "complex128"} or "float16" not in {a, b}])
def test_promotion_matches_torch(a, b):
    """Every pair of dtypes, with dims and zero-dim, through add (and mul for bool pairs)."""
    for dim_a, dim_b in [(True, True), (True, False), (False, True)]:
        for op in (lambda u, v: u * v, lambda u, v: u + v if u.dtype != u.new_tensor(True).dtype else u * v):
            ours = op(_make(ndgrad, a, dim_a), _make(ndgrad, b, dim_b))
            theirs = op(_make(torch, a, dim_a), _make(torch, b, dim_b))
            assert str(ours.dtype) == str(theirs.dtype), (a, b, dim_a, dim_b)


@needs_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [True, 2, 2.5, 1 + 2j])
def test_scalar_promotion_matches_torch(dtype, scalar):
    if dtype == "float16" and isinstance(scalar, complex):
        pytest.skip("torch gives complex32, which NumPy lacks")
    ours = _make(ndgrad, dtype, True) * scalar
    theirs = _make(torch, dtype, True) * scalar
    assert str(ours.dtype) == str(theirs.dtype)


# ---- errors --------------------------------------------------------------------------------
def _errors(T):
    """Calls that fail, as (name, thunk); each must raise torch's exception type and message."""
    f = lambda *v: T.tensor(list(v), dtype=T.float32)   # noqa: E731
    i = lambda *v: T.tensor(list(v))                      # noqa: E731
    b = lambda *v: T.tensor(list(v), dtype=T.bool)       # noqa: E731
    return {
        "add": lambda: f(1, 2, 3) + f(1, 2),
        "add_2d": lambda: T.ones(2, 3) + T.ones(2, 4),
        "mul_3d": lambda: T.ones(3, 1, 5) * T.ones(2, 4, 5),
        "where": lambda: T.where(b(True, False, True), f(1, 2), f(1, 2, 3)),
        "addcmul": lambda: T.addcmul(T.ones(4), f(1, 2, 3), f(1, 2)),
        "lerp": lambda: T.lerp(f(1, 2, 3), f(1, 2), 0.5),
        "clamp_tensor": lambda: T.clamp(f(1, 2, 3), f(1, 2)),
        "eq": lambda: f(1, 2, 3) == f(1, 2),
        "maximum": lambda: T.maximum(f(1, 2, 3), f(1, 2)),
        "pow": lambda: f(1, 2, 3) ** f(1, 2),
        "inplace_broadcast": lambda: f(1, 2, 3).add_(T.ones(2, 3)),
        "inplace_cast_mul": lambda: i(1, 2).mul_(1.5),
        "inplace_cast_div": lambda: i(1, 2).div_(2),
        "inplace_cast_sqrt": lambda: i(1, 2).sqrt_(),
        "inplace_cast_bool": lambda: b(True).add_(1),
        "inplace_cast_double": lambda: i(1, 2).add_(T.ones(2, dtype=T.float64)),
        "neg_bool": lambda: -b(True),
        "sub_bool": lambda: b(True) - b(False),
        "pos_bool": lambda: +b(True),
        "clamp_none": lambda: T.clamp(f(1)),
        "where_float_condition": lambda: T.where(f(1), f(1), f(2)),
        "int_negative_power": lambda: i(1, 2) ** -1,
        "int_div_zero": lambda: i(1, 2) // 0,
        "int_remainder_zero": lambda: i(1, 2) % 0,
        "int_fmod_zero": lambda: T.fmod(i(1), 0),
        "bitwise_float": lambda: f(1) & f(1),
        "shift_float": lambda: f(1) << 1,
        "invert_float": lambda: ~f(1),
        "fill_vector": lambda: f(1, 2).fill_(f(1, 2)),
        "add_int_float_alpha": lambda: T.add(i(1), i(1), alpha=0.5),
        "addcdiv_int": lambda: T.addcdiv(i(1), i(1), i(1)),
        "isclose_dtypes": lambda: T.isclose(f(1), T.ones(1, dtype=T.float64)),
        "sign_complex": lambda: T.sign(T.ones(1, dtype=T.complex64)),
        "imag_real": lambda: T.imag(f(1)),
        "frexp_int": lambda: T.frexp(i(1)),
        "div_bad_mode": lambda: T.div(f(1), f(1), rounding_mode="round"),
        "abs_bool": lambda: T.abs(b(True)),
        "round_decimals_int": lambda: T.round(i(1), decimals=1),
        "logical_and_scalar": lambda: f(1).logical_and_(1.0),
    }


# torch's messages for the same calls, used when torch is not installed
EXPECTED = {
    "add": (RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    "inplace_broadcast": (RuntimeError, "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    "inplace_cast_mul": (RuntimeError, "result type Float can't be cast to the desired output type Long"),
}


@pytest.mark.parametrize("name", list(_errors(ndgrad)))
def test_error_matches_torch(name):
    with pytest.raises(Exception) as ours:
        _errors(ndgrad)[name]()
    if torch is None:
        if name in EXPECTED:
            kind, message = EXPECTED[name]
            assert isinstance(ours.value, kind) and str(ours.value) == message
        return
    with pytest.raises(Exception) as theirs:
        _errors(torch)[name]()
    assert isinstance(ours.value, type(theirs.value)) or type(theirs.value).__name__ == "TypeError" and \
        isinstance(ours.value, TypeError), (ours.value, theirs.value)
    if type(theirs.value) is not TypeError:   # torch's argument-parser TypeErrors list its overloads
        assert str(ours.value) == str(theirs.value)


def test_failed_inplace_leaves_tensor_unchanged():
    x = ndgrad.tensor([1, 2, 3])
    for bad in (lambda: x.mul_(1.5), lambda: x.sqrt_(), lambda: x.add_(ndgrad.ones(2, 3, dtype=ndgrad.int64))):
        with pytest.raises(RuntimeError):
            bad()
    assert x.tolist() == [1, 2, 3] and x._version == 0


def test_inplace_on_leaf_requiring_grad():
    x = leaf(ndgrad)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x += 1
    with ndgrad.no_grad():
        x += 1
    assert x.tolist() == [1.5, 2.5, 3.0]


def test_where_condition_only():
    c = ndgrad.tensor([[True, False], [False, True]])
    rows, cols = ndgrad.where(c)
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1] and rows.dtype == ndgrad.int64


def test_equal_and_allclose():
    a = ndgrad.tensor([1.0, 2.0])
    assert ndgrad.equal(a, a.clone()) is True
    assert ndgrad.equal(a, ndgrad.tensor([1.0])) is False
    assert ndgrad.allclose(a, a + 1e-9) is True and a.allclose(a + 1) is False


def test_double_backward_of_tanh_records_tanh_backward():
    x = leaf(ndgrad)
    (g,) = ndgrad.autograd.grad(x.tanh().sum(), x, create_graph=True)
    assert g.grad_fn.name() == "TanhBackwardBackward0"
    (gg,) = ndgrad.autograd.grad(g.sum(), x)
    t = np.tanh(x.detach().numpy())
    np.testing.assert_allclose(gg.numpy(), -2 * t * (1 - t * t), rtol=1e-12)


def test_no_numpy_warnings_in_plain_use():
    """log(0), 1/0, inf - inf: inf / nan as in torch, without NumPy's RuntimeWarnings (checked in a
    fresh interpreter: pytest resets warning filters set while it collects)."""
    import subprocess
    import sys
    code = ("import warnings, ndgrad as t\nwith warnings.catch_warnings(record=True) as w:\n"
            "    x = t.tensor([0.0, -1.0, float('inf')])\n"
            "    r = [t.log(x), x / 0, t.sqrt(x), x - x, t.exp(x * 1e3), t.polygamma(1, x)]\n"
            "print(len(w))")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.strip() == "0", out.stderr


# ---- true_divide: div's true division under its own schema (no rounding_mode) ------------------
@pytest.mark.parametrize("call, message", [
    (lambda T, x: T.true_divide(x, 2, rounding_mode="floor"),
     "true_divide() got an unexpected keyword argument 'rounding_mode'"),
    (lambda T, x: x.true_divide(2, rounding_mode="floor"),
     "true_divide() received an invalid combination of arguments - got (int, rounding_mode=str), but expected one "
     "of:\n * (Tensor other)\n * (Number other)\n"),
    (lambda T, x: x.true_divide_(2, rounding_mode="trunc"),
     "true_divide_() received an invalid combination of arguments - got (int, rounding_mode=str), but expected one "
     "of:\n * (Tensor other)\n * (Number other)\n"),
])
def test_true_divide_takes_no_rounding_mode(call, message):
    from parity import same_error
    assert same_error(lambda T: call(T, T.tensor([5.0, -3.0])), TypeError) == message


def test_true_divide_values_and_gradient():
    from parity import both

    def scenario(T):
        x = T.tensor([5.0, -3.0], dtype=T.float64, requires_grad=True)
        y = T.true_divide(x, T.tensor([2.0, 4.0], dtype=T.float64))
        y.sum().backward()
        z = x.detach().clone().true_divide_(2)
        return [y.detach(), x.grad, T.true_divide(T.tensor([5, 3]), 2), x.true_divide(other=4).detach(), z,
                y.grad_fn.name(), T.true_divide(10, x).detach()]
    y, grad, ints, by_four, inplace, name, number_dividend = both(scenario)
    np.testing.assert_array_equal(number_dividend, [2.0, -10 / 3])
    np.testing.assert_array_equal(y, [2.5, -0.75])
    np.testing.assert_array_equal(grad, [0.5, 0.25])
    np.testing.assert_array_equal(ints, np.array([2.5, 1.5], dtype=np.float32))
    np.testing.assert_array_equal(by_four, [1.25, -0.75])
    np.testing.assert_array_equal(inplace, [2.5, -1.5])
    assert name == "DivBackward0"


def test_logaddexp_of_complex_operands_values_gradients_and_tangents():
    from parity import both

    def scenario(T):
        a = T.tensor([1 + 2j, -0.5 + 1j], dtype=T.complex128, requires_grad=True)
        b = T.tensor([0.3 - 1j, 2 + 0.5j], dtype=T.complex128, requires_grad=True)
        y = T.logaddexp(a, b)
        y.abs().sum().backward()
        fw = T.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(a.detach(), T.tensor([0.5 - 1j, 2 + 0.1j], dtype=T.complex128))
            tangent = fw.unpack_dual(T.logaddexp(x, b.detach())).tangent
        return [y.detach(), a.grad, b.grad, tangent]
    value, *_ = both(scenario, rtol=1e-10)
    assert abs(value[0] - complex(np.log(np.exp(1 + 2j) + np.exp(0.3 - 1j)))) < 1e-12


def test_number_operands_keep_the_tensor_dtype_and_divide_as_torch():
    # a Python number never lifts a float32 tensor to float64 (xlogy's scipy kernel would), and a
    # number dividend divides as torch's parser allows it to (DivBackward0; rounding modes too)
    def scenario(T):
        x = T.tensor([1.5, 2.0], requires_grad=True)
        xl = [T.xlogy(x, 2), T.xlogy(2.5, x), T.special.xlogy(x, 2)]
        q = T.div(2, x)
        q.sum().backward()
        return ([str(t.dtype) for t in xl], q, q.grad_fn.name(), x.grad,
                T.div(7, T.tensor([2, 3]), rounding_mode="floor"), T.div(2.5, x, rounding_mode="trunc"))

    dtypes, q, name, grad, floor, trunc = both(scenario)
    assert dtypes == ["torch.float32"] * 3 and name == "DivBackward0"
    assert np.allclose(q, [2 / 1.5, 1.0]) and np.allclose(grad, [-2 / 1.5 ** 2, -0.5])
    assert list(floor) == [3, 2] and list(trunc) == [1.0, 1.0]


def test_division_of_two_numbers_gives_a_tensor_as_torch():
    # torch's parser lets numbers stand for the tensors of the division family (as for add/sub/mul)
    def scenario(T):
        return [T.div(2, 3), T.true_divide(2, 3), T.divide(7, -2, rounding_mode="floor"),
                T.div(7.5, 2, rounding_mode="trunc"), T.div(True, 2), T.div(1, 0), T.div(2, 3 + 1j)]
    out = both(scenario)
    assert [float(v) for v in out[:2]] == pytest.approx([2 / 3, 2 / 3]) and int(out[2]) == -4
    assert float(out[3]) == 3.0 and float(out[4]) == 0.5 and np.isinf(out[5]) and complex(out[6]) == pytest.approx(0.6 - 0.2j)


_EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 1e30, -3e12]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -1, -2, -0.5, 2.0, 3.0])
def test_powers_torch_computes_in_its_own_forms_give_torchs_bits(dtype, exponent):
    """x ** e for these Python-number exponents: torch's kernel multiplies, divides or square-roots
    (x * x * x, 1 / (x * x)...) rather than calling pow, and so does ndgrad: the same bits."""
    values = np.concatenate([np.linspace(-3.2, 3.2, 401), _EDGES]).astype(dtype)

    def scenario(T):
        return [(T.tensor(values) ** exponent).numpy().view(np.uint32 if dtype == "float32" else np.uint64)]
    both(scenario, rtol=0, atol=0)


@pytest.mark.parametrize("exponent", [4, 5, -3, 7, 16.0, -64])
def test_float32_integer_powers_are_correctly_rounded(exponent):
    """A float32 tensor to an integer power is x ** e computed in float64 (exact or nearly, for these
    exponents) and rounded once: at most half an ulp from the exact power, as torch's is within one."""
    x = np.concatenate([np.linspace(-3.2, 3.2, 401), _EDGES]).astype(np.float32)
    got = (ndgrad.tensor(x) ** exponent).numpy()
    with np.errstate(all="ignore"):
        exact = np.power(x.astype(np.float64), exponent).astype(np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, exact)
