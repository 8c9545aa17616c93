"""gradcheck / gradgradcheck: analytical derivatives against central finite differences, with
torch's options, checks and error messages.

Slow mode compares whole Jacobians, laid out as torch lays them out: one matrix per
(differentiable input, differentiable output), of shape (input numel, output numel). Row e of
the numerical one is (f(x + eps·e) - f(x - eps·e)) / 2eps; column j of the analytical one is the
vjp with the j-th basis vector (computed twice: backward must be deterministic within
nondet_tol). Fast mode (torch's random projections, pytorch issue 53876) compares the
scalars vᵀJu instead: the numerical jvp along a random unit u dotted with a random v, against
the vjp with v dotted with u; on a mismatch it recomputes the Jacobians in slow mode for the
message.

Complex values follow torch: complex outputs are checked as their real and imaginary parts
(two real functions); for a complex input x + iy the Jacobian entry is ds/dx + i·ds/dy, which
is what backward computes (the conjugate Wirtinger derivative, times 2).

Forward mode (check_forward_ad) uses autograd.forward_ad. The batched checks use
autograd.grad(is_grads_batched=True) (a loop of vjps in ndgrad), and they also check what
batching relies on: vjps linear in grad_output, jvps linear in the tangent.
"""
import functools
import warnings

import numpy as np

from .. import _dtype, _random
from ..ops._registry import OPS   # zeros_like: the registry's takes nested tensors too (ops/nested.py)
from ..ops.creation import tensor, zeros
from ..ops.random import rand, randn_like
from ..ops.shape import stack
from .._sparse_array import COO, SparseArray, sparse_bsc, sparse_bsr
from .._tensor import Size, Tensor, resolved_data
from . import engine, forward_ad
from .differentiate import grad
from .node import edge as _edge


class GradcheckError(RuntimeError):
    """The error :func:`gradcheck` and :func:`gradgradcheck` raise (with ``raise_exception=True``, the
    default) where an analytical gradient differs from the numerical one.

    Example::

        >>> class Wrong(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         return grad
        >>> x = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        >>> try:
        ...     torch.autograd.gradcheck(Wrong.apply, (x,))
        ... except RuntimeError as e:
        ...     print(type(e).__name__)
        GradcheckError
    """
    pass


FAILED_NONDET_MSG = """

NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()

UNDEFINED_MSG = ('Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"')


# ---- small helpers --------------------------------------------------------------------------
def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_float_or_complex(t):
    return isinstance(t, Tensor) and t._array.dtype.kind in "fc"


def _differentiable_outputs(out):
    return tuple(o for o in _as_tuple(out) if isinstance(o, Tensor) and o.requires_grad)


def _diff_inputs(inputs):
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _show(array):
    """An array as torch prints a tensor (the form torch's messages use)."""
    return tensor(array)


def _allclose(a, n, rtol, atol):
    return a.shape == n.shape and bool(np.all(np.abs(a - n) <= atol + rtol * np.abs(n)))


def _notallclose_msg(a, n, out_idx, in_idx, complex_indices, test_imag, forward=False):
    is_complex = complex_indices and (in_idx if forward else out_idx) in complex_indices
    prefix = ("" if not is_complex else
              f"While considering the {'imaginary' if test_imag else 'real'} part of complex "
              f"{'inputs' if forward else 'outputs'} only, ")
    mode = "computed with forward mode " if forward else ""
    return (prefix + f"Jacobian {mode}mismatch for output {out_idx:d} with respect to input {in_idx:d},\n"
            f"numerical:{_show(n)}\nanalytical:{_show(a)}\n")


# ---- sparse inputs: finite differences move their stored values -------------------------------
def _value_positions(data):
    """The flat dense index of every element of a sparse array's values (in the values' order)."""
    if isinstance(data, COO):
        per_entry = int(np.prod(data.values.shape[1:], dtype=np.int64))
        return (data._keys()[:, None] * per_entry + np.arange(per_entry)).reshape(data.values.shape)
    return np.ravel_multi_index(tuple(data.element_indices()), data.shape).reshape(data.values.shape)


def _perturbed(t):
    """(the array finite differences move, the dense flat position of each of its elements or None)."""
    data = t._array
    if isinstance(data, SparseArray):
        return data.values, _value_positions(data)
    return data, None


def _dense(t):
    """t's values as a dense array (a sparse gradient is compared densely)."""
    return t._array.to_dense() if isinstance(t._array, SparseArray) else t._array


def _densify(inputs):
    """Sparse inputs with every element stored (the unspecified ones as stored zeros): without
    `masked`, gradcheck differentiates with respect to all elements, not the pattern only."""
    out = list(inputs)
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and isinstance(t._array, SparseArray) and t.requires_grad:
            data = t._array
            blocksize = data.values.shape[1:3] if t.layout in (sparse_bsr, sparse_bsc) else None
            ones = Tensor._make(np.ones(data.shape, data.values.dtype), False, None, 0)
            full = ones.to_sparse(layout=t.layout, blocksize=blocksize)._array
            values = data.to_dense().reshape(-1)[_value_positions(full)]
            out[i] = Tensor._make(full._replace(values), True, None, 0)
    return tuple(out)


def _onto(u, positions, dense_positions, numel):
    """Direction u (on the elements at `positions`) as a direction on the elements at `dense_positions`."""
    if isinstance(u, tuple):
        return tuple(_onto(part, positions, dense_positions, numel) for part in u)
    slot = np.empty(numel, np.int64)
    slot[dense_positions.reshape(-1)] = np.arange(dense_positions.size)
    out = np.zeros(dense_positions.size, u.dtype)
    np.add.at(out, slot[positions.reshape(-1)], u)
    return out


def _check_inputs(inputs):
    any_grad = False
    for idx, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.requires_grad:
            if t.dtype.name not in ("float64", "complex128"):
                warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point or "
                              "complex. This check will likely fail if all the inputs are not of double precision "
                              "floating point or complex. ", stacklevel=3)
            if t._array.size and any(st == 0 and sz > 1 for st, sz in zip(t._array.strides, t._array.shape)):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs "
                                   "that are non-overlapping to be able to compute the numerical gradients "
                                   "correctly. You should call .contiguous on the input before passing it to "
                                   "gradcheck.")
            any_grad = True
    if not any_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


