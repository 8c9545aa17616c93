"""RMSprop, optionally centered and with momentum (on _foreach_ ops)."""
from .optimizer import Optimizer, _add_quotients, _bump, _check, _grads, _lazy_state, _pack, _steps, _unpack, foreach


class RMSprop(Optimizer):
    """RMSprop: steps divided by the root of a running average of the squared gradients.

    Args:
        params: the parameters, or parameter groups (see `Optimizer`).
        lr: the learning rate (default 0.01).
        alpha: the decay rate of the running average.
        eps: added to the denominator, for numerical stability.
        weight_decay: L2 penalty added to the gradient.
        momentum: the momentum factor (default 0: none).
        centered: divide by an estimate of the gradient's variance (the
            average of the squares minus the square of the average) instead.
        maximize: ascend the objective instead of descending it.
        capturable: accepted for compatibility (no CUDA graphs here).
        foreach, differentiable: accepted as torch's are; ``differentiable=True`` raises
            NotImplementedError (the updates always run on the ``_foreach_`` ops under no_grad).

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([3.0]))
        >>> opt = torch.optim.RMSprop([x], lr=0.05)
        >>> for _ in range(200):
        ...     opt.zero_grad()
        ...     ((x - 1) ** 2).sum().backward()
        ...     opt.step()
        >>> abs(x.item() - 1) < 0.05
        True
    """
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
        buffers = [[s[name] for s in states] for name in names]
        packed = _pack(buffers, grads)   # (one op per stage where the buffers are packed: see optimizer._pack)
        if packed is not None:
            for name, tensors in zip(names, buffers):   # (their in-place ops below)
                _bump(tensors, 1 if name == "grad_avg" else 2)
            *buffers, grads = packed
            states = [dict(zip(names, (b[0] for b in buffers)))]   # (the flat buffers, one state for the code below)
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
            foreach.add_(params, bufs if packed is None else _unpack(bufs[0], params), alpha=-lr)
        elif packed is None:
            foreach.addcdiv_(params, grads, avg, -lr)
        else:
            _add_quotients(params, grads, avg, -lr)
