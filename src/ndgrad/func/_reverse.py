"""Reverse-mode transforms of ndgrad.func: grad, grad_and_value, vjp, jacrev.

Each call is one level (see _levels.py): the function runs under enable_grad on fresh inputs and
`autograd.grad` takes the gradients, with create_graph only when an outer level needs them.
"""
import functools

from .. import autograd
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..ops._registry import OPS   # ones_like / zeros_like: the registry's take nested tensors too (ops/nested.py)
from ..ops.creation import eye, zeros
from ..utils._pytree import tree_flatten, tree_unflatten
from ._levels import Level, check_argnums, pprint
from ._vmap import vmap


def vjp_of(level, outputs, inputs, cotangents, retain_graph=True):
    """Gradients of `outputs` (weighted by `cotangents`) with respect to `inputs`; zeros where an
    input is not reached, as torch.func gives."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if any(isinstance(c, Tensor) and c.requires_grad for _, c in pairs):
        level.outside = True   # the result depends on the cotangent's graph
    grads = [None] * len(inputs)
    if pairs:
        grads = autograd.grad([o for o, _ in pairs], inputs, [c for _, c in pairs], retain_graph=retain_graph,
                              create_graph=level.create_graph(), allow_unused=True)
    return [level.lift(OPS["zeros_like"](x) if g is None else g) for g, x in zip(grads, inputs)]


def split_args(args, argnums):
    """The leaves of the differentiated arguments args[argnums], with
    substitute(xs): args with those leaves replaced by xs, and
    rebuild(per_leaf): per-leaf results nested like the differentiated arguments."""
    nums = check_argnums(argnums, len(args))
    flats = [tree_flatten(args[n]) for n in nums]
    leaves = [x for flat, _ in flats for x in flat]

    def pieces(xs):
        start = 0
        for _, spec in flats:
            yield tree_unflatten(xs[start:start + spec.num_leaves], spec)
            start += spec.num_leaves

    def substitute(xs):
        new = list(args)
        for n, piece in zip(nums, pieces(list(xs))):
            new[n] = piece
        return new

    def rebuild(per_leaf):
        out = list(pieces(list(per_leaf)))
        return out[0] if isinstance(argnums, int) else tuple(out)

    return leaves, substitute, rebuild


def select_args(level, args, argnums):
    """Fresh copies of the differentiated arguments: (all args, their fresh leaves, rebuild)."""
    leaves, substitute, rebuild = split_args(args, argnums)
    leaves = [level.fresh(x) for x in leaves]
    return substitute(leaves), leaves, rebuild


def split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    _tensor_outputs(out[1], "Expected tensors")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """A function that returns both the gradient of `func` and its value.

    Like :func:`grad`, but the returned function also gives `func`'s output, computed in the same
    call (one forward pass for both).

    Args:
        func (callable): a function of tensors returning a scalar tensor (or ``(scalar, aux)`` when
            `has_aux`).
        argnums (int or tuple of ints, optional): the positions of the arguments to differentiate
            with respect to. Default: 0.
        has_aux (bool, optional): `func` returns ``(output, aux)``; aux is returned as it is, not
            differentiated. Default: False.

    Returns:
        callable: a function of `func`'s arguments returning ``(gradient, value)`` (``(gradient,
        (value, aux))`` with `has_aux`); gradient is a tuple when `argnums` is.

    Example::

        >>> g, v = torch.func.grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
        >>> g, v
        (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        level = Level()
        with enable_grad():
            args, leaves, rebuild = select_args(level, args, argnums)
            output, aux = split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            level.look_outside([output, aux])
            grads = rebuild(vjp_of(level, [output], leaves, [OPS["ones_like"](output)]))
        value = level.lift(output)
        return grads, ((value, _lift_tree(level, aux)) if has_aux else value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient transform: a function computing the gradient of `func`.

    `func` must return a scalar tensor; the returned function takes the same arguments and gives
    the gradient of that scalar with respect to the arguments chosen by `argnums`. Transforms
    compose: ``grad(grad(f))`` is a second derivative.

    Args:
        func (callable): a function of tensors returning a scalar tensor (or ``(scalar, aux)`` when
            `has_aux`).
        argnums (int or tuple of ints, optional): the positions of the arguments to differentiate
            with respect to. Default: 0.
        has_aux (bool, optional): `func` returns ``(output, aux)``; the returned function then gives
            ``(gradient, aux)``. Default: False.

    Returns:
        callable: a function of `func`'s arguments returning the gradient (a tuple when `argnums`
        is a tuple).

    Example::

        >>> x = torch.tensor([0.0, 1.0])
        >>> torch.func.grad(lambda x: torch.sin(x).sum())(x)
        tensor([1.0000, 0.5403])
        >>> torch.func.grad(torch.func.grad(lambda x: x ** 3))(torch.tensor(2.0))
        tensor(12.)
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def _lift_tree(level, tree):
    flat, spec = tree_flatten(tree)
    return tree_unflatten([level.lift(x) for x in flat], spec)


def _tensor_outputs(output, message):
    flat, spec = tree_flatten(output)
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{message}, got unsupported type {type(o)}")
    return flat, spec


def vjp(func, *primals, has_aux=False):
    """The vector-Jacobian product of `func` at `primals` (reverse mode).

    Runs ``func(*primals)`` and returns its output together with a function that, given
    cotangents shaped like that output, returns the gradients with respect to each primal.

    Args:
        func (callable): a function of tensors returning a tensor or a pytree of tensors (or
            ``(output, aux)`` when `has_aux`).
        primals (Tensor): the point of evaluation, as positional arguments of `func`.
        has_aux (bool, optional): `func` returns ``(output, aux)``; aux is returned third, not
            differentiated. Default: False.

    Returns:
        tuple: ``(output, vjp_fn)``, plus aux with `has_aux`; ``vjp_fn(cotangents)`` returns a tuple
        with one gradient per primal.

    Example::

        >>> out, vjp_fn = torch.func.vjp(torch.sin, torch.tensor([0.0, 1.0]))
        >>> out
        tensor([0.0000, 0.8415])
        >>> vjp_fn(torch.tensor([1.0, 2.0]))
        (tensor([1.0000, 1.0806]),)
    """
    level = Level()
    with enable_grad():
        flat_primals, primal_spec = tree_flatten(primals)
        fresh = [level.fresh(p) for p in flat_primals]
        output, aux = split_aux(func(*tree_unflatten(fresh, primal_spec)), has_aux, "vjp(f, *primals)")
        flat_out, out_spec = _tensor_outputs(output, "vjp(f, *primals): expected f(*primals) to return only tensors")
        level.look_outside([flat_out, aux])

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        # create_graph is accepted as torch's is: the graph is kept exactly when a level outside uses it
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {pprint(cot_spec)}, primal output: {pprint(out_spec)}")
        with enable_grad():
            return tree_unflatten(vjp_of(level, flat_out, fresh, flat_cot, retain_graph), primal_spec)

    result = (_lift_tree(level, output), vjp_fn)
    return result + (_lift_tree(level, aux),) if has_aux else result


def jacobian_tree(out_spec, rebuild, blocks):
    """blocks[i][j]: the Jacobian of output leaf i w.r.t. input leaf j, nested as torch.func nests it:
    the output's structure, each leaf holding the (argnums-shaped) structure of the inputs."""
    return tree_unflatten([rebuild(row) for row in blocks], out_spec)


def jacobian_rows(level, flat_out, leaves, chunk_size=None):
    """blocks[i][j], the Jacobian of output i w.r.t. leaf j: the vjp mapped by vmap over the rows of
    an identity (one batched backward pass, chunk_size rows at a time when given)."""
    sizes = [o.numel() for o in flat_out]
    total = sum(sizes)
    if not total:
        return [[zeros(o.shape + x.shape, dtype=x.dtype) for x in leaves] for o in flat_out]
    starts = [sum(sizes[:i]) for i in range(len(sizes))]

    def row(onehot):
        cots = [(onehot if n == total else onehot.narrow(0, s, n)).view(o.shape)
                for o, s, n in zip(flat_out, starts, sizes)]
        cots = [c if c.dtype == o.dtype else c.to(o.dtype) for c, o in zip(cots, flat_out)]
        return vjp_of(level, flat_out, leaves, cots)

    grads = vmap(row, chunk_size=chunk_size)(eye(total, dtype=flat_out[0].dtype))
    return [[(g if n == total else g.narrow(0, s, n)).view(o.shape + x.shape) for g, x in zip(grads, leaves)]
            for o, s, n in zip(flat_out, starts, sizes)]


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of `func` by reverse-mode AD.

    Computes one vector-Jacobian product per output element, all at once (batched with
    :func:`vmap`). For an output of shape ``O`` and an input of shape ``I`` the Jacobian has shape
    ``O + I``; it is nested by output, then by input, when there are several of either.

    Args:
        func (callable): a function of tensors returning a tensor or a pytree of tensors (or
            ``(output, aux)`` when `has_aux`).
        argnums (int or tuple of ints, optional): the arguments to differentiate with respect to.
            Default: 0.
        has_aux (bool, optional): `func` returns ``(output, aux)``; the result is then
            ``(jacobian, aux)``. Default: False.
        chunk_size (int, optional): how many rows to compute per batched pass (less memory);
            None: all at once.

    Returns:
        callable: a function of `func`'s arguments returning the Jacobian.

    Example::

        >>> torch.func.jacrev(lambda x: x ** 2)(torch.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        level = Level()
        with enable_grad():
            args, leaves, rebuild = select_args(level, args, argnums)
            output, aux = split_aux(func(*args, **kwargs), has_aux, "vjp(f, *primals)")
            flat_out, out_spec = _tensor_outputs(output, "vjp(f, *primals): expected f(*primals) to return only "
                                                          "tensors")
            level.look_outside([flat_out, aux])
            blocks = jacobian_rows(level, flat_out, leaves, chunk_size)
        jac = jacobian_tree(out_spec, rebuild, blocks)
        return (jac, _lift_tree(level, aux)) if has_aux else jac
    return wrapper