# ---- numerical derivatives ------------------------------------------------------------------
def _outputs_now(func, inputs):
    """The float/complex outputs of func(*inputs), as arrays. Grad mode stays on: func may
    itself differentiate (gradgradcheck's func calls autograd.grad)."""
    return [o._array.copy() for o in _as_tuple(func(*inputs)) if _is_float_or_complex(o)]


def _central_difference(func, inputs, data, where, delta, eps):
    """(f(x + delta) - f(x - delta)) / 2eps per output, flat, moving data[where] (an element, or all: ...)."""
    orig = np.copy(data[where])
    data[where] = orig + delta
    plus = _outputs_now(func, inputs)
    data[where] = orig - delta
    minus = _outputs_now(func, inputs)
    data[where] = orig
    for m, p in zip(minus, plus):
        # a difference quotient means nothing if the outputs changed form between the two points
        for what, a, b in (("shape", Size(m.shape), Size(p.shape)), ("dtype", m.dtype, p.dtype)):
            if a != b:
                at = "" if where is Ellipsis else f" on index {where}"
                if what == "dtype":
                    a, b = _dtype.from_numpy_dtype(a), _dtype.from_numpy_dtype(b)
                raise AssertionError(f"Expected `func` to return outputs with the same {what} when inputs are "
                                     f"perturbed{at} by {eps}, but got: {what}s {a} and {b}.")
    return [((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus)]


def _wirtinger(func, inputs, data, where, dx, dy, eps):
    """The derivative along dx (and, for a complex input, ds/dx + i ds/dy with dy on the imaginary part)."""
    d = _central_difference(func, inputs, data, where, dx, eps)
    if data.dtype.kind == "c":
        d = [a + 1j * b for a, b in zip(d, _central_difference(func, inputs, data, where, dy * 1j, eps))]
    return d


def _numerical_jacobian(func, inputs, eps, targets=None):
    """jac[k][o]: (numel of the k-th differentiable input (or of targets), numel of float output o)."""
    sizes = [o.size for o in _outputs_now(func, inputs)]
    jacobians = []
    for _, t in _diff_inputs(inputs if targets is None else targets):
        data, positions = _perturbed(t)
        columns = [_wirtinger(func, inputs, data, idx, eps, eps, eps) for idx in np.ndindex(*data.shape)]
        per_output = [np.array([c[o] for c in columns]).reshape(data.size, n) for o, n in enumerate(sizes)]
        if positions is not None:   # rows of the stored values, placed at their dense positions
            per_output = [_scatter_rows(j, positions.reshape(-1), t.numel()) for j in per_output]
        jacobians.append(per_output)
    return jacobians


def _scatter_rows(rows, positions, numel):
    full = np.zeros((numel, rows.shape[1]), rows.dtype)
    np.add.at(full, positions, rows)
    return full


def _numerical_jvp(func, inputs, data, u, eps):
    """The derivative along the unit vector u (a (real, imag) pair of them for a complex input)."""
    ur, ui = u if isinstance(u, tuple) else (u, u)
    return _wirtinger(func, inputs, data, Ellipsis, eps * ur.reshape(data.shape), eps * ui.reshape(data.shape), eps)


# ---- analytical derivatives -----------------------------------------------------------------
def _vjp(output, diff_inputs, v):
    """Gradients of <v, output> for each input (arrays; None where unused)."""
    # a fresh array each call: a gradient may be handed back as it came (add's is grad itself)
    g = Tensor._make(np.array(v, dtype=output._array.dtype).reshape(output._array.shape), False, None, 0)
    return list(grad([output], diff_inputs, [g], retain_graph=True, allow_unused=True))


def _stack(rows_per_input, diff_inputs, n_rows):
    """Jacobians (input numel, n_rows) from vjp rows, with whether dtypes and sizes matched."""
    jacobians, types_ok, sizes_ok = [], True, True
    for rows, t in zip(rows_per_input, diff_inputs):
        dtype = np.result_type(t._array.dtype, *[r._array.dtype for r in rows if r is not None])
        jac = np.zeros((t._array.size, n_rows), dtype=dtype)
        for j, r in enumerate(rows):
            if r is None:
                continue
            if r._array.dtype != t._array.dtype:
                types_ok = False
            if r._array.size != t._array.size:
                sizes_ok = False
                continue
            jac[:, j] = _dense(r).reshape(-1)
        jacobians.append(jac)
    return jacobians, types_ok, sizes_ok


def _analytical_jacobian(diff_inputs, output, nondet_tol, check_grad_dtypes, v=None):
    """Rows for every basis vector of the output (or for the one vector v in fast mode), twice."""
    jac1, reentrant, sizes_ok, types_ok = _analytical_jacobian_checked(diff_inputs, output, nondet_tol, v)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                             "multiple times gives different values, although analytical gradient matches numerical "
                             f"gradient.The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return jac1


def _analytical_jacobian_checked(diff_inputs, output, nondet_tol, v=None):
    """(Jacobians, reentrant, sizes_ok, types_ok): the rows computed twice, and what went wrong."""
    def rows():
        if v is not None:
            return [[g] for g in _vjp(output, diff_inputs, v)]
        per_input = [[] for _ in diff_inputs]
        basis = np.zeros(output._array.size)
        for j in range(output._array.size):
            basis[j] = 1
            for k, g in enumerate(_vjp(output, diff_inputs, basis)):
                per_input[k].append(g)
            basis[j] = 0
        return per_input
    n_rows = 1 if v is not None else output._array.size
    jac1, types_ok, sizes_ok = _stack(rows(), diff_inputs, n_rows)
    jac2, _, _ = _stack(rows(), diff_inputs, n_rows)
    reentrant = all(a.shape == b.shape and np.all(np.abs(a - b) <= nondet_tol) for a, b in zip(jac1, jac2))
    return jac1, reentrant, sizes_ok, types_ok


def _forward_jacobian(func, inputs, check_grad_dtypes, all_u=None):
    """jac[k][o] by forward mode: one jvp per input element (or per direction u in fast mode)."""
    fw = forward_ad
    diff = _diff_inputs(inputs)
    jacobians = []
    with fw.dual_level():
        duals = list(inputs)
        tangents = []
        for i, t in diff:
            duals[i] = fw.make_dual(t.detach(), OPS["zeros_like"](t))
            tangents.append(fw.unpack_dual(duals[i]).tangent)
        for k, tangent in enumerate(tangents):
            directions = [all_u[k]] if all_u is not None else range(tangent.numel())
            columns = []
            for d in directions:
                flat = tangent._array.reshape(-1)
                if all_u is not None:
                    flat[:] = d
                else:
                    flat[d] = 1
                cols = []
                for o in _as_tuple(func(*duals)):
                    if not _is_float_or_complex(o):
                        continue
                    primal, res = fw.unpack_dual(o)
                    if check_grad_dtypes and res is not None and primal.is_complex() != res.is_complex():
                        raise GradcheckError("Forward AD gradient has dtype mismatch.")
                    cols.append(np.zeros(primal.numel(), dtype=primal._array.dtype) if res is None
                                else res._array.reshape(-1).copy())
                columns.append(cols)
                flat[:] = 0
            if not columns:   # an input without elements: empty Jacobians, one per float output
                jacobians.append([np.zeros((0, o.numel()), dtype=o._array.dtype)
                                  for o in _as_tuple(func(*duals)) if _is_float_or_complex(o)])
                continue
            jacobians.append([np.array([c[o] for c in columns]).reshape(len(columns), -1)
                              for o in range(len(columns[0]))])
    return jacobians


# ---- the checks -----------------------------------------------------------------------------
def _slow_check(func, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, *, forward=False,
                complex_indices=None, test_imag=False, masked=True):
    func_out = _as_tuple(func(*inputs))
    numerical = _numerical_jacobian(func, inputs if masked else _densify(inputs), eps)
    if not outputs:
        _check_zero(numerical)
        return
    floats = [o for o in func_out if _is_float_or_complex(o)]
    keep = [k for k, o in enumerate(floats) if o.requires_grad]
    diff = [t for _, t in _diff_inputs(inputs)]
    if forward:
        analytical = _forward_jacobian(func, inputs, check_grad_dtypes)
        for k, per_input in enumerate(numerical):
            for out_pos, o in enumerate(keep):
                a, n = analytical[k][o], per_input[o]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_notallclose_msg(a, n, out_pos, k, complex_indices, test_imag, True))
        return
    for out_pos, (o, output) in enumerate(zip(keep, outputs)):
        analytical = _analytical_jacobian(diff, output, nondet_tol, check_grad_dtypes)
        for k, a in enumerate(analytical):
            n = numerical[k][o]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, out_pos, k, complex_indices, test_imag))


