"""gradcheck / gradgradcheck: analytical gradients against central finite differences.

The numerical Jacobian perturbs each input element by ±eps; the analytical one runs
`autograd.grad` once per output element. Both are compared elementwise with atol + rtol·|num|,
and a mismatch is reported with both Jacobians, as torch does.
"""
import numpy as np


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_inputs(inputs):
    from .._tensor import Tensor
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]


def _outputs(func, inputs):
    from .._tensor import Tensor
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o.dtype.is_floating_point | o.is_complex()]


def _numerical(func, inputs, idx, eps):
    from .grad_mode import no_grad
    with no_grad():
        base = [o._data.copy() for o in _outputs(func, inputs)]
        jac = [np.zeros((inputs[i]._data.size, o.size)) for i in idx for o in base]
        k = 0
        for i in idx:
            flat = inputs[i]._data.reshape(-1)  # a view for contiguous inputs
            if flat.size and not np.shares_memory(flat, inputs[i]._data):
                raise ValueError("gradcheck needs contiguous inputs")
            for e in range(flat.size):
                orig = flat[e]
                flat[e] = orig + eps
                plus = [o._data.copy() for o in _outputs(func, inputs)]
                flat[e] = orig - eps
                minus = [o._data.copy() for o in _outputs(func, inputs)]
                flat[e] = orig
                for j, (p, m) in enumerate(zip(plus, minus)):
                    jac[k + j][e] = ((p - m) / (2 * eps)).reshape(-1)
            k += len(base)
    return jac


def _analytical(func, inputs, idx):
    from .. import zeros_like
    from . import grad
    outs = _outputs(func, inputs)
    jac = [np.zeros((inputs[i]._data.size, o._data.size)) for i in idx for o in outs]
    for j, out in enumerate(outs):
        if not out.requires_grad:
            continue
        for e in range(out._data.size):
            g = zeros_like(out)
            g._data.reshape(-1)[e] = 1
            grads = grad([out], [inputs[i] for i in idx], [g], retain_graph=True, allow_unused=True)
            for k, gi in enumerate(grads):
                if gi is not None:
                    jac[k * len(outs) + j][:, e] = gi._data.reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """True if the analytical gradients of `func` at `inputs` match finite differences."""
    inputs = _as_tuple(inputs)
    idx = _diff_inputs(inputs)
    for i in idx:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision "
                          "floating point or complex.")
    if check_forward_ad:
        raise NotImplementedError("gradcheck(check_forward_ad=True) needs forward-mode AD, not implemented yet")
    num = _numerical(func, inputs, idx, eps)
    ana = _analytical(func, inputs, idx)
    n_out = len(num) // max(len(idx), 1)
    for k, (a, n) in enumerate(zip(ana, num)):
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            msg = (f"Jacobian mismatch for output {k % n_out} with respect to input {idx[k // n_out]},\n"
                   f"numerical:{n}\nanalytical:{a}\n")
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the gradients of `func` (computed with create_graph=True)."""
    from .. import Tensor, randn
    from . import grad
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = [randn(o.shape, dtype=o.dtype, requires_grad=True) for o in outs if o.requires_grad]
    grad_outputs = list(_as_tuple(grad_outputs))
    n_in = len(inputs)
    idx = _diff_inputs(inputs)

    def first_grads(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, ins) if o.requires_grad]
        gs = grad(outs, [ins[i] for i in idx], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if isinstance(g, Tensor))

    return gradcheck(first_grads, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
