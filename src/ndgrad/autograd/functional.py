"""ndgrad.autograd.functional: Jacobians, Hessians and their products with vectors.

All of them run the user's function once on fresh copies of the inputs and differentiate with
`autograd.grad` (reverse mode), as torch.autograd.functional does:
- `inputs` (and `v`) are a Tensor or a tuple of Tensors; results use the same structure (a tuple
  exactly when a tuple was given), and jacobian / hessian nest two levels (output, then input).
- The copies require grad; with create_graph=True they stay connected to the caller's tensors so
  the results can be differentiated again, otherwise results are detached.
- Where an output does not depend on an input the answer is zeros, or an error with strict=True.
- jvp and hvp use the double-backward trick: a vjp is linear in its cotangent `u`, so the gradient
  of vjp(u) with respect to `u`, against v, is the jvp with v (as torch does).
- jacobian(strategy="forward-mode") runs the function on dual numbers (forward_ad), one column per
  input element; hessian(outer_jacobian_strategy="forward-mode") does so through the reverse-mode
  gradient (forward-over-reverse).
"""
from . import forward_ad as fwad
from .._tensor import Tensor
from .grad_mode import enable_grad
from ..ops._registry import OPS   # zeros_like: the registry's takes nested tensors too (ops/nested.py)
from ..ops.creation import zeros
from ..ops.shape import stack
from .differentiate import grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# --- arguments and results ---------------------------------------------------------------------
def _as_tuple(value, what, fn_name):
    """(whether `value` was a tuple, value as a tuple of Tensors)."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {what}"
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"{where} has type {type(el)}.")
    return is_tuple, values


def _fresh(tensors, create_graph, need_graph):
    """New tensor objects for the function to run on (so we can tell them from captured ones):
    views keeping the history when create_graph asks for it, detached leaves otherwise."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _finish(result, create_graph):
    """Results as the user gets them: detached unless they asked for a graph (nested tuples too)."""
    if isinstance(result, tuple):
        return tuple(_finish(r, create_graph) for r in result)
    return result if create_graph else result.detach()


def _unwrap(result, *was_tuple):
    """Undo _as_tuple on the outer (and inner) level of `result`."""
    if len(was_tuple) == 2 and not was_tuple[1]:
        result = tuple(r[0] for r in result)
    return result if was_tuple[0] else result[0]


def _check_v(v, refs, refs_tuple):
    if len(v) != len(refs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}."
                           if refs_tuple else "The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, refs)):
        if a.shape != b.shape:
            raise RuntimeError(f"{f'Entry {i} in ' if refs_tuple else ''}v has invalid size: should be {b.shape} "
                               f"but got {a.shape}.")


def _read_v(v, refs, refs_tuple, create_graph, fn_name, none_msg):
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(none_msg)
        return None
    v = _fresh(_as_tuple(v, "v", fn_name)[1], create_graph, need_graph=False)
    _check_v(v, refs, refs_tuple)
    return v


def _single_scalar(outputs, outputs_tuple, fn_name):
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


# --- strict mode ----------------------------------------------------------------------------------
_NO_GRAD_MSG = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
               "in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
}

