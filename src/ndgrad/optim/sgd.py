"""SGD with momentum, dampening, Nesterov momentum, weight decay and maximize (on _foreach_ ops)."""
from typing import Any, Optional

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, _bump, _check, _grads, _pack, _packable, _packed_zeros, foreach


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum (heavy-ball or Nesterov) and weight decay.

    Args:
        params: the parameters, or parameter groups (see `Optimizer`).
        lr: the learning rate.
        momentum: the momentum factor (default 0: plain SGD).
        dampening: how much of the gradient the momentum buffer does not take.
        weight_decay: L2 penalty added to the gradient.
        nesterov: use Nesterov momentum (needs momentum > 0 and no dampening).
        maximize: ascend the objective instead of descending it.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([3.0]))
        >>> opt = torch.optim.SGD([x], lr=0.1, momentum=0.9)
        >>> for _ in range(100):
        ...     opt.zero_grad()
        ...     ((x - 1) ** 2).sum().backward()
        ...     opt.step()
        >>> abs(x.item() - 1) < 0.01
        True
    """
    def __init__(self, params: Any, lr: float = 1e-3, momentum: float = 0, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False, foreach: Optional[bool] = None,
                 differentiable: bool = False, fused: Optional[bool] = None) -> None:
        _check(lr, "learning rate")
        _check(momentum, "momentum value")
        _check(weight_decay, "weight_decay value")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, group, params):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        grads = _grads(group, params)
        if momentum != 0:
            states = [self.state[p] for p in params]
            old = [i for i, s in enumerate(states) if s.get("momentum_buffer") is not None]
            if old:
                bufs, olds = [states[i]["momentum_buffer"] for i in old], [grads[i] for i in old]
                packed = _pack((bufs,), olds) if len(old) > 1 else None   # (one op per stage: see optimizer._pack)
                if packed is not None:
                    _bump(bufs, 2)
                    bufs, olds = packed
                foreach.mul_(bufs, momentum)
                foreach.add_(bufs, olds, alpha=1 - dampening)
            elif _packable(params) and all(type(g._array) is np.ndarray and g._array.dtype == params[0]._array.dtype
                                           and g._array.flags.c_contiguous for g in grads):
                # every buffer new: packed copies of the gradients
                for s, view, g in zip(states, _packed_zeros([p._array.shape for p in params], grads[0]._array.dtype),
                                      grads):
                    np.copyto(view, g._array)
                    s["momentum_buffer"] = Tensor._make(view, False, None, 0)
            for i, s in enumerate(states):   # the first step's buffer is the gradient itself
                if s.get("momentum_buffer") is None:
                    s["momentum_buffer"] = grads[i].clone().detach()
            bufs = [s["momentum_buffer"] for s in states]
            if group["nesterov"]:
                grads = foreach.add(grads, bufs, alpha=momentum)
            else:
                grads = bufs
        foreach.add_(params, grads, alpha=-lr)