def _check_zero(numerical):
    for per_input in numerical:
        for jac in per_input:
            if np.any(jac != 0):
                raise GradcheckError("Numerical gradient for function expected to be zero")


def _unit_vector(rng, n):
    v = rng.random(n)
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def _direction(gen, n, dtype):
    """torch's fast-mode direction: n uniform draws of the default dtype, cast to `dtype`, normalised."""
    v = rand(n, generator=gen)._array.astype(dtype)
    norm = np.linalg.norm(v)
    return v / norm if norm else v


def _fast_check(func, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, *, forward=False,
                complex_indices=None, test_imag=False, masked=True):
    # a fresh generator (the user's random state is left alone) at torch's default seed, drawing in
    # torch's order (each input's u, its imaginary part's after it, then each output's v): the
    # directions are torch's, so fast mode passes or fails where torch's does
    gen = _random.Generator()
    diff = _diff_inputs(inputs)
    # sparse inputs: the directions move their stored values
    moved = [_perturbed(t) for _, t in diff]
    real = [np.empty(0, data.dtype).real.dtype for data, _ in moved]
    all_u = [(_direction(gen, data.size, r), _direction(gen, data.size, r)) if t.is_complex()
             else _direction(gen, data.size, r) for (_, t), (data, _), r in zip(diff, moved, real)]
    num_inputs = inputs
    if not masked and any(pos is not None for _, pos in moved):
        # as torch's: the directions are drawn on the stored elements, then laid on the densified input
        num_inputs = _densify(inputs)
        dense_moved = [_perturbed(t) for _, t in _diff_inputs(num_inputs)]
        all_u = [u if pos is None else _onto(u, pos, dense_pos, t.numel())
                 for u, (_, pos), (_, dense_pos), (_, t) in zip(all_u, moved, dense_moved, diff)]
        moved = dense_moved
    floats = [o for o in _as_tuple(func(*inputs)) if _is_float_or_complex(o)]
    keep = [k for k, o in enumerate(floats) if o.requires_grad]
    all_v = None if forward else [_direction(gen, o.numel(), o._array.dtype) for o in outputs]
    numerical = [_numerical_jvp(func, num_inputs, data, u, eps) for (data, _), u in zip(moved, all_u)]
    if not outputs and not forward:
        if any(np.any(d != 0) for per_input in numerical for d in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    if forward:
        analytical = _forward_jacobian(func, inputs, check_grad_dtypes, all_u)   # real inputs: split before
    for k, ((_, t), u) in enumerate(zip(diff, all_u)):
        for out_pos, o in enumerate(keep):
            if forward:
                a, n = analytical[k][o].reshape(-1), numerical[k][o]
                v_sum = 1.0
            else:
                vJ = _analytical_jacobian([t for _, t in diff], outputs[out_pos], nondet_tol, check_grad_dtypes,
                                          all_v[out_pos])[k][:, 0]
                if moved[k][1] is not None:
                    vJ = vJ[moved[k][1].reshape(-1)]
                if isinstance(u, tuple):
                    a = np.array(vJ.real @ u[0] + 1j * (vJ.imag @ u[1]))
                else:
                    a = np.array(vJ @ u)
                n = np.array(all_v[out_pos] @ numerical[k][o])
                v_sum = all_v[out_pos].sum()
            u_sum = u[0].sum() + u[1].sum() if isinstance(u, tuple) else u.sum()
            if not _allclose(a, n, rtol, atol * float(u_sum) * float(v_sum)):
                raise GradcheckError(_notallclose_msg(a, n, out_pos, k, complex_indices, test_imag, forward) +
                                     _slow_mode_report(func, inputs, k, o, out_pos, rtol, atol, eps, forward))


def _slow_mode_report(func, inputs, k, o, out_pos, rtol, atol, eps, forward):
    """The Jacobians of the failing pair, recomputed in slow mode, for the fast-mode message."""
    n = _numerical_jacobian(func, inputs, eps)[k][o]
    if forward:
        a = _forward_jacobian(func, inputs, False)[k][o]
    else:
        out = _differentiable_outputs(func(*inputs))[out_pos]
        a = _analytical_jacobian([t for _, t in _diff_inputs(inputs)], out, np.inf, False)[k]
    max_diff = np.abs(n - a).max() if n.size else 0.0
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed \n"
           "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
           "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
           f"Numerical:\n {_show(n)}\nAnalytical:\n{_show(a)}\n\n"
           f"The max per-element difference (slow mode) is: {_show(np.asarray(max_diff))}.\n")
    if _allclose(a, n, rtol, atol):
        msg += FAST_FAIL_SLOW_OK_MSG
    return msg


