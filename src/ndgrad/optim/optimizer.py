"""Optimizer: parameter groups, per-parameter state and their state_dict (torch.optim's base),
step hooks, and the helpers the optimizers' _foreach_ updates share."""
from typing import Any, Callable, Optional

import copy
import math
import warnings
import weakref
from collections import defaultdict
from types import SimpleNamespace

import numpy as np

from .. import _dtype
from ..ops import _registry
from .._tensor import PLAIN_TYPES, Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from .._hooks import HookDict
from ..nn.modules.module import _type_name, _zero_grads


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class of the optimizers: holds parameter groups, their options and per-parameter state.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts that each define a
            parameter group (``{"params": [...], "lr": 0.1}``), whose options override `defaults`.
        defaults: the default value of each option.

    Subclasses implement the update; `step` applies it to every parameter that has a gradient.

    Example::

        >>> w = torch.nn.Parameter(torch.tensor([1.0]))
        >>> b = torch.nn.Parameter(torch.tensor([0.0]))
        >>> opt = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
        >>> [group["lr"] for group in opt.param_groups]
        [0.1, 0.5]
    """

    def __init__(self, params, defaults):
        for flag in ("fused", "differentiable"):
            if defaults.get(flag):
                raise NotImplementedError(f"{type(self).__name__}({flag}=True) is not supported by ndgrad: its "
                                          f"updates run on the _foreach_ ops under no_grad; leave {flag} unset")
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._step_pre_hooks, self._step_post_hooks = HookDict(), HookDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_type_name(params)}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a parameter group, with its own options (the others take the optimizer's defaults).

        Args:
            param_group: a dict with the key ``"params"`` and, optionally, option values.

        Example::

            >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
            >>> opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.01})
            >>> [g["lr"] for g in opt.param_groups]
            [0.1, 0.01]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_type_name(p)}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group, params=params)
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        taken = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in taken for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)
        self._init_group_state(group)

    def _init_group_state(self, group):
        """Hook for optimizers whose state exists before the first step (Adagrad)."""

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter the optimizer holds.

        Args:
            set_to_none: set ``.grad`` to None (default) instead of filling it with zeros.
        """
        _zero_grads((p for g in self.param_groups for p in g["params"]), set_to_none)

    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before each step."""
        return self._step_pre_hooks.add(hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs), after each step."""
        return self._step_post_hooks.add(hook)

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Update every parameter that has a gradient (one optimization step).

        Args:
            closure: a function that re-evaluates the model and returns the loss; required by LBFGS,
                optional for the others.

        Returns:
            the loss the closure returned, or None.

        Example::

            >>> w = torch.nn.Parameter(torch.tensor([2.0]))
            >>> opt = torch.optim.SGD([w], lr=0.25)
            >>> (w ** 2).sum().backward()
            >>> opt.step()
            >>> w
            Parameter containing:
            tensor([1.], requires_grad=True)
        """
        args, kwargs = (), {"closure": closure}
        for hook in list(self._step_pre_hooks.values()):
            res = hook(self, args, kwargs)
            if res is not None:
                if not (isinstance(res, tuple) and len(res) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got {res}.")
                args, kwargs = res
        closure = kwargs.get("closure", args[0] if args else None)
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                if params:
                    self._update(group, params)
        for hook in list(self._step_post_hooks.values()):
            hook(self, args, kwargs)
        return loss

    def _update(self, group, params):
        raise NotImplementedError(f"{type(self).__name__} does not implement step")

    # --- state_dict -----------------------------------------------------------------------
    def state_dict(self):
        """The optimizer's state (per-parameter buffers, keyed by index) and its parameter groups' options.

        Returns:
            dict: ``{"state": ..., "param_groups": ...}``, in PyTorch's layout, for `torch.save`.

        Example::

            >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1, momentum=0.9)
            >>> sorted(opt.state_dict())
            ['param_groups', 'state']
        """
        index, groups = {}, []
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": ids})
        state = {index[id(p)]: s for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore the state `state_dict` returned (the parameters are matched by their order).

        Args:
            state_dict: a dict as returned by `state_dict`.
        """
        state_dict = copy.deepcopy(state_dict)
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        by_index = {i: p for g, s in zip(self.param_groups, saved_groups) for i, p in zip(s["params"], g["params"])}
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            if i not in by_index:
                continue
            p = by_index[i]
            # state follows its parameter's dtype, except the step count
            self.state[p] = {k: (v.to(p.dtype) if isinstance(v, Tensor) and k != "step" and v.is_floating_point()
                                 else v) for k, v in s.items()}
        self.param_groups = [dict(s, params=g["params"]) for g, s in zip(self.param_groups, saved_groups)]

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._step_pre_hooks, self._step_post_hooks = HookDict(), HookDict()

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}"
            for key in sorted(k for k in group if k != "params"):
                text += f"\n    {key}: {group[key]}"
        return text + "\n)"


