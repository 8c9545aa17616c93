"""Forward-mode transforms of ndgrad.func: jvp, jacfwd and hessian (jacfwd of jacrev).

jvp runs the function on dual tensors of ndgrad.autograd.forward_ad. Forward AD has a single
level, so a jvp nested inside another forward transform (jacfwd(jacfwd(f))) computes the same
product in reverse mode instead: the vjp g(u) = J^T u is linear in u, so the gradient of
<g(u), v> with respect to u is J v (the "double vjp" trick).
"""
import functools

from .. import autograd
from .._tensor import Tensor
from ..autograd import forward_ad as fwad
from ..autograd.grad_mode import enable_grad
from ..ops._registry import OPS   # zeros_like: the registry's takes nested tensors too (ops/nested.py)
from ..ops.creation import eye, zeros
from ..utils._pytree import tree_flatten, tree_unflatten
from ._levels import Level, check_tensor
from . import _batching
from ._reverse import _lift_tree, jacobian_tree, jacrev, split_args, split_aux, vjp_of
from ._vmap import vmap


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def _tangents_out(flat_out, api):
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def _independent(strict):
    if strict:
        raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
                           "This is not allowed with strict=True.")


def _jvp_flat(func, primals, tangents, has_aux, api="jvp(f, primals, tangents)", strict=False):
    """(outputs, their tangents, aux) of func(*primals) along tangents (flat lists of tensors)."""
    if any(isinstance(t, _batching.Batched) and t.is_complex() for t in tangents):
        # the reverse-mode route below gave wrong numbers for complex functions that are not holomorphic
        # (conj): vmap runs the samples' jvps one by one, each by forward AD
        raise _batching.Fallback("jvp with complex tangents batched")
    if fwad.state.level is not None or any(isinstance(t, _batching.Batched) for t in tangents):
        # forward AD has one level and no batching rules: reverse mode (batched by vmap) does it
        return _jvp_by_double_vjp(func, primals, tangents, has_aux, api, strict)
    with fwad.dual_level():
        duals = [fwad.make_dual(p, t) for p, t in zip(primals, tangents)]
        output, aux = split_aux(func(*duals), has_aux, api)
        flat_out, out_spec = tree_flatten(output)
        _tangents_out(flat_out, api)
        pairs = [fwad.unpack_dual(o) for o in flat_out]
        outs = [p for p, _ in pairs]
        if any(t is None for _, t in pairs):
            _independent(strict)
        tans = [OPS["zeros_like"](p) if t is None else t for p, t in pairs]
        aux = tree_unflatten([fwad.unpack_dual(a).primal if isinstance(a, Tensor) else a
                              for a in tree_flatten(aux)[0]], tree_flatten(aux)[1])
    return outs, out_spec, tans, aux


