"""L-BFGS (torch.optim.LBFGS): quasi-Newton steps from the last `history_size` gradient changes,
with a fixed step or a strong-Wolfe line search (cubic interpolation, Nocedal & Wright 3.5-3.6).
step(closure) re-evaluates the loss as often as it needs; all parameters form one flat vector."""
from ..autograd.grad_mode import enable_grad, no_grad
from ..ops.creation import zeros
from ..ops.shape import cat
from .optimizer import Optimizer, _check


class LBFGS(Optimizer):
    """L-BFGS, a quasi-Newton method: it estimates the inverse Hessian from the last `history_size`
    steps. Each ``step(closure)`` runs up to `max_iter` iterations and needs `closure`, which
    recomputes and returns the loss after zeroing the gradients. One parameter group only.

    Args:
        params: the parameters, or parameter groups (see `Optimizer`).
        lr: the step length (default 1).
        max_iter: the most iterations per ``step``.
        max_eval: the most closure calls per ``step`` (default: max_iter * 1.25).
        tolerance_grad: stop once the largest absolute gradient is below it.
        tolerance_change: stop once the loss or the step changes less than it.
        history_size: how many past steps the Hessian estimate uses.
        line_search_fn: ``None`` (fixed step) or ``"strong_wolfe"``.

    Example::

        >>> x = torch.nn.Parameter(torch.tensor([3.0, -2.0]))
        >>> opt = torch.optim.LBFGS([x], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = ((x - 1) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> _ = opt.step(closure)
        >>> bool((x - 1).abs().max() < 1e-4)
        True
    """
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        _check(lr, "learning rate")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # --- the parameters as one vector ---------------------------------------------------------
    def _flat_grad(self):
        return cat([p.grad.reshape(-1) if p.grad is not None else zeros(p.numel(), dtype=p.dtype)
                        for p in self._params])

    def _move(self, step, direction):
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset:offset + n].view_as(p), alpha=step)
            offset += n

    def _evaluate(self, closure):
        with enable_grad():
            return float(closure())

    def _probe(self, closure, start, step, direction):
        """Loss and gradient at start + step * direction; the parameters are put back."""
        self._move(step, direction)
        loss, grad = self._evaluate(closure), self._flat_grad()
        for p, value in zip(self._params, start):
            p.copy_(value)
        return loss, grad

    def step(self, closure):
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            first_loss = closure()
        loss, evals = float(first_loss), 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if grad.abs().max() <= tol_grad:
            return first_loss
        d, t = state.get("d"), state.get("t")
        dirs, steps, rho = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        for n_iter in range(1, max_iter + 1):
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, dirs, steps, rho, h_diag = grad.neg(), [], [], [], 1
            else:
                y, s = grad.sub(prev_grad), d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:   # keep the curvature pair (drop the oldest when full)
                    if len(dirs) == group["history_size"]:
                        dirs.pop(0), steps.pop(0), rho.pop(0)
                    dirs.append(y), steps.append(s), rho.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                al = state.setdefault("al", [None] * group["history_size"])
                d = _two_loop(grad, dirs, steps, rho, h_diag, al)
            prev_grad = grad.clone() if prev_grad is None else prev_grad.copy_(grad)
            prev_loss = loss
            t = min(1.0, 1.0 / grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            slope = grad.dot(d)
            if slope > -tol_change:   # not a descent direction
                break
            probes = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = [p.clone() for p in self._params]
                loss, grad, t, probes = _strong_wolfe(lambda step: self._probe(closure, start, step, d), t, d,
                                                      loss, grad, slope, max_ls=max_eval - evals)
                self._move(t, d)
                converged = grad.abs().max() <= tol_grad
            else:
                self._move(t, d)
                converged = False
                if n_iter != max_iter:   # the last iteration's loss is the next step's first evaluation
                    loss, grad, probes = self._evaluate(closure), self._flat_grad(), 1
                    converged = grad.abs().max() <= tol_grad
            evals += probes
            state["func_evals"] += probes
            if (n_iter == max_iter or evals >= max_eval or converged or d.mul(t).abs().max() <= tol_change
                    or abs(loss - prev_loss) < tol_change):
                break
        state.update(d=d, t=t, old_dirs=dirs, old_stps=steps, ro=rho, H_diag=h_diag, prev_flat_grad=prev_grad,
                     prev_loss=prev_loss)
        return first_loss


def _two_loop(grad, dirs, steps, rho, h_diag, al):
    """-H grad with H the L-BFGS inverse-Hessian estimate (the two-loop recursion; al: scratch)."""
    q = grad.neg()
    for i in reversed(range(len(dirs))):
        al[i] = steps[i].dot(q) * rho[i]
        q.add_(dirs[i], alpha=-al[i])
    r = q.mul(h_diag)
    for i in range(len(dirs)):
        r.add_(steps[i], alpha=al[i] - dirs[i].dot(r) * rho[i])
    return r


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, slope g1) and (x2, f2, g2), clipped to bounds
    (default: the interval); the midpoint when the cubic has no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if disc < 0:
        return (low + high) / 2.0
    d2 = disc.sqrt() if hasattr(disc, "sqrt") else disc ** 0.5
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, low), high)


