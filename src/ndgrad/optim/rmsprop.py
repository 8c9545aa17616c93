"""RMSprop, optionally centered and with momentum (on _foreach_ ops)."""
from .optimizer import Optimizer, _check, _grads, _lazy_state, _steps, foreach


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
        foreach.mul_(square_avgs, alpha)
        foreach.addcmul_(square_avgs, grads, grads, 1 - alpha)
        if group["centered"]:
            grad_avgs = [s["grad_avg"] for s in states]
            foreach.lerp_(grad_avgs, grads, 1 - alpha)
            avg = foreach.addcmul(square_avgs, grad_avgs, grad_avgs, -1)
            foreach.sqrt_(avg)
        else:
            avg = foreach.sqrt(square_avgs)
        foreach.add_(avg, eps)
        if momentum > 0:
            bufs = [s["momentum_buffer"] for s in states]
            foreach.mul_(bufs, momentum)
            foreach.addcdiv_(bufs, grads, avg)
            foreach.add_(params, bufs, alpha=-lr)
        else:
            foreach.addcdiv_(params, grads, avg, -lr)