def _split_complex_outputs(func):
    def part(which):
        def wrapped(*inputs):
            return tuple(getattr(o, which) if isinstance(o, Tensor) and o.is_complex() else o
                         for o in _as_tuple(func(*inputs)))
        return wrapped
    return part("real"), part("imag")


def _split_complex_inputs(func, complex_idx, inputs):
    """(x -> f(x + i·y0), y -> f(x0 + i·y)): complex inputs as two real ones (for forward mode)."""
    def real_fn(*args):
        args = list(args)
        for i in complex_idx:
            args[i] = args[i] + inputs[i].imag.detach() * 1j
        return _as_tuple(func(*args))

    def imag_fn(*args):
        args = list(args)
        for i in complex_idx:
            args[i] = inputs[i].real.detach() + args[i] * 1j
        return _as_tuple(func(*args))
    return real_fn, imag_fn


def _part_inputs(inputs, complex_idx, which):
    return [getattr(t, which).detach().requires_grad_(t.requires_grad) if i in complex_idx else t
            for i, t in enumerate(inputs)]


def _check_real_imag(check, func, inputs, outputs, eps, rtol, atol, check_grad_dtypes, check_forward_ad,
                     check_backward_ad, nondet_tol, check_undefined_grad=False):
    args = (eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if check_backward_ad:
        complex_out = [i for i, o in enumerate(outputs) if o.is_complex()]
        if any(_is_float_or_complex(o) and o.is_complex() for o in _as_tuple(func(*inputs))):
            real_fn, imag_fn = _split_complex_outputs(func)
            check(imag_fn, inputs, _differentiable_outputs(imag_fn(*inputs)), *args, complex_indices=complex_out,
                  test_imag=True)
            check(real_fn, inputs, _differentiable_outputs(real_fn(*inputs)), *args, complex_indices=complex_out)
        else:
            check(func, inputs, outputs, *args)
    if check_forward_ad:
        complex_in = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.is_complex()]
        if complex_in:
            real_fn, imag_fn = _split_complex_inputs(func, complex_in, inputs)
            imag_inputs = _part_inputs(inputs, complex_in, "imag")
            check(imag_fn, imag_inputs, _differentiable_outputs(imag_fn(*imag_inputs)), *args, forward=True,
                  complex_indices=complex_in, test_imag=True)
            real_inputs = _part_inputs(inputs, complex_in, "real")
            check(real_fn, real_inputs, _differentiable_outputs(real_fn(*real_inputs)), *args, forward=True,
                  complex_indices=complex_in)
            if check_undefined_grad:
                _test_undefined_forward_mode(imag_fn, imag_inputs)
                _test_undefined_forward_mode(real_fn, real_inputs)
        else:
            check(func, inputs, outputs, *args, forward=True)
            if check_undefined_grad:
                _test_undefined_forward_mode(func, inputs)


