"""Adagrad with learning-rate decay and an initial accumulator value."""
from .. import full_like
from .optimizer import Optimizer, _check, _step_tensor


class Adagrad(Optimizer):
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
        lr, lr_decay, wd, eps = group["lr"], group["lr_decay"], group["weight_decay"], group["eps"]
        for p in params:
            g = -p.grad if group["maximize"] else p.grad
            state = self.state[p]
            state["step"].add_(1)
            if wd != 0:
                g = g.add(p, alpha=wd)
            clr = lr / (1 + (state["step"].item() - 1) * lr_decay)
            state["sum"].addcmul_(g, g, value=1)
            p.addcdiv_(g, state["sum"].sqrt().add_(eps), value=-clr)