def _strong_wolfe(probe, t, d, f, g, slope, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t along d meeting the strong Wolfe conditions: bracket one, then zoom in by cubic
    interpolation. probe(t) -> (loss, gradient). Returns (loss, gradient, t, probes)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = probe(t)
    probes, slope_new = 1, g_new.dot(d)
    t_prev, f_prev, g_prev, slope_prev = 0, f, g, slope
    done, ls_iter = False, 0
    bracket = None
    while ls_iter < max_ls:   # phase 1: expand until an interval holds an acceptable step
        rose = f_new > f + c1 * t * slope or (ls_iter > 1 and f_new >= f_prev)
        if not rose and abs(slope_new) <= -c2 * slope:
            bracket, done = [[t, f_new, g_new, slope_new]], True
            break
        if rose or slope_new >= 0:
            bracket = [[t_prev, f_prev, g_prev, slope_prev], [t, f_new, g_new.clone(), slope_new]]
            break
        t_prev, t = t, _cubic_min(t_prev, f_prev, slope_prev, t, f_new, slope_new, bounds=(t + 0.01 * (t - t_prev),
                                                                                             t * 10))
        f_prev, g_prev, slope_prev = f_new, g_new.clone(), slope_new
        f_new, g_new = probe(t)
        probes, slope_new, ls_iter = probes + 1, g_new.dot(d), ls_iter + 1
    if ls_iter == max_ls:
        bracket = [[0, f, g, None], [t, f_new, g_new, None]]
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    stuck = False
    while not done and ls_iter < max_ls:   # phase 2: zoom
        ends = (bracket[0][0], bracket[1][0])
        if abs(ends[1] - ends[0]) * d_norm < tolerance_change:
            break
        t = _cubic_min(bracket[0][0], bracket[0][1], bracket[0][3], bracket[1][0], bracket[1][1], bracket[1][3])
        margin = 0.1 * (max(ends) - min(ends))
        if min(max(ends) - t, t - min(ends)) < margin:   # too close to an end: step away from it
            if stuck or t >= max(ends) or t <= min(ends):
                t = max(ends) - margin if abs(t - max(ends)) < abs(t - min(ends)) else min(ends) + margin
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        f_new, g_new = probe(t)
        probes, slope_new, ls_iter = probes + 1, g_new.dot(d), ls_iter + 1
        if f_new > f + c1 * t * slope or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new.clone(), slope_new]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(slope_new) <= -c2 * slope:
                done = True
            elif slope_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = list(bracket[low])
            bracket[low] = [t, f_new, g_new.clone(), slope_new]
    t, f_new, g_new = bracket[low][0], bracket[low][1], bracket[low][2]
    return f_new, g_new, t, probes
