"""torch.optim's other optimizers: Adamax, NAdam, RAdam, Adadelta, Rprop and ASGD, on _foreach_ ops
like SGD and Adam."""
from ..ops.creation import full_like, zeros_like
from ..ops.pointwise import where
from .optimizer import Optimizer, _check, _check_betas, _grads, _lazy_state, _step_tensor, _steps, foreach


def _decay(group, params):
    """Decoupled weight decay (AdamW-style) where the group asks for it; returns whether it did."""
    if group["weight_decay"] != 0 and group.get("decoupled_weight_decay"):
        foreach.mul_(params, 1 - group["lr"] * group["weight_decay"])
        return True
    return False


class Adamax(Optimizer):
    """Adam with the infinity norm: the denominator is a running maximum of ``|g|``.

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``2e-3``.
        betas (Tuple[float, float], optional): the decay rates of the running mean of the gradient
            and of the running maximum. Default: ``(0.9, 0.999)``.
        eps (float, optional): added to ``|g|``, for numerical stability. Default: ``1e-8``.
        weight_decay (float, optional): L2 penalty added to the gradient. Default: ``0``.
        foreach (bool, optional): accepted for compatibility; ndgrad always steps a group's tensors together.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.
        capturable (bool, optional): accepted for compatibility (CUDA graphs do not exist in ndgrad).
        differentiable (bool, optional): accepted for compatibility. Default: ``False``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        >>> opt = torch.optim.Adamax([x], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> x
        Parameter containing:
        tensor([ 0.7155, -1.7076], requires_grad=True)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check(lr, "learning rate")
        _check(eps, "epsilon value")
        _check_betas(betas)
        _check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _update(self, group, params):
        (beta1, beta2), lr = group["betas"], group["lr"]
        states = _lazy_state(self.state, params, ["exp_avg", "exp_inf"])
        steps = _steps(states)
        grads = _grads(group, params)
        exp_avgs, exp_infs = [s["exp_avg"] for s in states], [s["exp_inf"] for s in states]
        foreach.lerp_(exp_avgs, grads, 1 - beta1)
        foreach.mul_(exp_infs, beta2)
        magnitudes = foreach.abs(grads)
        foreach.add_(magnitudes, group["eps"])
        foreach.maximum_(exp_infs, magnitudes)
        foreach.addcdiv_(params, exp_avgs, exp_infs, [-lr / (1 - beta1 ** t) for t in steps])


class NAdam(Optimizer):
    """Adam with Nesterov momentum and a momentum schedule ``mu_t = beta1 (1 - 0.96^(t psi) / 2)``.

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``2e-3``.
        betas (Tuple[float, float], optional): the decay rates of the two moment estimates.
            Default: ``(0.9, 0.999)``.
        eps (float, optional): added to the denominator, for numerical stability. Default: ``1e-8``.
        weight_decay (float, optional): the weight decay. Default: ``0``.
        momentum_decay (float, optional): ``psi``, how fast the momentum schedule moves. Default: ``4e-3``.
        decoupled_weight_decay (bool, optional): decay the weights directly (as AdamW) instead of
            adding an L2 penalty to the gradient. Default: ``False``.
        foreach (bool, optional): accepted for compatibility; ndgrad always steps a group's tensors together.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.
        capturable (bool, optional): accepted for compatibility (CUDA graphs do not exist in ndgrad).
        differentiable (bool, optional): accepted for compatibility. Default: ``False``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        >>> opt = torch.optim.NAdam([x], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> x
        Parameter containing:
        tensor([ 0.7527, -1.7475], requires_grad=True)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check(lr, "learning rate")
        _check(eps, "epsilon value")
        _check_betas(betas)
        _check(weight_decay, "weight_decay value")
        _check(momentum_decay, "momentum_decay value")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, group, params):
        (beta1, beta2), lr, psi = group["betas"], group["lr"], group["momentum_decay"]
        states = _lazy_state(self.state, params, ["exp_avg", "exp_avg_sq"], scalars={"mu_product": 1.0})
        steps = _steps(states)
        grads = _grads(group, params, decay=not _decay(group, params))
        exp_avgs, exp_avg_sqs = [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]
        foreach.lerp_(exp_avgs, grads, 1 - beta1)
        foreach.mul_(exp_avg_sqs, beta2)
        foreach.addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
        denom = foreach.sqrt(exp_avg_sqs)
        mus = [beta1 * (1.0 - 0.5 * 0.96 ** (t * psi)) for t in steps]
        mu_nexts = [beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi)) for t in steps]
        products = [s["mu_product"] for s in states]
        foreach.mul_(products, mus)
        foreach.div_(denom, [(1 - beta2 ** t) ** 0.5 for t in steps])
        foreach.add_(denom, group["eps"])
        products = [m.item() for m in products]
        foreach.addcdiv_(params, grads, denom,
                              [-lr * (1.0 - mu) / (1.0 - prod) for mu, prod in zip(mus, products)])
        foreach.addcdiv_(params, exp_avgs, denom,
                              [-lr * nxt / (1.0 - prod * nxt) for nxt, prod in zip(mu_nexts, products)])


