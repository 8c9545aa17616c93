"""Adam and AdamW (decoupled weight decay), with amsgrad and maximize (on _foreach_ ops)."""
from typing import Any, Optional, Tuple

from .optimizer import (Optimizer, _add_quotients, _bump, _check, _check_betas, _grads, _lazy_state, _pack, _steps,
                        foreach)


class Adam(Optimizer):
    """Adam: steps scaled by running estimates of the gradient's first and second moments.

    Args:
        params: the parameters, or parameter groups (see `Optimizer`).
        lr: the learning rate.
        betas: the decay rates of the two moment estimates.
        eps: added to the denominator, for numerical stability.
        weight_decay: L2 penalty added to the gradient (see `AdamW` for decoupled decay).
        amsgrad: use the maximum of past second-moment estimates.
        maximize: ascend the objective instead of descending it.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([3.0, -2.0]))
        >>> opt = torch.optim.Adam([x], lr=0.1)
        >>> for _ in range(200):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> bool(x.abs().max() < 0.05)
        True
    """
    def __init__(self, params: Any, lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: Optional[bool] = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: Optional[bool] = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check(lr, "learning rate")
        _check(eps, "epsilon value")
        _check_betas(betas)
        _check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, group, params):
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        names = ["exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if group["amsgrad"] else [])
        states = _lazy_state(self.state, params, names)
        grads = _grads(group, params, decay=not group["decoupled_weight_decay"])
        if wd != 0 and group["decoupled_weight_decay"]:
            foreach.mul_(params, 1 - lr * wd)
        exp_avgs, exp_avg_sqs = [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]
        steps = _steps(states)
        # one step count for all: the same ops on the packed buffers, if they are (see optimizer._pack)
        packed = None if group["amsgrad"] or steps.count(steps[0]) != len(steps) else \
            _pack((exp_avgs, exp_avg_sqs), grads)
        if packed is not None:
            _bump(exp_avgs, 1)
            _bump(exp_avg_sqs, 2)
            (exp_avgs, exp_avg_sqs, grads), steps = packed, steps[:1]
        foreach.lerp_(exp_avgs, grads, 1 - beta1)
        foreach.mul_(exp_avg_sqs, beta2)
        foreach.addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
        step_sizes = [-lr / (1 - beta1 ** t) for t in steps]
        bias_correction2_sqrt = [(1 - beta2 ** t) ** 0.5 for t in steps]
        if group["amsgrad"]:
            maxes = [s["max_exp_avg_sq"] for s in states]
            foreach.maximum_(maxes, exp_avg_sqs)
            denom = foreach.sqrt(maxes)
        else:
            denom = foreach.sqrt(exp_avg_sqs)
        foreach.div_(denom, bias_correction2_sqrt)
        foreach.add_(denom, eps)
        if packed is None:
            foreach.addcdiv_(params, exp_avgs, denom, step_sizes)
        else:
            _add_quotients(params, exp_avgs, denom, step_sizes[0])


class AdamW(Adam):
    """AdamW: :class:`Adam` with decoupled weight decay (the parameters shrink by ``lr * weight_decay``
    each step, apart from the gradient's moments).

    Args:
        params: the parameters, or parameter groups (see `Optimizer`).
        lr: the learning rate.
        betas: the decay rates of the two moment estimates.
        eps: added to the denominator, for numerical stability.
        weight_decay: the decoupled decay factor (default 0.01).
        amsgrad: use the maximum of past second-moment estimates.
        maximize: ascend the objective instead of descending it.
        capturable: accepted for compatibility (no CUDA graphs here).
        foreach, differentiable, fused: accepted as torch's are; ``differentiable=True`` and ``fused=True``
            raise NotImplementedError (the updates always run on the ``_foreach_`` ops under no_grad).

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0]))
        >>> opt = torch.optim.AdamW([x], lr=0.1, weight_decay=0.5)
        >>> x.grad = torch.tensor([0.0])
        >>> opt.step()
        >>> x
        Parameter containing:
        tensor([0.9500], requires_grad=True)
    """
    def __init__(self, params: Any, lr: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach: Optional[bool] = None,
                 capturable: bool = False, differentiable: bool = False, fused: Optional[bool] = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