def _test_undefined_forward_mode(func, inputs):
    """An input without tangent must act as one with a zero tangent: for each differentiable input
    in turn (the others carrying random tangents), the output tangents must agree both ways."""
    rng = np.random.default_rng(2)
    diff = _diff_inputs(inputs)
    with forward_ad.dual_level():
        duals = list(inputs)
        for i, t in diff:
            u = Tensor._make(_unit_vector(rng, t.numel()).reshape(t._array.shape).astype(t._array.dtype), False, None, 0)
            duals[i] = forward_ad.make_dual(t.detach(), u)
        for i, t in diff:
            dual = duals[i]
            duals[i] = forward_ad.make_dual(t.detach(), OPS["zeros_like"](t))
            zero_tangent = [o for o in _as_tuple(func(*duals)) if _is_float_or_complex(o)]
            duals[i] = t.detach()
            no_tangent = [o for o in _as_tuple(func(*duals)) if _is_float_or_complex(o)]
            duals[i] = dual
            for k, (o1, o2) in enumerate(zip(zero_tangent, no_tangent)):
                t1, t2 = forward_ad.unpack_dual(o1).tangent, forward_ad.unpack_dual(o2).tangent
                if t1 is not None and t2 is not None and not np.allclose(t1._array, t2._array):
                    raise GradcheckError(f"Mismatch in tangent values for output with index: {k} when input: {t} has "
                                         f"an undefined tangent value. Got: {t1} but expected: {t2}")