class RAdam(Optimizer):
    """Adam with the variance of the adaptive rate rectified: plain momentum SGD while ``rho_t <= 5``.

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``1e-3``.
        betas (Tuple[float, float], optional): the decay rates of the two moment estimates.
            Default: ``(0.9, 0.999)``.
        eps (float, optional): added to the denominator, for numerical stability. Default: ``1e-8``.
        weight_decay (float, optional): the weight decay. Default: ``0``.
        decoupled_weight_decay (bool, optional): decay the weights directly (as AdamW) instead of
            adding an L2 penalty to the gradient. Default: ``False``.
        foreach (bool, optional): accepted for compatibility; ndgrad always steps a group's tensors together.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.
        capturable (bool, optional): accepted for compatibility (CUDA graphs do not exist in ndgrad).
        differentiable (bool, optional): accepted for compatibility. Default: ``False``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        >>> opt = torch.optim.RAdam([x], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> x
        Parameter containing:
        tensor([ 0.4623, -0.9246], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check(lr, "learning rate")
        _check(eps, "epsilon value")
        _check_betas(betas)
        _check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _update(self, group, params):
        (beta1, beta2), lr = group["betas"], group["lr"]
        states = _lazy_state(self.state, params, ["exp_avg", "exp_avg_sq"])
        steps = _steps(states)
        grads = _grads(group, params, decay=not _decay(group, params))
        rho_inf = 2 / (1 - beta2) - 1
        rhos = [rho_inf - 2 * t * beta2 ** t / (1 - beta2 ** t) for t in steps]
        exp_avgs, exp_avg_sqs = [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]
        foreach.lerp_(exp_avgs, grads, 1 - beta1)
        foreach.mul_(exp_avg_sqs, beta2)
        foreach.addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
        rects = [((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho)) ** 0.5 if rho > 5 else 0
                 for rho in rhos]
        corrections = [1 - beta1 ** t for t in steps]
        # the step is exp_avg * (rectified Adam rate, or the plain rate while the variance is untrusted)
        plain = [-(lr * (0 if r > 0 else 1.0) / c) for r, c in zip(rects, corrections)]
        adaptive = [-((1 - beta2 ** t) ** 0.5) * (lr * r / c) for t, r, c in zip(steps, rects, corrections)]
        rate = foreach.sqrt(exp_avg_sqs)
        foreach.add_(rate, group["eps"])
        foreach.div_(rate, adaptive)
        foreach.reciprocal_(rate)
        foreach.add_(rate, plain)
        foreach.addcmul_(params, exp_avgs, rate)


class Adadelta(Optimizer):
    """Steps scaled by the ratio of a running RMS of past updates to a running RMS of gradients.

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``1.0``. It scales the update.
        rho (float, optional): the decay rate of both running averages. Default: ``0.9``.
        eps (float, optional): added inside both square roots, for numerical stability. Default: ``1e-6``.
        weight_decay (float, optional): L2 penalty added to the gradient. Default: ``0``.
        foreach (bool, optional): accepted for compatibility; ndgrad always steps a group's tensors together.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.
        capturable (bool, optional): accepted for compatibility (CUDA graphs do not exist in ndgrad).
        differentiable (bool, optional): accepted for compatibility. Default: ``False``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        >>> opt = torch.optim.Adadelta([x], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> x
        Parameter containing:
        tensor([ 0.9990, -1.9990], requires_grad=True)
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check(lr, "learning rate")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check(eps, "epsilon value")
        _check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _update(self, group, params):
        rho, eps = group["rho"], group["eps"]
        states = _lazy_state(self.state, params, ["square_avg", "acc_delta"])
        _steps(states)
        grads = _grads(group, params)
        square_avgs, acc_deltas = [s["square_avg"] for s in states], [s["acc_delta"] for s in states]
        foreach.mul_(square_avgs, rho)
        foreach.addcmul_(square_avgs, grads, grads, 1 - rho)
        std = foreach.add(square_avgs, eps)
        foreach.sqrt_(std)
        deltas = foreach.add(acc_deltas, eps)
        foreach.sqrt_(deltas)
        foreach.div_(deltas, std)
        foreach.mul_(deltas, grads)
        foreach.mul_(acc_deltas, rho)
        foreach.addcmul_(acc_deltas, deltas, deltas, 1 - rho)
        foreach.add_(params, deltas, alpha=-group["lr"])


class Rprop(Optimizer):
    """Resilient backpropagation: each weight has its own step size and moves by the sign of its gradient.

    A step size grows by ``etas[1]`` while the gradient keeps its sign and shrinks by ``etas[0]``
    when the sign flips (and that step is skipped).

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``1e-2``. It is the initial step size.
        etas (Tuple[float, float], optional): the shrink and grow factors. Default: ``(0.5, 1.2)``.
        step_sizes (Tuple[float, float], optional): the smallest and largest step sizes.
            Default: ``(1e-6, 50)``.
        foreach (bool, optional): accepted for compatibility; ndgrad always steps a group's tensors together.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.
        capturable (bool, optional): accepted for compatibility (CUDA graphs do not exist in ndgrad).
        differentiable (bool, optional): accepted for compatibility. Default: ``False``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        >>> opt = torch.optim.Rprop([x], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> x
        Parameter containing:
        tensor([ 0.6360, -1.6360], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check(lr, "learning rate")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, group, params):
        (shrink, grow), (smallest, largest) = group["etas"], group["step_sizes"]
        states = []
        for p in params:
            s = self.state[p]
            if not s:
                s.update(step=_step_tensor(), prev=zeros_like(p), step_size=full_like(p, group["lr"]))
            states.append(s)
        _steps(states)
        grads = [-p.grad if group["maximize"] else p.grad for p in params]
        prevs, sizes = [s["prev"] for s in states], [s["step_size"] for s in states]
        signs = foreach.sign(foreach.mul(grads, prevs))
        factors = [where(s > 0, grow, where(s < 0, shrink, 1.0)).to(s.dtype) for s in signs]
        foreach.mul_(sizes, factors)
        for size in sizes:
            size.clamp_(smallest, largest)
        for prev, g, s in zip(prevs, grads, signs):   # after a sign flip, this step and the next start afresh
            prev.copy_(where(s < 0, 0.0, g).to(g.dtype))
        foreach.addcmul_(params, foreach.sign(prevs), sizes, -1)


class ASGD(Optimizer):
    """Averaged SGD: a decaying rate ``eta_t = lr / (1 + lambd lr t)^alpha`` and a running average
    ``ax`` (in the optimizer's state) of the iterates from step ``t0`` on.

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``1e-2``.
        lambd (float, optional): the decay term. Default: ``1e-4``.
        alpha (float, optional): the power of the rate's decay. Default: ``0.75``.
        t0 (float, optional): the step at which averaging starts. Default: ``1e6``.
        weight_decay (float, optional): L2 penalty added to the gradient. Default: ``0``.
        foreach (bool, optional): accepted for compatibility; ndgrad always steps a group's tensors together.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.
        capturable (bool, optional): accepted for compatibility (CUDA graphs do not exist in ndgrad).
        differentiable (bool, optional): accepted for compatibility. Default: ``False``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        >>> opt = torch.optim.ASGD([x], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> x
        Parameter containing:
        tensor([ 0.5120, -1.0240], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        _check(lr, "learning rate")
        _check(weight_decay, "weight_decay value")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, group, params):
        lr, lambd = group["lr"], group["lambd"]
        states = _lazy_state(self.state, params, ["ax"], scalars={"eta": lr, "mu": 1.0})
        steps = _steps(states)
        grads = _grads(group, params)
        etas, mus, axs = [s["eta"] for s in states], [s["mu"] for s in states], [s["ax"] for s in states]
        foreach.addcmul_(params, foreach.add(grads, params, alpha=lambd), etas, -1)
        foreach.addcmul_(axs, foreach.sub(params, axs), mus)
        for eta, mu, t in zip(etas, mus, steps):
            eta.fill_(lr / ((1 + lambd * lr * t) ** group["alpha"]))
            mu.fill_(1 / max(1, t - group["t0"]))
