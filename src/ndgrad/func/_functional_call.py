"""functional_call: call a module with some parameters and buffers replaced, as torch.func's.

The module's own registries (`_parameters`, `_buffers`, or a plain attribute for a new name) are
pointed at the given tensors for the duration of the call and restored afterwards, so the result
is a function of those tensors: grad / vmap / jacrev over a module's parameters.
"""
from ..nn.utils import stateless
from ..ops.shape import stack


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call `module` with some of its parameters and buffers replaced by the given tensors.

    The module is not changed: the replacements hold for this call only. The result is thus a
    function of the given tensors, which :func:`grad`, :func:`vmap` or :func:`jacrev` can transform.

    Args:
        module (Module): the module to call.
        parameter_and_buffer_dicts (dict or tuple of dicts): maps a name of ``module.state_dict()``
            (``"weight"``, ``"0.bias"``...) to the tensor to use; several dicts are merged (a name in
            two of them is an error).
        args (Any or tuple, optional): the positional arguments of the call (one non-tuple value is
            the single argument).
        kwargs (dict, optional): the keyword arguments of the call.
        tie_weights (bool, optional): a replacement also replaces the tied weights that share its
            tensor. Default: True.
        strict (bool, optional): every parameter and buffer must be replaced, with no unexpected
            names. Default: False.

    Returns:
        Any: what ``module(*args, **kwargs)`` returns.

    Example::

        >>> lin = torch.nn.Linear(2, 1)
        >>> params = {"weight": torch.tensor([[1.0, 2.0]]), "bias": torch.tensor([0.5])}
        >>> torch.func.functional_call(lin, params, (torch.tensor([[3.0, 4.0]]),))
        tensor([[11.5000]])
    """
    values = _merge(parameter_and_buffer_dicts)
    if tie_weights:
        values = _tie(module, values)
    if strict:
        _check_strict(module, values)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    restore = []
    try:
        for name, value in values.items():
            restore.append(_swap(module, name, value))
        return module(*args, **(kwargs or {}))
    finally:
        for undo in reversed(restore):
            undo()


def _merge(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    if not isinstance(dicts, (list, tuple)) or not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(dicts)}")
    merged, repeated = {}, []
    for d in dicts:
        for k, v in d.items():
            if k in merged and k not in repeated:
                repeated.append(k)
            merged[k] = v
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return merged


def _tied_groups(module):
    """Names sharing one tensor (tied weights), for each tensor registered under several names."""
    by_id = {}
    for registry in ("named_parameters", "named_buffers"):
        for name, t in getattr(module, registry)(remove_duplicate=False):
            by_id.setdefault(id(t), []).append(name)
    return [names for names in by_id.values() if len(names) > 1]


def _tie(module, values):
    values = dict(values)
    for names in _tied_groups(module):
        given = [n for n in names if n in values]
        if not given:
            continue
        if any(values[n] is not values[given[0]] for n in given[1:]):
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                             "Consider using tie_weights=False")
        for n in names:
            values[n] = values[given[0]]
    return values


def _check_strict(module, values):
    expected = [n for r in ("named_parameters", "named_buffers") for n, _ in getattr(module, r)(remove_duplicate=False)]
    missing = [n for n in expected if n not in values]
    unexpected = [n for n in values if n not in expected]
    errors = []
    if unexpected:
        errors.append("Unexpected key(s): {}.".format(", ".join(f"'{k}'" for k in unexpected)))
    if missing:
        errors.append("Missing key(s): {}.".format(", ".join(f"'{k}'" for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(type(module).__name__,
                                                                              "\n\t".join(errors)))


def _swap(module, name, value):
    """Point module's `name` (dotted path) at value; returns the function that undoes it."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        if part not in owner._modules:
            raise AttributeError(f"{type(owner).__name__} has no attribute `{part}`")
        owner = owner._modules[part]
    for registry in (owner._parameters, owner._buffers):
        if attr in registry:
            old = registry[attr]
            registry[attr] = value

            def undo(registry=registry, old=old):
                registry[attr] = old
            return undo
    missing = object()
    old = owner.__dict__.get(attr, missing)
    object.__setattr__(owner, attr, value)

    def undo_attr():
        if old is missing:
            object.__delattr__(owner, attr)
        else:
            object.__setattr__(owner, attr, old)
    return undo_attr


def stack_module_state(models):
    """Stack the parameters and buffers of several models of the same architecture.

    Each tensor is stacked along a new first dimension, one entry per model: with
    :func:`functional_call` and :func:`vmap` over that dimension, the models then run as one
    ensemble. The stacked parameters are new leaves (detached from the models), requiring grad where
    every model's does.

    Args:
        models (sequence of Modules): the models, all in training or all in eval mode.

    Returns:
        tuple: ``(params, buffers)``, two dicts from names to stacked tensors.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> models = [torch.nn.Linear(3, 2) for _ in range(4)]
        >>> params, buffers = torch.func.stack_module_state(models)
        >>> params["weight"].shape, buffers
        (torch.Size([4, 2, 3]), {})
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")

    def stacked(named):
        out = {}
        for name, first in named(models[0]):
            tensors = [dict(named(m))[name] for m in models]
            leaf = stack([t.detach() for t in tensors])
            out[name] = leaf.requires_grad_(all(t.requires_grad for t in tensors)) if first.is_floating_point() \
                or first.is_complex() else leaf
        return out
    return (stacked(lambda m: m.named_parameters()), stacked(lambda m: m.named_buffers()))


stateless._functional_call = functional_call   # the slot of nn.utils.stateless.functional_call (deprecated alias)
