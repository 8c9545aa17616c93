"""vmap: a function of one sample mapped over a batch dimension, as torch.func.vmap.

Which path runs:
1. The native path (_batching.py), tried first when randomness='error', no profiler records and no
   dual level is active: the function runs once on batched tensors (the mapped dim becomes the
   level's leading dim; the function sees per-sample shapes), every op as one array call by its
   batching rule (or a per-op loop over the samples for ops without one). Nested vmaps (inside
   jacrev, jacfwd, hessian, grad) are levels of their own, and autograd records through them.
2. The loop, whenever the native path gives up (or raises: the loop then raises the error the
   user should see): the function is called once per index of the mapped dimension on the inputs
   sliced there (`select`), and each output is stacked along its out_dim. That is "the same
   results as a Python loop" for every op, differentiable (grad of vmap, vmap of grad), and
   nestable. `_batching.state.gave_up` counts why native runs gave up.
chunk_size: the batch is mapped chunk_size samples at a time (each chunk as above), the outputs concatenated.

Randomness follows torch's modes: 'error' refuses random draws inside the function, 'different'
draws afresh for every sample, 'same' replays the default generator's state for each sample so
that every sample sees the same numbers (both run the loop). An output whose out_dim is None must
not depend on the batch: the native path knows; the loop returns it once and raises when the
samples disagree.
Not reproduced: torch's error for in-place writes of batched values into captured tensors when
the loop runs (the native path raises it), a size-0 batch on the loop (no sample to learn the
output shapes from), and torch.func.vmap's refusal of make_dual inside the function (ndgrad batches
the tangent, as torch's legacy vmap does; a vmap started inside a dual level runs the loop).
"""
import functools

import numpy as np

from .. import _random
from ..ops import _registry
from ..ops.shape import cat, stack
from .._tensor import Tensor
from ..autograd import forward_ad as fwad
from . import _batching
from ..utils._pytree import broadcast_to_and_flatten, tree_flatten, tree_structure, tree_unflatten

_modes = []   # the randomness mode of each running vmap, innermost last


def _draw_check():
    if _modes and _modes[-1] == "error":
        raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use the "
                           "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
                           "of vmap")