def _test_backward_mul_by_grad_output(outputs, inputs):
    diff = [t for _, t in _diff_inputs(inputs)]
    grads = grad(outputs, diff, [OPS["zeros_like"](o) for o in outputs], allow_unused=True, retain_graph=True)
    for gi, di in zip(grads, diff):
        if gi is None:
            continue
        if isinstance(gi._array, SparseArray):
            if gi.layout != di.layout:
                raise GradcheckError(f"grad is incorrect layout ({gi.layout} is not {di.layout})")
            kind = str(gi.layout).replace("torch.", "").replace("_coo", "")
            for what in ("sparse_dim", "dense_dim"):
                got, expected = getattr(gi, what)(), getattr(di, what)()
                if got != expected:
                    raise GradcheckError(f"grad is {kind} tensor, but has incorrect {what} {got}, expected {expected}")
        if np.any(_dense(gi) != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._array.dtype != di._array.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi._array.shape != di._array.shape:
            raise GradcheckError("grad is incorrect size")


def _test_undefined_backward(func, inputs):
    """Backward must accept undefined (absent) output gradients and treat them as zeros."""
    diff = [t for _, t in _diff_inputs(inputs)]
    n_out = len(_differentiable_outputs(func(*inputs)))
    cases = [None] + (list(range(n_out)) if n_out > 1 else [])   # all undefined, then one at a time
    for undefined in cases:
        outs = _differentiable_outputs(func(*inputs))
        grads = [None if undefined is None or k == undefined else OPS["zeros_like"](o) for k, o in enumerate(outs)]
        try:
            result = engine.run_backward([_edge(o) for o in outs], grads, inputs=[_edge(t) for t in diff],
                                         retain_graph=True)
        except RuntimeError as e:
            _warn_undefined()
            raise GradcheckError("Expected backward function to handle undefined output grads. " + UNDEFINED_MSG) from e
        for gi in result:
            if gi is not None and np.any(_dense(gi) != 0):
                _warn_undefined()
                raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                     "undefined or zero. " + UNDEFINED_MSG)


def _warn_undefined():
    warnings.warn('Backwards compatibility: New undefined gradient support checking feature is enabled by default, '
                  'but it may break existing callers of this function. If this is true for you, you can call this '
                  'function with "check_undefined_grad=False" to disable the feature', stacklevel=4)


FAILED_BATCHED_GRAD_MSG = """
gradcheck or gradgradcheck failed while testing batched gradient computation.
This could have been invoked in a number of ways (via a test that calls
gradcheck/gradgradcheck directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_grad=False` and/or `check_batched_gradgrad=False`.
""".strip()


def _vjp_of(inputs, output):
    """v -> the gradients of `output` (given v) for each differentiable input (zeros where unused)."""
    diff = [t for _, t in _diff_inputs(inputs)]

    def vjp(v):
        gs = grad([output], diff, [v], retain_graph=True, allow_unused=True)
        return [g if g is not None else zeros(t.shape, dtype=t.dtype) for g, t in zip(gs, diff)]
    return diff, vjp


def _test_batched_grad(inputs, output, output_idx):
    """vjps of a batch of two grad_outputs against one vjp each."""
    diff, vjp = _vjp_of(inputs, output)
    g1, g2 = randn_like(output), randn_like(output)
    try:
        # stacking the one-at-a-time vjps is part of batching them (it fails for sparse gradients)
        expected = [stack(pair) for pair in zip(vjp(g1), vjp(g2))]
        gs = grad([output], diff, [stack([g1, g2])], retain_graph=True, allow_unused=True, is_grads_batched=True)
        result = [g if g is not None else zeros((2,) + tuple(t.shape), dtype=t.dtype) for g, t in zip(gs, diff)]
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n{FAILED_BATCHED_GRAD_MSG}") from ex
    _compare_batched(result, expected, output_idx)


def _test_linear_in_grad_output(inputs, output, output_idx):
    """ndgrad batches grad_outputs with a loop of vjps, so with check_batched_grad it also checks
    what batching relies on: backward is linear in grad_output (vjp(g1/2) + vjp(g2/2) is the mean
    of vjp(g1) and vjp(g2)). Run after torch's own checks, whose errors come first."""
    _, vjp = _vjp_of(inputs, output)
    g1, g2 = randn_like(output), randn_like(output)
    halves = [a + b for a, b in zip(*[vjp(g) for g in (g1 * 0.5, g2 * 0.5)])]
    _compare_batched(halves, [(a + b) * 0.5 for a, b in zip(vjp(g1), vjp(g2))], output_idx)


def _compare_batched(result, expected, output_idx):
    for input_idx, (res, exp) in enumerate(zip(result, expected)):
        if not np.allclose(res._array, exp._array, rtol=1e-5, atol=1e-8):
            raise GradcheckError(f"For output {output_idx} and input {input_idx}:\n\n{FAILED_BATCHED_GRAD_MSG}\n\n"
                                 f"Got:\n{res}\n\nExpected:\n{exp}")


FAILED_BATCHED_GRAD_MSG_FWD_AD = """
gradcheck failed while testing batched gradient computation with forward-mode AD.
This test is enabled automatically when both `check_batched_grad=True`
and `check_forward_ad=True`, but can be disabled in the following ways
dependong on how the test was invoked (via a test that calls gradcheck
directly or via an autogenerated test).

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `check_batched_forward_grad=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `check_batched_forward_grad=False`
"""


def _refuse_draw_in_vmap():
    raise RuntimeError("vmap: We do not yet support calling random operations inside of vmap. Please perform "
                       "random operations outside of vmap as a workaround")