def _step_tensor():
    """The per-parameter step count: a float32 scalar tensor, as torch keeps it."""
    return _registry.OPS["tensor"](0.0, dtype=_dtype.float32)


def _check_betas(betas):
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _check(value, what, minimum=0.0):
    if not minimum <= value:
        raise ValueError(f"Invalid {what}: {value}")


# ---- helpers of the _foreach_ updates -----------------------------------------------------
# The _foreach_<op> functions, as `foreach.<op>`: ops/pointwise.py generates them in a loop and
# registers them by name only (they are no module attributes), so they come from the op registry.
foreach = SimpleNamespace(**{name.removeprefix("_foreach_"): fn for name, fn in _registry.OPS.items()
                             if name.startswith("_foreach_")})


def _grads(group, params, decay=True):
    """The gradients an update follows: negated when maximizing, plus L2 weight decay (a new list)."""
    grads = [p.grad for p in params]
    if group["maximize"]:
        grads = foreach.neg(grads)
    if decay and group["weight_decay"] != 0:
        grads = foreach.add(grads, params, alpha=group["weight_decay"])
    return grads


def _lazy_state(state, params, names, scalars=None):
    """Each parameter's state, created at its first step: a step count, float32 scalars (name: initial
    value) and zero buffers `names`, in that order (torch's state_dict order). Buffers made at once for
    several parameters that _pack takes are views of one flat array per name (see _PACKS)."""
    zeros_like = _registry.OPS["zeros_like"]
    packed = None
    if names and not any(state[p] for p in params) and _packable(params):
        shapes, dtype = [p._array.shape for p in params], params[0]._array.dtype
        packed = {name: _packed_zeros(shapes, dtype) for name in names}
        packed["step"] = _packed_zeros([()] * len(params), np.dtype(np.float32))
    states = []
    for i, p in enumerate(params):
        s = state[p]
        if not s:
            s["step"] = _step_tensor() if packed is None else Tensor._make(packed["step"][i], False, None, 0)
            for name, value in (scalars or {}).items():
                s[name] = _registry.OPS["tensor"](value, dtype=_dtype.float32)
            for name in names:
                s[name] = zeros_like(p) if packed is None else Tensor._make(packed[name][i], False, None, 0)
        states.append(s)
    return states


# ---- packed buffers: a group's state as one array ------------------------------------------
# An elementwise _foreach_ update runs its op once per parameter: on a small model the per-call cost (a
# dozen op calls per parameter and step) is most of an optimizer's step. The buffers _lazy_state makes for
# a group of plain, contiguous NumPy float parameters of one dtype are views of one flat array per buffer
# name (each still a Tensor of its own in `state`, as torch keeps them); an update whose scalars are the
# same for every parameter then runs each op once on the flat arrays, the gradients copied into one
# alike: the same elementwise operations on the same values, so the same bits. Buffers replaced since
# (load_state_dict, `.data =`) leave the group on the per-parameter path.
_PACKS = {}   # id(flat array) -> (a weak reference to it, the ids of its views in parameter order)