def _name(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorizes `func` over a batch dimension: the returned function runs `func` as if on each slice
    along `in_dims` of its inputs, and stacks the results along `out_dims` (in one batched computation).

    Args:
        func (Callable): a function of tensors.
        in_dims (int, None or nested tuple): the batch dimension of each input (None: not batched). Default: ``0``.
        out_dims (int or tuple of int): where the batch dimension goes in each output. Default: ``0``.
        randomness (str): ``'error'``, ``'different'`` or ``'same'``: how random operations behave across the batch. Default: ``'error'``.
        chunk_size (int, optional): compute the batch in chunks of this size.

    Returns:
        Callable: the batched function.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> y = torch.tensor([1.0, 1.0])
        >>> torch.vmap(torch.dot, in_dims=(0, None))(x, y)
        tensor([3., 7.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        flat_args, args_spec, flat_dims, size = _batched_inputs(func, in_dims, args)
        if chunk_size is not None and size > chunk_size:
            return _chunked(mapped, func, out_dims, chunk_size, flat_args, args_spec, flat_dims, size, kwargs)
        return mapped(flat_args, args_spec, flat_dims, size, kwargs)

    def mapped(flat_args, args_spec, flat_dims, size, kwargs):
        _modes.append(randomness)
        prev, _random.draw_check = _random.draw_check, _draw_check
        try:
            if randomness == "error" and _registry.profile_op in (None, _batching.hook) and fwad.state.level is None:
                try:
                    return _native(func, out_dims, flat_args, args_spec, flat_dims, size, kwargs)
                except _batching.InplaceError:
                    raise
                except _OutDimNone:
                    raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor "
                                     "when out_dim is None") from None
                except (_batching.Fallback, Exception) as e:   # the loop decides (and raises the user's error)
                    _batching.state.gave_up[f"{type(e).__name__}: {e}"] += 1
                    _batching.state.last_error = e
            results = _loop(func, flat_args, args_spec, flat_dims, size, kwargs, randomness)
        finally:
            _modes.pop()
            _random.draw_check = prev
        return _stack_outputs(func, out_dims, results)
    return wrapped


def _chunked(mapped, func, out_dims, chunk, flat_args, args_spec, flat_dims, size, kwargs):
    """vmap over `chunk` samples at a time, the outputs concatenated along their out_dims."""
    outs = []
    for start in range(0, size, chunk):
        n = min(chunk, size - start)
        part = [a if d is None else a.narrow(d, start, n) for a, d in zip(flat_args, flat_dims)]
        outs.append(mapped(part, args_spec, flat_dims, n, kwargs))
    flat_first, out_spec = tree_flatten(outs[0])
    dims = broadcast_to_and_flatten(out_dims, out_spec) if isinstance(out_dims, (int, tuple)) else \
        [None] * len(flat_first)
    columns = [tree_flatten(o)[0] for o in outs]
    return tree_unflatten([first if d is None else cat([c[k] for c in columns], d)
                           for k, (first, d) in enumerate(zip(flat_first, dims))], out_spec)


def _loop(func, flat_args, args_spec, flat_dims, size, kwargs, randomness):
    """func's output for each sample, in order."""
    if size == 0:
        raise NotImplementedError(f"vmap({_name(func)}): this function needs vmap's loop, which cannot map over "
                                  "a dimension of size 0 (there is no sample to compute the output shapes from)")
    same_state = _random.get_rng_state() if randomness == "same" else None
    results = []
    for i in range(size):
        if same_state is not None:
            _random.set_rng_state(same_state)
        sample = [a if d is None else a.select(d, i) for a, d in zip(flat_args, flat_dims)]
        results.append(func(*tree_unflatten(sample, args_spec), **kwargs))
    return results


def _batched_inputs(func, in_dims, args):
    """Checks in_dims against args (torch's errors): flat args, their spec, flat dims, batch size."""
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, args_spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_structure(in_dims)} but inputs has "
                         f"structure {args_spec}.")
    sizes = []
    for i, (a, d) in enumerate(zip(flat_args, flat_dims)):
        if d is None:
            continue
        where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for"
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"{where} an input but in_dim must be either an integer dimension or None.")
        if not isinstance(a, Tensor):
            raise ValueError(f"{where} an input but the input is of type {type(a)}. We cannot vmap over non-Tensor "
                             "arguments, please use None as the respective in_dim")
        n = a.dim()
        if not -n <= d < n:
            raise ValueError(f"{where} some input, but that input is a Tensor of dimensionality {n} so expected "
                             f"in_dim to satisfy -{n} <= in_dim < {n}.")
        flat_dims[i] = d % n
        sizes.append(a.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return flat_args, args_spec, flat_dims, sizes[0]


def _stack_outputs(func, out_dims, results):
    """Each output leaf stacked over the samples along its out_dim (returned once when None)."""
    name = _name(func)
    flat_first, out_spec = tree_flatten(results[0])
    if not (out_dims is None or isinstance(out_dims, (int, tuple))) or isinstance(out_dims, bool):
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int or a tuple of int "
                         f"representing where in the outputs the vmapped dimension should appear.")
    flat_dims = broadcast_to_and_flatten(out_dims, out_spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                         f"structure of `outputs`. out_dims has structure {tree_structure(out_dims)} but outputs "
                         f"has structure {out_spec}.")
    columns = [tree_flatten(r)[0] for r in results]
    out = []
    for k, d in enumerate(flat_dims):
        samples = [c[k] for c in columns]
        if d is None:
            first = samples[0]
            if isinstance(first, Tensor) and any(s is not first and not _equal(s, first) for s in samples[1:]):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            out.append(first)
            continue
        for s in samples:
            if not isinstance(s, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(s)}. Did you "
                                 "mean to set out_dims= to None for output?")
        out.append(stack(samples, d))
    return tree_unflatten(out, out_spec)


class _OutDimNone(Exception):
    pass


def _native(func, out_dims, flat_args, args_spec, flat_dims, size, kwargs):
    """One call of func on the whole batch (see _batching.py); raises when it cannot be done."""
    level = _batching.new_level()
    batched = [a if d is None else _batching.add_level(a, d, level) for a, d in zip(flat_args, flat_dims)]
    _batching.state.running.add(level)
    try:
        output = _batching.run_native(func, tree_unflatten(batched, args_spec), kwargs)
    finally:
        _batching.state.running.discard(level)
    flat_out, out_spec = tree_flatten(output)
    dims = broadcast_to_and_flatten(out_dims, out_spec) if isinstance(out_dims, (int, tuple)) else None
    if out_dims is None:
        dims = [None] * len(flat_out)
    if dims is None:
        raise _batching.Fallback("out_dims")   # the loop reports it
    out = []
    for o, d in zip(flat_out, dims):
        if level in _batching.levels_of(o):
            if d is None:
                raise _OutDimNone()
            rank = o.dim()
            if not isinstance(d, int) or not -rank - 1 <= d <= rank:
                raise _batching.Fallback("out_dim")
            o = _batching.remove_level(o, level, d % (rank + 1))
        elif d is not None:
            if not isinstance(o, Tensor):
                raise _batching.Fallback("a non-tensor output")
            o = stack([o] * size, d)   # an output that does not depend on the batch: copies, as the loop's
        out.append(o)
    return tree_unflatten(out, out_spec)


def _equal(a, b):
    return isinstance(b, Tensor) and a.shape == b.shape and bool(np.array_equal(a._array, b._array))
