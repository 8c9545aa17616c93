"""Adafactor (factored second moments), Muon (orthogonalized momentum) and SparseAdam (Adam on the
rows a sparse gradient touches): torch.optim's optimizers with per-parameter rules, so one tensor at
a time rather than on _foreach_ ops."""
import math

from .. import _dtype
from .._typeinfo import finfo
from ..ops import _registry
from .optimizer import Optimizer, _check, _check_betas, _step_tensor

_OPS = _registry.OPS


def _at_least(value, minimum, what):
    if not value >= minimum:
        raise ValueError(f"{what} should be >= {minimum} but is: {value}")


def _refuse(p, name, sparse=True):
    if p.is_complex():
        raise RuntimeError(f"{name} does not support complex parameters")
    if sparse and p.grad.is_sparse:
        raise RuntimeError(f"{name} does not support sparse gradients")


class Adafactor(Optimizer):
    """Adafactor (Shazeer & Stern, 2018) as torch has it: the second moment of a matrix gradient
    kept as row and column means of its last two dimensions, and a relative step size.

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``1e-2``.
        beta2_decay (float, optional): the decay rate of the second moment is ``1 - t^beta2_decay``.
            Default: ``-0.8``.
        eps (Tuple[float, float], optional): the floor of the second moment (``None``: the dtype's
            eps) and of the parameter's RMS that scales the step. Default: ``(None, 1e-3)``.
        d (float, optional): the clipping threshold of the update's RMS. Default: ``1.0``.
        weight_decay (float, optional): decoupled weight decay. Default: ``0.0``.
        foreach (bool, optional): accepted for compatibility.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
        >>> opt = torch.optim.Adafactor([x], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (x ** 2).sum().backward()
        ...     opt.step()
        >>> x
        Parameter containing:
        tensor([ 0.5987, -1.5822], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        _at_least(lr, 0.0, "Learning rate")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None:
            _at_least(eps[0], 0.0, "epsilon1")
        _at_least(eps[1], 0.0, "epsilon2")
        _at_least(d, 1.0, "Clipping threshold d")
        _at_least(weight_decay, 0.0, "weight_decay")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    def _update(self, group, params):
        lr, d, wd = group["lr"], group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        for p in params:
            _refuse(p, "Adafactor")
            grad = -p.grad if group["maximize"] else p.grad
            state = self.state[p]
            if not state:
                state["step"] = _step_tensor()
                if grad.dim() > 1:   # factored along the last two dimensions
                    state["row_var"] = grad.new_zeros(grad.shape[:-1] + (1,))
                    state["col_var"] = grad.new_zeros(grad.shape[:-2] + (1, grad.shape[-1]))
                else:
                    state["variance"] = _OPS["zeros_like"](grad)
            e1 = finfo(p.dtype).eps if eps1 is None else eps1
            state["step"] += 1
            step = state["step"].item()
            weight = step ** group["beta2_decay"]   # 1 - beta2 at this step
            alpha = max(eps2, p.norm(2).item() / math.sqrt(p.numel())) * min(lr, 1 / math.sqrt(step))
            if wd != 0:
                p.mul_(1 - lr * wd)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_var.lerp_((grad * grad).mean(-1, keepdim=True), weight)
                col_var.lerp_((grad * grad).mean(-2, keepdim=True), weight)
                var = (row_var @ col_var) / row_var.mean(-2, keepdim=True).clamp(min=e1)
            else:
                state["variance"].lerp_(grad * grad, weight)
                var = state["variance"]
            update = var.clamp(min=e1 * e1).rsqrt() * grad
            denom = max(1.0, update.norm(2).item() / (math.sqrt(update.numel()) * d))
            p.add_(update, alpha=-alpha / denom)


def _orthogonalized(g, coefficients, steps, eps):
    """The Newton-Schulz iteration (quintic, in bfloat16) that Muon uses for the nearest
    semi-orthogonal matrix to `g`."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if g.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = g.size(0) > g.size(1)
    x = g.to(_dtype.bfloat16)
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.T
        x = _OPS["addmm"](x, _OPS["addmm"](gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


class Muon(Optimizer):
    """Muon: momentum on 2-D parameters, each update orthogonalized by Newton-Schulz iterations.

    Only matrices are accepted: give biases, embeddings and other parameters to another optimizer.

    Args:
        params (iterable): the 2-D parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``1e-3``.
        weight_decay (float, optional): decoupled weight decay. Default: ``0.1``.
        momentum (float, optional): the momentum factor. Default: ``0.95``.
        nesterov (bool, optional): use Nesterov momentum. Default: ``True``.
        ns_coefficients (Tuple[float, float, float], optional): the coefficients of the quintic
            iteration. Default: ``(3.4445, -4.775, 2.0315)``.
        eps (float, optional): the floor of the norm the update is first divided by. Default: ``1e-7``.
        ns_steps (int, optional): the number of iterations (under 100). Default: ``5``.
        adjust_lr_fn (str, optional): how the rate is scaled by the matrix's shape: ``None`` or
            ``"original"`` (``sqrt(max(1, rows / cols))``), or ``"match_rms_adamw"``.

    Example::

        >>> w = torch.nn.Parameter(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> opt = torch.optim.Muon([w], lr=0.1)
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w
        Parameter containing:
        tensor([[1.0584, 1.8984],
                [2.8966, 3.9353]], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        _at_least(lr, 0.0, "Learning rate")
        _at_least(momentum, 0.0, "momentum")
        _at_least(weight_decay, 0.0, "weight decay")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def _update(self, group, params):
        lr, momentum = group["lr"], group["momentum"]
        for p in params:
            _refuse(p, "Muon")
            grad = p.grad
            state = self.state[p]
            if not state:
                state["momentum_buffer"] = _OPS["zeros_like"](grad)
            buf = state["momentum_buffer"]
            buf.lerp_(grad, 1 - momentum)
            update = _orthogonalized(grad.lerp(buf, momentum) if group["nesterov"] else buf,
                                     group["ns_coefficients"], group["ns_steps"], group["eps"])
            rows, cols = p.shape[:2]
            ratio = 0.2 * math.sqrt(max(rows, cols)) if group["adjust_lr_fn"] == "match_rms_adamw" \
                else math.sqrt(max(1, rows / cols))
            p.mul_(1 - lr * group["weight_decay"])
            p.add_(update, alpha=-lr * ratio)


class SparseAdam(Optimizer):
    """Adam for sparse gradients (``nn.Embedding(sparse=True)``): the moments and the parameter change
    only at the entries the gradient holds.

    Args:
        params (iterable): the parameters, or parameter groups (see `Optimizer`).
        lr (float, optional): the learning rate. Default: ``1e-3``.
        betas (Tuple[float, float], optional): the decay rates of the two moment estimates.
            Default: ``(0.9, 0.999)``.
        eps (float, optional): added to the denominator, for numerical stability. Default: ``1e-8``.
        maximize (bool, optional): ascend the objective instead of descending it. Default: ``False``.

    Example::

        >>> emb = torch.nn.Embedding(4, 2, sparse=True)
        >>> with torch.no_grad():
        ...     _ = emb.weight.fill_(1.0)
        >>> opt = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
        >>> emb(torch.tensor([0, 2])).sum().backward()
        >>> opt.step()
        >>> emb.weight
        Parameter containing:
        tensor([[0.9000, 0.9000],
                [1.0000, 1.0000],
                [0.9000, 0.9000],
                [1.0000, 1.0000]], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        _check(lr, "learning rate")
        _check(eps, "epsilon value")
        _check_betas(betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        for kind, test, what in (("Sparse", lambda p: p.is_sparse, "SparseAdam requires dense parameter tensors"),
                                 ("Complex", lambda p: p.is_complex(), "SparseAdam does not support complex "
                                                                       "parameters")):
            found = [[i, j] for i, g in enumerate(self.param_groups) for j, p in enumerate(g["params"]) if test(p)]
            if found:
                raise ValueError(f"{kind} params at indices {found}: {what}")

    def _update(self, group, params):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        for p in params:
            if not p.grad.is_sparse:
                raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
            grad = p.grad.coalesce()
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = _OPS["zeros_like"](p)
                state["exp_avg_sq"] = _OPS["zeros_like"](p)
            state["step"] += 1
            step = state["step"]
            at = tuple(grad._indices())   # the rows (entries) the gradient touches
            values = -grad._values() if group["maximize"] else grad._values()
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            m = exp_avg[at] + (values - exp_avg[at]) * (1 - beta1)
            v = exp_avg_sq[at] + (values * values - exp_avg_sq[at]) * (1 - beta2)
            exp_avg[at] = m
            exp_avg_sq[at] = v
            step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
            p[at] = p[at] - step_size * m / (v.sqrt() + eps)
