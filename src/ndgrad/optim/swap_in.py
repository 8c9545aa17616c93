"""torch.optim.swap_in_optimizer_params_and_state: run an optimizer's step on other parameter
tensors and another state (an `optimizer.state_dict()`-shaped dict) without changing the live one."""
import collections
import contextlib


def _swap_in_groups(optimizer, parameters, optim_state):
    """[(live group, swap-in group, its parameters)] and the swap-in state, checked against the live
    optimizer as torch checks them."""
    if not optimizer.state:
        raise RuntimeError("swap_in_optimizer_params_and_state requires initialized optimizer state.")
    if not isinstance(optim_state, dict):
        raise RuntimeError("swap_in_optimizer_params_and_state requires a DCP-style optimizer state_dict.")
    state, groups = optim_state.get("state"), optim_state.get("param_groups")
    if not isinstance(state, dict) or not isinstance(groups, list) or len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swap_in_optimizer_params_and_state requires swapin_optim_state to have a 'state' dict "
                           "and one 'param_groups' entry per optimizer param group.")
    flat = list(parameters.values())
    out, offset, seen = [], 0, set()
    for live, group in zip(optimizer.param_groups, groups):
        if set(group) != set(live):
            raise RuntimeError("swap_in_optimizer_params_and_state requires optimizer.state_dict()-style param group "
                               "keys to exactly match the live optimizer group keys.")
        ids = list(group["params"])
        seen.update(ids)
        if offset + len(ids) > len(flat):
            raise RuntimeError("swap_in_optimizer_params_and_state requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        out.append((live, group, flat[offset:offset + len(ids)]))
        offset += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError("swap_in_optimizer_params_and_state requires swapin_optim_state['state'] to be keyed only "
                           f"by packed parameter ids from param_groups[*]['params']; got extra keys {extra!r}.")
    return out, state


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """A context in which an optimizer steps other parameter tensors with another state, leaving its own untouched.

    Inside the context the optimizer's groups hold `swapin_parameters` (in the order of the live
    parameters) and the hyperparameters of `swapin_optim_state`, and its state is that dict's
    (per-parameter dicts copied, so in-place tensor updates reach the caller's tensors); on exit the
    live groups and state come back.

    Args:
        optimizer (Optimizer): an optimizer that has stepped at least once (its state is initialized).
        swapin_parameters (dict): name to tensor, one per live parameter, in the live order.
        swapin_optim_state (dict): a state in the form of ``optimizer.state_dict()``.

    Example::

        >>> import copy
        >>> x = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        >>> opt = torch.optim.SGD([x], lr=0.1, momentum=0.9)
        >>> x.grad = torch.ones(2)
        >>> opt.step()
        >>> other = torch.nn.Parameter(torch.tensor([5.0, 5.0]))
        >>> state = copy.deepcopy(opt.state_dict())
        >>> with torch.optim.swap_in_optimizer_params_and_state(opt, {"w": other}, state):
        ...     other.grad = torch.ones(2)
        ...     opt.step()
        >>> other
        Parameter containing:
        tensor([4.8100, 4.8100], requires_grad=True)
        >>> state["state"][0]["momentum_buffer"], opt.state[x]["momentum_buffer"]
        (tensor([1.9000, 1.9000]), tensor([1., 1.]))
    """
    groups, state = _swap_in_groups(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped = collections.defaultdict(dict)
        for live, group, params in groups:
            live.update({k: v for k, v in group.items() if k != "params"})
            live["params"] = params
            for p, pid in zip(params, group["params"]):
                swapped[p] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for live, snapshot in zip(optimizer.param_groups, snapshots):
            live.clear()
            live.update(snapshot)
        optimizer.state = live_state