_UNUSED_MSG = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _strict_requires_grad(tensors, kind, strict):
    """strict=True: every tensor must exist and carry a graph back to the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(_UNUSED_MSG["back"].format(i=i))
        if not t.requires_grad:
            raise RuntimeError(_NO_GRAD_MSG[kind].format(i=i))


def _zeros_for_missing(grads, refs, strict, create_graph, stage):
    """Zeros (shaped like refs) where no gradient flowed; strict mode refuses instead."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_UNUSED_MSG[stage].format(i=i))
            g = OPS["zeros_like"](refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that have a graph (None for every input when none has one)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


# --- the API --------------------------------------------------------------------------------------
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The product of a vector with the Jacobian of `func` at `inputs` (reverse mode).

    Args:
        func: a function of tensors that returns a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped as func's output (may be None when the output has one element).
        create_graph: make the result differentiable (it stays connected to `inputs`).
        strict: raise an error, instead of returning zeros, where an output does not depend on an input.

    Returns:
        tuple: ``(func(inputs), vjp)``, the vjp shaped as `inputs`.

    Example::

        >>> f = lambda x: x ** 2
        >>> torch.autograd.functional.vjp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _strict_requires_grad(outputs, "outputs", strict)
        v = _read_v(v, outputs, outputs_tuple, create_graph, "vjp",
                    "The vector v can only be None if the user-provided function returns a single Tensor with a "
                    "single element.")
    grads = _zeros_for_missing(_grad(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back")
    return (_unwrap(_finish(outputs, create_graph), outputs_tuple),
            _unwrap(_finish(grads, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The product of the Jacobian of `func` at `inputs` with a vector (computed with the double-backward trick).

    Args:
        func: a function of tensors that returns a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped as `inputs` (may be None when the input has one element).
        create_graph: make the result differentiable (it stays connected to `inputs`).
        strict: raise an error, instead of returning zeros, where an output does not depend on an input.

    Returns:
        tuple: ``(func(inputs), jvp)``, the jvp shaped as func's output.

    Example::

        >>> f = lambda x: x.sin()
        >>> torch.autograd.functional.jvp(f, torch.tensor([0.0]), torch.tensor([2.0]))
        (tensor([0.]), tensor([2.]))
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _read_v(v, inputs, inputs_tuple, create_graph, "jvp",
                    "The vector v can only be None if the input to the user-provided function is a single Tensor "
                    "with a single element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _strict_requires_grad(outputs, "outputs", strict)
        # the vjp is linear in its cotangent u, so u's value never matters: zeros (no inf/nan)
        u = tuple(OPS["zeros_like"](o, requires_grad=True) for o in outputs)
        vjp_u = _grad(outputs, inputs, u, create_graph=True)
        _strict_requires_grad(vjp_u, "grad_inputs", strict)
    grads = _grad(vjp_u, u, v, create_graph)
    grads = _zeros_for_missing(grads, outputs, strict, create_graph, "back_trick")
    return (_unwrap(_finish(outputs, create_graph), outputs_tuple),
            _unwrap(_finish(grads, create_graph), outputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`.

    For output ``i`` and input ``j`` the block has shape ``outputs[i].shape + inputs[j].shape``;
    with tuples, the blocks are nested as ``((J00, J01, ...), (J10, ...))`` (outputs, then inputs).

    Args:
        func: a function of tensors that returns a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        create_graph: make the result differentiable (it stays connected to `inputs`).
        strict: raise an error, instead of returning zeros, where an output does not depend on an input.
        vectorize: compute all rows in one batched pass instead of one backward per row.
        strategy: ``"reverse-mode"`` (default) or ``"forward-mode"`` (needs ``vectorize=True``).

    Returns:
        Tensor, or nested tuples of Tensors as described above.

    Example::

        >>> torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        _refuse_forward_mode(create_graph, strict, vectorize)
        return _forward_jacobian(func, inputs, need_graph=False)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _strict_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        # vectorize=True gives the same numbers; ndgrad computes them row by row either way
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            n = out.numel()
            for k in range(n):
                # row k of J_i: the gradient of output element k (a one-hot cotangent)
                onehot = zeros(n, dtype=out.dtype)
                onehot._array[k] = 1
                grads = _grad((out,), inputs, (onehot.view(out.shape),), create_graph, retain_graph=True)
                for j, g in enumerate(grads):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{j}. This is not allowed in strict mode.")
                        g = OPS["zeros_like"](inputs[j])
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                           "This is not allowed in strict mode when create_graph=True.")
                    rows[j].append(g)
            result.append(tuple(stack(r).view(out.shape + inp.shape) if r else
                                zeros(out.shape + inp.shape, dtype=inp.dtype)   # an empty output
                                for r, inp in zip(rows, inputs)))
    return _unwrap(_finish(tuple(result), create_graph), outputs_tuple, inputs_tuple)


def _refuse_forward_mode(create_graph, strict, vectorize):
    if create_graph:
        raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                  '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                  '`create_graph=False` or `strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are not "
                           "supported together (yet). Please either set `strict=False` or "
                           "`strategy=\"reverse-mode\"`.")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
                                  "implemented for `vectorize=True`.")


def _forward_jacobian(func, inputs, need_graph):
    """The Jacobian one column at a time: func on dual inputs whose tangent is a one-hot vector
    (vectorize=True asks for batching; the numbers are the same). need_graph: the inputs require
    grad, so a reverse-mode gradient inside func carries the tangents (forward-over-reverse)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = tuple(t.detach().requires_grad_(need_graph) for t in inputs)
    columns, outputs_tuple, outputs = None, False, ()
    with fwad.dual_level():
        for j, inp in enumerate(inputs):
            for k in range(inp.numel()):
                onehot = zeros(inp.numel(), dtype=inp.dtype)
                onehot._array[k] = 1
                duals = tuple(fwad.make_dual(t, onehot.view(t.shape) if i == j else OPS["zeros_like"](t))
                              for i, t in enumerate(inputs))
                outputs_tuple, outputs = _as_tuple(func(*duals), "outputs of the user-provided function", "jacobian")
                if columns is None:
                    columns = [[[] for _ in inputs] for _ in outputs]
                for i, out in enumerate(outputs):
                    t = fwad.unpack_dual(out).tangent
                    columns[i][j].append(OPS["zeros_like"](out) if t is None else t.detach())
        if columns is None:   # every input is empty: the function still gives the output shapes
            outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
            columns = [[[] for _ in inputs] for _ in outputs]
    result = tuple(tuple(stack(col, -1).view(out.shape + inp.shape) if col else
                         zeros(out.shape + inp.shape, dtype=out.dtype)
                         for col, inp in zip(cols, inputs))
                   for cols, out in zip(columns, outputs))
    return _unwrap(result, outputs_tuple, inputs_tuple)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function `func` at `inputs`: the Jacobian of its gradient.

    For inputs ``i`` and ``j`` the block has shape ``inputs[i].shape + inputs[j].shape``, nested
    ``((H00, H01, ...), ...)`` for a tuple of inputs.

    Args:
        func: a function of tensors that returns a tensor with one element.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        create_graph: make the result differentiable (it stays connected to `inputs`).
        strict: raise an error, instead of returning zeros, where an output does not depend on an input.
        vectorize: compute all rows in one batched pass.
        outer_jacobian_strategy: ``"reverse-mode"`` (default) or ``"forward-mode"``
            (forward-over-reverse; needs ``vectorize=True``).

    Returns:
        Tensor, or nested tuples of Tensors as described above.

    Example::

        >>> torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _strict_requires_grad(outs, "outputs", strict)
        _single_scalar(outs, out_tuple, "hessian")
        return out.squeeze()

    def gradient(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
        return jac

    if outer_jacobian_strategy == "forward-mode":   # forward-over-reverse: tangents through the gradient
        _refuse_forward_mode(create_graph, strict, vectorize)
        res = _forward_jacobian(gradient, inputs, need_graph=True)
    else:
        res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                       strategy=outer_jacobian_strategy)
    return _unwrap(res, inputs_tuple, inputs_tuple)


def _scalar_and_gradient(func, inputs, v, create_graph, strict, fn_name):
    """Shared start of vhp / hvp: fresh inputs, checked v, the scalar output and its gradient (with graph)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _read_v(v, inputs, inputs_tuple, create_graph, fn_name,
                    "The vector v can only be None if the input to the user-provided function is a single Tensor "
                    "with a single element.")
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
        _strict_requires_grad(outputs, "outputs", strict)
        _single_scalar(outputs, outputs_tuple, fn_name)
        jac = _grad(outputs, inputs, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The product of a vector with the Hessian of a scalar function at `inputs`.

    Args:
        func: a function of tensors that returns a tensor with one element.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped as `inputs`.
        create_graph: make the result differentiable (it stays connected to `inputs`).
        strict: raise an error, instead of returning zeros, where the output does not depend on an input.

    Returns:
        tuple: ``(func(inputs), vhp)``, the vhp shaped as `inputs`.

    Example::

        >>> f = lambda x: (x[0] * x[1]).sum()
        >>> torch.autograd.functional.vhp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
        (tensor(2.), tensor([0., 1.]))
    """
    inputs_tuple, inputs, v, outputs, jac = _scalar_and_gradient(func, inputs, v, create_graph, strict, "vhp")
    grads = _zeros_for_missing(_grad(jac, inputs, v, create_graph), inputs, strict, create_graph, "double_back")
    return _finish(outputs, create_graph)[0], _unwrap(_finish(grads, create_graph), inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The product of the Hessian of a scalar function at `inputs` with a vector.

    Args:
        func: a function of tensors that returns a tensor with one element.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped as `inputs`.
        create_graph: make the result differentiable (it stays connected to `inputs`).
        strict: raise an error, instead of returning zeros, where the output does not depend on an input.

    Returns:
        tuple: ``(func(inputs), hvp)``, the hvp shaped as `inputs`.

    Example::

        >>> f = lambda x: (x ** 3).sum()
        >>> torch.autograd.functional.hvp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
        (tensor(9.), tensor([ 6., 12.]))
    """
    inputs_tuple, inputs, v, outputs, jac = _scalar_and_gradient(func, inputs, v, create_graph, strict, "hvp")
    with enable_grad():
        u = tuple(OPS["zeros_like"](t, requires_grad=True) for t in inputs)
        u_h = _grad(jac, inputs, u, create_graph=True)    # u^T H, linear in u
    grads = _grad(u_h, u, v, create_graph)
    grads = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back_trick")
    return _finish(outputs, create_graph)[0], _unwrap(_finish(grads, create_graph), inputs_tuple)