def _jvp_by_double_vjp(func, primals, tangents, has_aux, api, strict):
    """_jvp_flat inside an active dual level: J v as the gradient of <J^T u, v> with respect to u."""
    level = Level()
    with enable_grad():
        fresh = [level.fresh(p) for p in primals]
        output, aux = split_aux(func(*fresh), has_aux, api)
        flat_out, out_spec = tree_flatten(output)
        _tangents_out(flat_out, api)
        level.look_outside([flat_out, aux, tangents])
        reached = [i for i, o in enumerate(flat_out) if o.requires_grad]
        if len(reached) < len(flat_out):
            _independent(strict)
        dummies = [OPS["zeros_like"](flat_out[i]).requires_grad_() for i in reached]   # the u of J^T u
        level.own.update(id(u) for u in dummies)
        tans = [OPS["zeros_like"](o) for o in flat_out]
        if reached:
            g = autograd.grad([flat_out[i] for i in reached], fresh, dummies, create_graph=True, allow_unused=True)
            used = [(gi, t) for gi, t in zip(g, tangents) if gi is not None]
            if used:
                for i, jv in zip(reached, vjp_of(level, [gi for gi, _ in used], dummies, [t for _, t in used])):
                    tans[i] = jv
    return ([level.lift(o) for o in flat_out], out_spec, tans, _lift_tree(level, aux))


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """The Jacobian-vector product of `func` at `primals` (forward mode).

    Runs `func` once with dual numbers: the outputs and their directional derivatives along
    `tangents` come out together.

    Args:
        func (callable): a function of tensors returning a tensor or a pytree of tensors (or
            ``(output, aux)`` when `has_aux`).
        primals (tuple of Tensors): the point of evaluation (``func(*primals)``).
        tangents (tuple of Tensors): one direction per primal, of the same structure and shapes.
        strict (bool, optional): raise an error where an output does not depend on the inputs.
            Default: False.
        has_aux (bool, optional): `func` returns ``(output, aux)``; aux is returned third.
            Default: False.

    Returns:
        tuple: ``(output, jvp_out)`` (plus aux with `has_aux`).

    Example::

        >>> x = torch.tensor([0.0, 1.0])
        >>> torch.func.jvp(torch.sin, (x,), (torch.ones(2),))
        (tensor([0.0000, 0.8415]), tensor([1.0000, 0.5403]))
    """
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, spec_p = tree_flatten(primals)
    flat_t, spec_t = tree_flatten(tangents)
    if spec_p != spec_t:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, if "
                           "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{spec_p} and tangents with structure {spec_t}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(x)}")
    outs, out_spec, tans, aux = _jvp_flat(lambda *ps: func(*tree_unflatten(ps, spec_p)), flat_p, flat_t, has_aux,
                                          api, strict)
    result = (tree_unflatten(outs, out_spec), tree_unflatten(tans, out_spec))
    return result + (aux,) if has_aux else result


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error", chunk_size=None):
    """The Jacobian of `func` by forward-mode AD.

    Computes one Jacobian-vector product per input element, batched with :func:`vmap`; cheaper
    than :func:`jacrev` when the inputs have fewer elements than the outputs. The layout of the
    result is :func:`jacrev`'s.

    Args:
        func (callable): a function of tensors returning a tensor or a pytree of tensors (or
            ``(output, aux)`` when `has_aux`).
        argnums (int or tuple of ints, optional): the arguments to differentiate with respect to.
            Default: 0.
        has_aux (bool, optional): `func` returns ``(output, aux)``; the result is then
            ``(jacobian, aux)``. Default: False.
        randomness (str, optional): how random ops behave under the vmap (``"error"``,
            ``"different"`` or ``"same"``). Default: ``"error"``.
        chunk_size (int, optional): how many columns to compute per batched pass; None: all at once.

    Returns:
        callable: a function of `func`'s arguments returning the Jacobian.

    Example::

        >>> torch.func.jacfwd(lambda x: x.sum() * x)(torch.tensor([1.0, 2.0]))
        tensor([[4., 1.],
                [2., 5.]])
    """
    _check_randomness(randomness)
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacfwd: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        leaves, substitute, rebuild = split_args(args, argnums)
        for x in leaves:
            check_tensor(x)

        def call(*xs):
            return func(*substitute(xs), **kwargs)

        sizes = [x.numel() for x in leaves]
        total = sum(sizes)
        starts = [sum(sizes[:j]) for j in range(len(sizes))]
        if not total:   # every input is empty: one call still gives the output shapes
            outs, out_spec, _, aux = _jvp_flat(call, leaves, [OPS["zeros_like"](x) for x in leaves], has_aux)
            blocks = [[zeros(o.shape + x.shape, dtype=o.dtype) for x in leaves] for o in outs]
        else:
            def column(onehot):
                tangents = [(onehot if n == total else onehot.narrow(0, s, n)).view(x.shape)
                            for x, s, n in zip(leaves, starts, sizes)]
                tangents = [t if t.dtype == x.dtype else t.to(x.dtype) for t, x in zip(tangents, leaves)]
                outs, out_spec, tans, aux = _jvp_flat(call, leaves, tangents, has_aux, "jvp(f, primals, tangents)")
                spec_box.append(out_spec)
                return tans, outs, aux

            spec_box = []
            basis = eye(total, dtype=leaves[0].dtype)
            tans, outs, aux = vmap(column, out_dims=(-1, None, None), randomness=randomness,
                                   chunk_size=chunk_size)(basis)
            out_spec = spec_box[-1]
            blocks = [[(t if n == total else t.narrow(-1, s, n)).view(o.shape + x.shape)
                       for x, s, n in zip(leaves, starts, sizes)]
                      for t, o in zip(tans, outs)]
        jac = jacobian_tree(out_spec, rebuild, blocks)
        return (jac, aux) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function `func`: ``jacfwd(jacrev(func, argnums), argnums)``.

    Forward-over-reverse: the Jacobian (by forward mode) of the gradient (by reverse mode).

    Args:
        func (callable): a function of tensors returning a scalar tensor.
        argnums (int or tuple of ints, optional): the arguments to differentiate with respect to.
            Default: 0.

    Returns:
        callable: a function of `func`'s arguments returning the Hessian (shape ``I + I`` for an
        input of shape ``I``).

    Example::

        >>> torch.func.hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