def _packable(params):
    """Whether the buffers of `params` may be packed: two or more plain Tensors of C-contiguous NumPy
    float32/float64 arrays of one dtype."""
    if len(params) < 2:
        return False
    dtype = params[0]._array.dtype
    return dtype in _PACK_DTYPES and all(type(p) in PLAIN_TYPES and type(p._array) is np.ndarray and
                                         p._array.dtype == dtype and not p._math_bits and p._array.flags.c_contiguous
                                         for p in params)


_PACK_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _packed_zeros(shapes, dtype):
    """Zero arrays of these shapes: views, in order, of one flat array, registered in _PACKS."""
    sizes = [math.prod(shape) for shape in shapes]
    flat = np.zeros(sum(sizes), dtype)
    views, start = [], 0
    for shape, size in zip(shapes, sizes):
        views.append(flat[start:start + size].reshape(shape))
        start += size
    key = id(flat)
    _PACKS[key] = (weakref.ref(flat), [id(v) for v in views])   # (no reference: the buffers' owners keep them)
    weakref.finalize(flat, _PACKS.pop, key, None)
    return views


def _pack(buffers, *others):
    """(flat buffers, flat others) for the lists `buffers` (per parameter, one list per buffer name) and
    `others` (gradients), as one-Tensor lists, where every list of `buffers` is still exactly the views
    of one packed array (see _PACKS) and every `others` list holds plain NumPy arrays of its dtype
    (copied into one flat array); None otherwise, and while anything observes op calls (a profiler, a
    dispatch mode: it sees the per-parameter ops)."""
    if not _registry.ops_unobserved():
        return None
    flats = []
    for tensors in buffers:
        flat = tensors[0]._array.base
        entry = _PACKS.get(id(flat)) if flat is not None else None
        if entry is None or entry[0]() is not flat or len(entry[1]) != len(tensors) or \
                any(id(t._array) != v or t._array.base is not flat for t, v in zip(tensors, entry[1])):
            return None
        flats.append([Tensor._make(flat, False, None, 0)])
    dtype, size = flats[0][0]._array.dtype, flats[0][0]._array.size
    for tensors in others:
        if any(type(t._array) is not np.ndarray or t._array.dtype != dtype or t._math_bits for t in tensors):
            return None
        flat = np.concatenate([t._array.reshape(-1) for t in tensors])
        if flat.size != size:   # (a parameter resized since: the per-parameter ops give the error)
            return None
        flats.append([Tensor._make(flat, False, None, 0)])
    return flats


def _unpack(flat, params):
    """The Tensor `flat` as Tensors shaped as `params`, in order (views of its array)."""
    out, start, array = [], 0, flat._array
    for p in params:
        out.append(Tensor._make(array[start:start + p._array.size].reshape(p._array.shape), False, None, 0))
        start += p._array.size
    return out


def _add_quotients(params, numerators, denominators, value):
    """foreach.addcdiv_(params, numerators, denominators, value) for packed numerators and denominators
    (one flat Tensor each, see _pack) and a number `value`: addcdiv_'s operations, the quotient made
    once, times value, then added to each parameter."""
    update = foreach.div(numerators, denominators)
    foreach.mul_(update, value)
    foreach.add_(params, _unpack(update[0], params))


def _bump(tensors, count):
    """Advance the version counters of packed buffers by the in-place ops run on their flat array."""
    for t in tensors:
        (t._vcs or t._vc)[0] += count


def _steps(states):
    """Advance the step counts; their new values as Python numbers."""
    counts = [s["step"] for s in states]
    packed = _pack((counts,)) if len(counts) > 1 else None
    if packed is None:
        foreach.add_(counts, 1)
        return [c.item() for c in counts]
    _bump(counts, 1)
    foreach.add_(packed[0], 1)
    return packed[0][0]._array.tolist()
