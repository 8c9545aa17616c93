"""RMSprop, optionally centered and with momentum."""
from .. import zeros_like
from .optimizer import Optimizer, _check, _step_tensor


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
        lr, alpha, eps, wd, momentum = group["lr"], group["alpha"], group["eps"], group["weight_decay"], \
            group["momentum"]
        for p in params:
            g = -p.grad if group["maximize"] else p.grad
            state = self.state[p]
            if not state:
                state["step"] = _step_tensor()
                state["square_avg"] = zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            state["step"].add_(1)
            if wd != 0:
                g = g.add(p, alpha=wd)
            square_avg = state["square_avg"].mul_(alpha).addcmul_(g, g, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"].lerp_(g, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_().add_(eps)
            else:
                avg = square_avg.sqrt().add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"].mul_(momentum).addcdiv_(g, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(g, avg, value=-lr)
