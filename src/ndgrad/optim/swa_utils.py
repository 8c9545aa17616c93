"""torch.optim.swa_utils: stochastic weight averaging and exponential moving averages of a model's
weights (AveragedModel), the SWA learning-rate schedule (SWALR), and update_bn, which recomputes
batch-norm statistics for averaged weights."""
import copy
import itertools
import math

from .. import _dtype
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..ops import _registry
from .lr_scheduler import LRScheduler, _per_group

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]

_OPS = _registry.OPS


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA of lists of averaged weights: avg = decay * avg + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(averaged, current, num_averaged):
        with no_grad():
            if decay == 1:   # nothing moves (lerp by 0 would still touch non-finite values)
                return
            if averaged[0].is_floating_point() or averaged[0].is_complex():
                _OPS["_foreach_lerp_"](averaged, current, 1 - decay)
            else:
                for a, c in zip(averaged, current):
                    a.copy_(a * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """In-place running mean of lists of averaged weights over `num_averaged + 1` models."""
    def swa_update(averaged, current, num_averaged):
        with no_grad():
            if averaged[0].is_floating_point() or averaged[0].is_complex():
                _OPS["_foreach_lerp_"](averaged, current, float(1 / (num_averaged + 1)))
            else:
                for a, c in zip(averaged, current):
                    a.add_((c - a) / (num_averaged + 1) if hasattr(num_averaged, "shape")
                           else (c - a) * (1.0 / (num_averaged + 1)))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA of one averaged weight, returned (not in place)."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The running mean of one averaged weight, returned (not in place)."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A deep copy of `model` whose weights (and buffers, with use_buffers=True) are the running
    average of the model's, updated by `update_parameters(model)`; `n_averaged` counts the updates.
    The first update copies the weights; later ones apply avg_fn (one tensor) or multi_avg_fn (lists);
    by default an equal-weight mean (SWA)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _OPS["tensor"](0, dtype=_dtype.int64))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        def weights(m):
            return itertools.chain(m.parameters(), m.buffers()) if self.use_buffers else m.parameters()
        mine = [p.detach() for p in (weights(self.module) if self.use_buffers else self.parameters())]
        theirs = [p.detach() for p in weights(model)]
        first = bool(self.n_averaged == 0)
        if first:
            for a, c in zip(mine, theirs):
                a.copy_(c)
        elif self.avg_fn is not None:
            for a, c in zip(mine, theirs):
                a.copy_(self.avg_fn(a, c, self.n_averaged))
        else:   # lists of one dtype each, as torch groups them for the _foreach_ kernels
            groups = {}
            for a, c in zip(mine, theirs):
                pair = groups.setdefault(a.dtype, ([], []))
                pair[0].append(a)
                pair[1].append(c)
            fn = self.multi_avg_fn or get_swa_multi_avg_fn()
            for averaged, current in groups.values():
                fn(averaged, current, self.n_averaged)
        if not self.use_buffers:   # buffers follow the model's (update_bn recomputes them)
            for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_avg.detach().copy_(b_model.detach())
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    """One pass over `loader` in training mode with cumulative-average batch norms (momentum None),
    so that their running statistics are those of the model's current weights."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            model(batch if device is None else batch.to(device))
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's rate to its `swa_lr` over `anneal_epochs` epochs ("cos" or "linear"),
    then holds it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for lr, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t):
        return t if self._anneal_strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    def get_lr(self):
        # the rate is a blend start * (1 - alpha) + swa_lr * alpha; the start is recovered from the
        # current rate and the previous step's alpha, so other schedulers may have changed it since
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        alpha = self.anneal_func(max(0, min(1, step / span)))
        out = []
        for group in self.optimizer.param_groups:
            swa = group["swa_lr"]
            start = swa if prev_alpha == 1 else (group["lr"] - prev_alpha * swa) / (1 - prev_alpha)
            out.append(swa * alpha + start * (1 - alpha))
        return out

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

