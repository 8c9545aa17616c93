"""torch._vmap_internals: the legacy vmap API (`vmap`, deprecated, and `_vmap`), a thin layer over
`func.vmap` (one batching mechanism).

What the legacy API does differently (its own checks and messages, made before func.vmap runs):
- `in_dims` must be non-negative (`0 <= in_dim < dim`);
- `func` must return a Tensor or a flat tuple of Tensors; `out_dims` is an int or a tuple of ints,
  one per output, checked before `func` runs;
- `allow_none_pass_through=True` lets None outputs through as None (autograd.grad of unused inputs);
- the wrapped function takes positional arguments only.
"""
import functools
import warnings

from ._tensor import Tensor
from .func import vmap as _func_vmap
from .func._vmap import _name
from .utils._pytree import broadcast_to_and_flatten, tree_flatten

__all__ = ["vmap"]


def vmap(func, in_dims=0, out_dims=0):
    """Deprecated: use :func:`torch.vmap`. The legacy vmap (see :func:`_vmap`).

    Example::

        >>> torch._vmap_internals.vmap(torch.sum)(torch.ones(2, 3))  # doctest: +SKIP
        tensor([3., 3.])
    """
    warnings.warn("Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.", FutureWarning, stacklevel=2)
    return _vmap(func, in_dims, out_dims)


def _check_out_dims(out_dims, func):
    ok = isinstance(out_dims, int) or isinstance(out_dims, tuple) and all(isinstance(d, int) for d in out_dims)
    if not ok:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int or a tuple of "
                         "int representing where in the outputs the vmapped dimension should appear.")


def _check_in_dims(func, in_dims, args):
    """The legacy API's own in_dims checks (the rest are func.vmap's, with the same messages)."""
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        return   # func.vmap reports it
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        return   # func.vmap reports the mismatch
    for a, d in zip(flat_args, flat_dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool) or not isinstance(a, Tensor):
            return   # func.vmap reports this input first, as torch does
        if not 0 <= d < a.dim():
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                             f"input, but that input is a Tensor of dimensionality {a.dim()} so expected in_dim to "
                             f"satisfy 0 <= in_dim < {a.dim()}.")


def _check_outputs(outputs, func, allow_none):
    name = _name(func)
    if isinstance(outputs, Tensor):
        return
    if not isinstance(outputs, tuple):
        if allow_none:
            return
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(outputs)} as the "
                         "return.")
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor) and not (allow_none and o is None):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)} for "
                             f"return {i}.")


def _vmap(func, in_dims=0, out_dims=0, allow_none_pass_through=False):
    """torch's legacy vmap: `func` mapped over `in_dims` of its positional inputs, its outputs (a
    Tensor or a tuple of Tensors) stacked along `out_dims`. `allow_none_pass_through`: None outputs
    are returned as None instead of refused.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch._vmap_internals._vmap(torch.dot, (0, None))(x, torch.ones(2))
        tensor([3., 7.])
    """
    @functools.wraps(func)
    def wrapped(*args):
        _check_out_dims(out_dims, func)
        _check_in_dims(func, in_dims, args)
        shape = {}   # how func answered: single tensor or tuple, and where its None outputs are

        def inner(*inputs):
            out = func(*inputs)
            _check_outputs(out, func, allow_none_pass_through)
            outs = (out,) if not isinstance(out, tuple) else out
            if isinstance(out_dims, tuple) and len(out_dims) != len(outs):
                raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must have one dim per "
                                 f"output (got {len(outs)} outputs) of {_name(func)}.")
            shape.setdefault("single", not isinstance(out, tuple))
            shape.setdefault("nones", [o is None for o in outs])
            return tuple(o for o in outs if o is not None)

        inner.__name__ = _name(func)   # func.vmap's messages name func

        # func.vmap sees only the tensors; a tuple of out_dims is applied afterwards, since which
        # outputs are None is known only once func has run
        result = _func_vmap(inner, in_dims, out_dims if isinstance(out_dims, int) else 0)(*args)
        if isinstance(out_dims, tuple):
            kept = [d for d, none in zip(out_dims, shape["nones"]) if not none]
            result = tuple(r if d == 0 else r.movedim(0, d) for r, d in zip(result, kept))
        if shape["single"]:
            return result[0]
        it = iter(result)
        return tuple(None if none else next(it) for none in shape["nones"])
    return wrapped
