"""Adagrad with learning-rate decay and an initial accumulator value (on _foreach_ ops)."""
from ..ops.creation import full_like
from .optimizer import Optimizer, _check, _grads, _step_tensor, _steps, foreach


class Adagrad(Optimizer):
    """Adagrad: each parameter's step is divided by the root of the sum of its squared past gradients.

    Args:
        params: the parameters, or parameter groups (see `Optimizer`).
        lr: the learning rate (default 0.01).
        lr_decay: the learning rate at step t is ``lr / (1 + (t - 1) * lr_decay)``.
        weight_decay: L2 penalty added to the gradient.
        initial_accumulator_value: the starting value of the sum of squares.
        eps: added to the denominator, for numerical stability.
        maximize: ascend the objective instead of descending it.
        foreach, differentiable, fused: accepted as torch's are; ``differentiable=True`` and ``fused=True``
            raise NotImplementedError (the updates always run on the ``_foreach_`` ops under no_grad).

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([3.0]))
        >>> opt = torch.optim.Adagrad([x], lr=1.0)
        >>> for _ in range(50):
        ...     opt.zero_grad()
        ...     ((x - 1) ** 2).sum().backward()
        ...     opt.step()
        >>> abs(x.item() - 1) < 0.01
        True
    """
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check(lr, "learning rate")
        _check(lr_decay, "lr_decay value")
        _check(weight_decay, "weight_decay value")
        _check(initial_accumulator_value, "initial_accumulator_value value")
        _check(eps, "epsilon value")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))

    def _init_group_state(self, group):
        # torch creates Adagrad's state with the optimizer, not at the first step
        for p in group["params"]:
            self.state[p] = {"step": _step_tensor(), "sum": full_like(p, group["initial_accumulator_value"])}

    def _update(self, group, params):
        lr, lr_decay = group["lr"], group["lr_decay"]
        states = [self.state[p] for p in params]
        steps = _steps(states)
        grads = _grads(group, params)
        sums = [s["sum"] for s in states]
        foreach.addcmul_(sums, grads, grads, 1)
        std = foreach.sqrt(sums)
        foreach.add_(std, group["eps"])
        numerator = foreach.mul(grads, [-lr / (1 + (t - 1) * lr_decay) for t in steps])
        foreach.addcdiv_(params, numerator, std)