def _test_batched_forward_grad(func, inputs):
    """Without vmap: jvps must be linear in the tangent, which batching them relies on."""
    if any(t.is_complex() for _, t in _diff_inputs(inputs)):
        return   # forward mode checks complex inputs through their real and imaginary parts
    rng = np.random.default_rng(1)
    u1, u2 = ([rng.standard_normal(t.numel()) for _, t in _diff_inputs(inputs)] for _ in range(2))
    j1, j2 = (_forward_jacobian(func, inputs, False, u) for u in (u1, u2))
    # the batched jvp: torch runs it under vmap, which refuses random operations
    prev, _random.draw_check = _random.draw_check, _refuse_draw_in_vmap
    try:
        j12 = _forward_jacobian(func, inputs, False, [a + b for a, b in zip(u1, u2)])
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n{FAILED_BATCHED_GRAD_MSG_FWD_AD}") from ex
    finally:
        _random.draw_check = prev
    for input_idx, (a, b, ab) in enumerate(zip(j1, j2, j12)):
        for output_idx, (x, y, xy) in enumerate(zip(a, b, ab)):
            if not np.allclose(xy, x + y, rtol=1e-5, atol=1e-8):
                raise GradcheckError(f"For output {output_idx} and input {input_idx}:\n\n"
                                     f"{FAILED_BATCHED_GRAD_MSG_FWD_AD.strip()}\n\nGot:\n{_show(xy)}\n\n"
                                     f"Expected:\n{_show(x + y)}")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """Check the derivatives of `func` at `inputs` against finite differences.

    The Jacobian computed by backward (and, with `check_forward_ad`, by forward-mode AD) is compared
    with central differences of step `eps`; they must agree within ``atol + rtol * |numerical|``.
    Use double precision inputs: single precision is too coarse for the default tolerances.

    Args:
        func (callable): a function of tensors returning a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensors): the point of evaluation; the derivatives are checked
            with respect to those that require grad.
        eps (float, optional): the finite difference step. Default: 1e-6.
        atol (float, optional): the absolute tolerance. Default: 1e-5.
        rtol (float, optional): the relative tolerance. Default: 1e-3.
        raise_exception (bool, optional): raise ``GradcheckError`` with the two Jacobians on a
            mismatch, rather than return False. Default: True.
        nondet_tol (float, optional): how much two backward passes may differ. Default: 0.0.
        check_undefined_grad (bool, optional): also check that backward accepts undefined
            (None) output gradients. Default: True.
        check_batched_grad (bool, optional): also check gradients computed under vmap.
            Default: False.
        check_forward_ad (bool, optional): also check forward-mode AD. Default: False.
        check_backward_ad (bool, optional): check backward (reverse mode). Default: True.
        fast_mode (bool, optional): compare random projections of the Jacobians instead of the full
            matrices (faster, for large inputs). Default: False.

    Returns:
        bool: True if all checks pass.

    Example::

        >>> x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradcheck(torch.sin, (x,))
        True
        >>> torch.autograd.gradcheck(lambda t: t.detach() * t, (x,), raise_exception=False)
        False
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    try:
        _gradcheck(func, _as_tuple(inputs), eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                   check_batched_grad, check_batched_forward_grad, check_forward_ad, check_backward_ad, fast_mode,
                   bool(masked))
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _without_math_bits(func, inputs):
    """Finite differences move and read arrays as stored: lazy conjugate/negative views (torch's conj
    and neg bits) are checked through their values, inputs as leaves of their own, outputs resolved."""
    inputs = tuple(Tensor._make(resolved_data(t).copy(), t.requires_grad, None, 0)
                   if isinstance(t, Tensor) and t._math_bits else t for t in inputs)

    def resolved(*args):
        out = func(*args)
        if isinstance(out, Tensor):
            return out.resolve_conj().resolve_neg()
        if isinstance(out, (tuple, list)) and any(isinstance(o, Tensor) and o._math_bits for o in out):
            return tuple(o.resolve_conj().resolve_neg() if isinstance(o, Tensor) else o for o in out)
        return out   # (as it is otherwise: a named tuple of results keeps its type)
    return resolved, inputs


def _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
               check_batched_grad, check_batched_forward_grad, check_forward_ad, check_backward_ad, fast_mode, masked):
    _check_inputs(inputs)
    func, inputs = _without_math_bits(func, inputs)
    outputs = _differentiable_outputs(func(*inputs))
    check = functools.partial(_fast_check if fast_mode else _slow_check, masked=masked)
    _check_real_imag(check, func, inputs, outputs, eps, rtol, atol, check_grad_dtypes, check_forward_ad,
                     check_backward_ad, nondet_tol, check_undefined_grad)
    if check_batched_forward_grad:
        _test_batched_forward_grad(func, inputs)
    if not check_backward_ad:
        return
    if check_batched_grad:
        for i, o in enumerate(outputs):
            _test_batched_grad(inputs, o, i)
    if not outputs:
        return
    _test_backward_mul_by_grad_output(outputs, inputs)
    if check_batched_grad:
        for i, o in enumerate(outputs):
            _test_linear_in_grad_output(inputs, o, i)
    if check_undefined_grad:
        _test_undefined_backward(func, inputs)


def _random_grad_outputs(outputs, noncontiguous):
    """Uniform in [-1, 1) like torch.testing.make_tensor, from a private generator."""
    rng = np.random.default_rng(0)
    result = []
    for o in outputs:
        dtype = o._array.dtype if o._array.dtype.kind in "fc" else np.dtype(np.float64)
        data = rng.uniform(-1, 1, o._array.shape)
        if dtype.kind == "c":
            data = data + 1j * rng.uniform(-1, 1, o._array.shape)
        data = data.astype(dtype)
        if noncontiguous and data.size > 1:   # every other element of a buffer twice as long
            buf = np.empty(data.shape + (2,), dtype)
            buf[..., 0] = data
            data = buf[..., 0]
        result.append(Tensor._make(data, True, None, 0))
    return tuple(result)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False):
    """Check the second derivatives of `func` at `inputs` against finite differences.

    It runs :func:`gradcheck` on the function that computes the gradients of `func` (with
    ``create_graph=True``) with respect to `inputs` and `grad_outputs`, checking the
    differentiability of the backward itself.

    Args:
        func (callable): a function of tensors returning a tensor or a tuple of tensors.
        inputs (Tensor or tuple of Tensors): the point of evaluation.
        grad_outputs (Tensor or tuple of Tensors, optional): the gradients of the outputs; random
            ones (requiring grad) when not given.
        eps, atol, rtol, raise_exception, nondet_tol: as in :func:`gradcheck`.
        check_undefined_grad, check_batched_grad, fast_mode: as in :func:`gradcheck`.
        gen_non_contig_grad_outputs (bool, optional): make the random `grad_outputs`
            non-contiguous. Default: False.
        check_fwd_over_rev (bool, optional): also check forward-over-reverse second derivatives.
            Default: False.
        check_rev_over_rev (bool, optional): check reverse-over-reverse second derivatives.
            Default: True.

    Returns:
        bool: True if all checks pass.

    Example::

        >>> x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradgradcheck(torch.sin, (x,))
        True
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = _random_grad_outputs(_differentiable_outputs(func(*inputs)), gen_non_contig_grad_outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_idx = {i for i, t in _diff_inputs(inputs)}
    diff_go_idx = {i for i, g in enumerate(grad_outputs) if g.requires_grad}

    def first_grads(*args):
        ins = tuple(x.requires_grad_() if i in diff_idx else x for i, x in enumerate(args[:-n_out]))
        outs = _differentiable_outputs(func(*ins))
        gos = tuple(x.requires_grad_() if i in diff_go_idx else x for i, x in enumerate(args[-n_out:]))
        gs = grad(outs, [ins[i] for i in sorted(diff_idx)], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)


# ---- the deprecated public helpers torch still exports ----------------------------------------
_DEPRECATED = ("`{}` was part of PyTorch's private API and not meant to be exposed. We are deprecating it and it will "
               "be removed in a future version of PyTorch. If you have a specific use for this or feature request for "
               "this to be a stable API, please file us an issue at https://github.com/pytorch/pytorch/issues/new")


def _refuse_grad_out(name, grad_out):
    if grad_out != 1.0:   # only kept in the signature for old callers
        raise ValueError(f"Expected grad_out to be 1.0. {name} no longer supports values of grad_out != 1.0.")


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated: the finite-difference Jacobians of fn(inputs)'s first output with respect to
    each input (or `target`) that requires grad, each of shape (input numel, output numel)."""
    warnings.warn(_DEPRECATED.format("get_numerical_jacobian"), FutureWarning, stacklevel=2)
    _refuse_grad_out("get_numerical_jacobian", grad_out)
    inputs = _as_tuple(inputs)
    jacobians = _numerical_jacobian(lambda *xs: fn(xs), inputs, eps, None if target is None else _as_tuple(target))
    return tuple(tensor(per_output[0]) for per_output in jacobians)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated: (Jacobians of `output` by backward for each input that requires grad,
    whether backward is reentrant within nondet_tol, whether the gradients' sizes and dtypes were right)."""
    warnings.warn(_DEPRECATED.format("get_analytical_jacobian"), FutureWarning, stacklevel=2)
    _refuse_grad_out("get_analytical_jacobian", grad_out)
    if output.is_complex():
        raise ValueError("Expected output to be non-complex. get_analytical_jacobian no longer supports functions "
                         "that return complex outputs.")
    diff = [t for _, t in _diff_inputs(_as_tuple(inputs))]
    jacobians, reentrant, sizes_ok, types_ok = _analytical_jacobian_checked(diff, output, nondet_tol)
    return tuple(tensor(j) for j in jacobians), reentrant, sizes_ok, types_ok
