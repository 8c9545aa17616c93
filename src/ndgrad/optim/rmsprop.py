"""RMSprop, optionally centered and with momentum (on _foreach_ ops)."""
import ndgrad as _nd
from .optimizer import Optimizer, _check, _grads, _lazy_state, _steps


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check(lr, "learning rate")
        _check(eps, "epsilon value")
        _check(momentum, "momentum value")
        _check(weight_decay, "weight_decay value")
        _check(alpha, "alpha value")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, group, params):
        lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
        names = ["square_avg"] + (["momentum_buffer"] if momentum > 0 else []) + \
            (["grad_avg"] if group["centered"] else [])
        states = _lazy_state(self.state, params, names)
        _steps(states)
        grads = _grads(group, params)
        square_avgs = [s["square_avg"] for s in states]
        _nd._foreach_mul_(square_avgs, alpha)
        _nd._foreach_addcmul_(square_avgs, grads, grads, 1 - alpha)
        if group["centered"]:
            grad_avgs = [s["grad_avg"] for s in states]
            _nd._foreach_lerp_(grad_avgs, grads, 1 - alpha)
            avg = _nd._foreach_addcmul(square_avgs, grad_avgs, grad_avgs, -1)
            _nd._foreach_sqrt_(avg)
        else:
            avg = _nd._foreach_sqrt(square_avgs)
        _nd._foreach_add_(avg, eps)
        if momentum > 0:
            bufs = [s["momentum_buffer"] for s in states]
            _nd._foreach_mul_(bufs, momentum)
            _nd._foreach_addcdiv_(bufs, grads, avg)
            _nd._foreach_add_(params, bufs, alpha=-lr)
        else:
            _nd._foreach_addcdiv_(params, grads, avg, -lr)
