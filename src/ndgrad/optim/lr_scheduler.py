"""Learning-rate schedules (torch.optim.lr_scheduler): each step() moves the optimizer's group
learning rates along the schedule. The schedules update the current rates step by step, with
torch's recursive formulas, so the sequence of rates is torch's to the last bit."""
import bisect
import functools
import math
import types
import warnings
import weakref
from collections import Counter

from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, "
    "the closed form is used instead of the new chainable form, where available. Please open an issue if you are "
    "unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def _per_group(name, optimizer, value):
    """One value per param group: a list/tuple must have exactly that many; a scalar is repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                             f"{len(value)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


def _lr_lambdas(optimizer, lr_lambda):
    """LambdaLR's and MultiplicativeLR's per-group functions (their count error is worded apart)."""
    if isinstance(lr_lambda, (list, tuple)) and len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
    return _per_group("lr_lambda", optimizer, lr_lambda)


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _track_steps(optimizer):
    """optimizer.step wrapped (once, as torch does, on the instance) to mark the optimizer `_opt_called`:
    a scheduler's first step() warns when no optimizer step came before it. A wrapper a program sets later
    says it still calls the original by carrying `_wrapped_by_lr_sched` (programs written for torch do)."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    owner = weakref.ref(optimizer)
    func = optimizer.step.__func__

    @functools.wraps(func)
    def step(*args, **kwargs):
        opt = owner()
        opt._opt_called = True
        return func.__get__(opt, type(opt))(*args, **kwargs)
    step._wrapped_by_lr_sched = True
    optimizer.step = step


class LRScheduler:
    """The base of the learning-rate schedulers: each ``step()`` sets the rate of every param group.

    A subclass implements ``get_lr()``, the new rates from the current ones (``_is_initial`` is true
    on the step the constructor takes), and optionally ``_get_closed_form_lr()`` for ``step(epoch)``.
    Call ``scheduler.step()`` after ``optimizer.step()``, once per epoch (or per batch, as the
    schedule is meant).

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> class Halving(torch.optim.lr_scheduler.LRScheduler):
        ...     def get_lr(self):
        ...         return [base * 0.5 ** self.last_epoch for base in self.base_lrs]
        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = Halving(opt)
        >>> for epoch in range(3):
        ...     opt.step()
        ...     sched.step()
        >>> sched.get_last_lr(), sched.last_epoch
        ([0.125], 3)
    """
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                                   "scheduler with last_epoch >= 0.")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_steps(optimizer)
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement get_lr")

    def get_last_lr(self):
        return self._last_lr

    def step(self, epoch=None):
        if self._step_count == 1:   # the first step after the one __init__ made: as torch, warn of the old order
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                              "initialization. Please, make sure to call `optimizer.step()` before "
                              "`lr_scheduler.step()`. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                              UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 "
                              "and later, you should call them in the opposite order: `optimizer.step()` before "
                              "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
                              "value of the learning rate schedule. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                              UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """The next epoch's rates (or epoch `epoch`'s, in closed form where there is one)."""
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def _current(self):
        return [group["lr"] for group in self.optimizer.param_groups]


_LRScheduler = LRScheduler


class LambdaLR(LRScheduler):
    """Sets the rate to the initial rate times ``lr_lambda(epoch)``.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        lr_lambda (Callable or list): a function of the epoch, or one per param group.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
        >>> lrs = []
        >>> for epoch in range(5):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.3333, 0.25, 0.2]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]

    def state_dict(self):
        """As torch: plain functions are not saved (None); callable objects save their __dict__."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class StepLR(LRScheduler):
    """Multiplies the rate by `gamma` every `step_size` epochs.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        step_size (int): the number of epochs between decays.
        gamma (float, optional): the factor of each decay. Default: ``0.1``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the rate by `gamma` at each milestone epoch (twice for a milestone listed twice).

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        milestones (list): the epochs at which to decay.
        gamma (float, optional): the factor of each decay. Default: ``0.1``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 5], gamma=0.1)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 1.0, 0.1, 0.1, 0.1, 0.01]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]

    def _get_closed_form_lr(self):
        passed = sum(count for m, count in self.milestones.items() if m <= self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the rate by `gamma` every epoch.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        gamma (float): the factor of each decay.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 0.25, 0.125, 0.0625, 0.0312]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneals the rate along a cosine: ``eta_min + (initial - eta_min)(1 + cos(pi epoch / T_max)) / 2``.

    The rate is computed from the current one epoch by epoch, so it rises again after `T_max`
    (as torch's recursive form does); see `CosineAnnealingWarmRestarts` for restarts.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        T_max (int): the number of epochs of the half period.
        eta_min (float, optional): the lowest rate. Default: ``0.0``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 0.8536, 0.5, 0.1464, 0.0, 0.1464]
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _closed(self, base, epoch):
        return self.eta_min + (base - self.eta_min) * (1 + math.cos(epoch * math.pi / self.T_max)) / 2

    def get_lr(self):
        t, t_max, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            return [self._closed(base, t) for base in self.base_lrs]
        if (t - 1 - t_max) % (2 * t_max) == 0:   # the bottom of a cycle: step up by a fixed amount
            return [lr + (base - low) * (1 - math.cos(math.pi / t_max)) / 2
                    for lr, base in zip(self._current(), self.base_lrs)]
        ratio = (1 + math.cos(math.pi * t / t_max)) / (1 + math.cos(math.pi * (t - 1) / t_max))
        return [ratio * (lr - low) + low for lr in self._current()]

    def _get_closed_form_lr(self):
        return [self._closed(base, self.last_epoch) for base in self.base_lrs]


class MultiplicativeLR(LRScheduler):
    """Multiplies the rate by ``lr_lambda(epoch)`` every epoch.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        lr_lambda (Callable or list): a function of the epoch, or one per param group.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.9)
        >>> lrs = []
        >>> for epoch in range(4):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 0.9, 0.81, 0.729]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    state_dict, load_state_dict = LambdaLR.state_dict, LambdaLR.load_state_dict

    def get_lr(self):
        if self._is_initial:
            return self._current()
        return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, self._current())]


class ConstantLR(LRScheduler):
    """Scales the rate by `factor` for the first `total_iters` epochs, then leaves the rate itself.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        factor (float, optional): the factor, between 0 and 1. Default: ``1/3``.
        total_iters (int, optional): the number of scaled epochs. Default: ``5``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scales the rate by a factor going linearly from `start_factor` to `end_factor` over
    `total_iters` epochs (a warm-up).

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        start_factor (float, optional): the first factor, in (0, 1]. Default: ``1/3``.
        end_factor (float, optional): the last factor, in [0, 1]. Default: ``1.0``.
        total_iters (int, optional): the number of epochs to get there. Default: ``5``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [lr * ratio for lr in self._current()]

    def _get_closed_form_lr(self):
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * done) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays the rate as ``(1 - epoch / total_iters) ** power`` times the initial one, then keeps it constant.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        total_iters (int, optional): the number of decaying epochs. Default: ``5``.
        power (float, optional): the power of the polynomial. Default: ``1.0``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        t, n = self.last_epoch, self.total_iters
        factor = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial rate to `eta_min` over `T_0` epochs, then a restart; each
    period is `T_mult` times longer than the last.

    ``step(epoch)`` also takes a fractional epoch, to step per batch.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        T_0 (int): the number of epochs of the first period.
        T_mult (int, optional): the growth factor of the periods. Default: ``1``.
        eta_min (float, optional): the lowest rate. Default: ``0.0``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        >>> lrs = []
        >>> for epoch in range(7):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [1.0, 0.5, 1.0, 0.8536, 0.5, 0.1464, 1.0]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min, self.T_cur = T_0, T_0, T_mult, eta_min, last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur, self.T_i = self.T_cur % self.T_i, self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch < self.T_0:
                self.T_i, self.T_cur = self.T_0, epoch
            elif self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:   # the restart period that epoch falls in
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = self._current()


def _check_schedulers(kind, optimizer, schedulers):
    if len(schedulers) < 1:
        raise ValueError(f"{kind} expects at least one scheduler, but got no scheduler.")
    for i, scheduler in enumerate(schedulers):
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             "kwargs to be specified when calling `step`, but got one at index "
                             f"{i} in the given schedulers sequence.")
        if scheduler.optimizer is not optimizer:
            raise ValueError(f"{kind} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(scheduler).__name__} at index {i} has {scheduler.optimizer}, which is "
                             f"different from {type(optimizer).__name__}.")


class SequentialLR(LRScheduler):
    """Hands the schedule from one scheduler to the next at the milestones (e.g. warm-up, then decay).

    ``schedulers[i]`` drives the rate from ``milestones[i-1]`` to ``milestones[i]``.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        schedulers (list): the schedulers, all of `optimizer`.
        milestones (list): the epochs at which the next one takes over (one fewer than schedulers).
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> S = torch.optim.lr_scheduler
        >>> warmup = S.LinearLR(opt, start_factor=0.5, total_iters=2)
        >>> sched = S.SequentialLR(opt, [warmup, S.ExponentialLR(opt, gamma=0.5)], milestones=[2])
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [0.5, 0.75, 1.0, 0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers("SequentialLR", optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers, self._milestones = list(schedulers), list(milestones)
        self.last_epoch, self.optimizer = last_epoch + 1, optimizer
        for group in optimizer.param_groups:   # undo the schedulers' own first steps
            group["lr"] = group["initial_lr"]
        for scheduler in self._schedulers:
            scheduler.last_epoch -= 1
        first = self._schedulers[bisect.bisect_right(self._milestones, 0)]
        first._step_count, first._is_initial = 0, True
        try:
            first.step()
        finally:
            first._is_initial = False
        self._last_lr = first.get_last_lr()

    def step(self):
        self.last_epoch += 1
        i = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._update_lr(0)   # a scheduler starts from its epoch 0 (closed form)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state_dict.pop("_schedulers")):
            scheduler.load_state_dict(saved)
        self.__dict__.update(state_dict)


class ChainedScheduler(SequentialLR):
    """Steps every scheduler of the list at each step, so that their effects compound.

    Args:
        schedulers (list): the schedulers, all of one optimizer.
        optimizer (Optimizer, optional): that optimizer (default: the first scheduler's).

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> S = torch.optim.lr_scheduler
        >>> sched = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2),
        ...                             S.ExponentialLR(opt, gamma=0.9)])
        >>> lrs = []
        >>> for epoch in range(4):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [0.5, 0.45, 0.81, 0.729]
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer if optimizer is not None else schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", optimizer, schedulers)
        self._schedulers, self.optimizer = list(schedulers), optimizer
        self._last_lr = self._current()

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current()


class OneCycleLR(LRScheduler):
    """The 1cycle policy, stepped once per batch: the rate rises from ``max_lr / div_factor`` to
    `max_lr` over `pct_start` of the steps, then anneals to ``initial / final_div_factor``;
    momentum (or Adam's ``beta1``) moves the opposite way.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        max_lr (float or list): the peak rate (one per param group, or one for all).
        total_steps (int, optional): the number of steps; otherwise ``epochs * steps_per_epoch``.
        epochs (int, optional): the number of epochs.
        steps_per_epoch (int, optional): the number of steps in an epoch.
        pct_start (float, optional): the fraction of the steps spent rising. Default: ``0.3``.
        anneal_strategy (str, optional): ``"cos"`` or ``"linear"``. Default: ``"cos"``.
        cycle_momentum (bool, optional): cycle the momentum too. Default: ``True``.
        base_momentum (float or list, optional): the lowest momentum. Default: ``0.85``.
        max_momentum (float or list, optional): the highest momentum. Default: ``0.95``.
        div_factor (float, optional): the initial rate is ``max_lr / div_factor``. Default: ``25.0``.
        final_div_factor (float, optional): the last rate is ``initial / final_div_factor``. Default: ``1e4``.
        three_phase (bool, optional): come back down to the initial rate symmetrically before the
            final annealing. Default: ``False``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0, momentum=0.9)
        >>> sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=6)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [0.04, 0.9944, 0.8117, 0.4626, 0.1335, 0.0]
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        rise_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        # (end step, start lr key, end lr key, start momentum key, end momentum key)
        if three_phase:
            self._schedule_phases = [
                (rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                (last, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [
                (rise_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (last, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, _per_group("max_lr", optimizer, max_lr)):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            if last_epoch == -1:
                for group, top, base in zip(optimizer.param_groups,
                                            _per_group("max_momentum", optimizer, max_momentum),
                                            _per_group("base_momentum", optimizer, base_momentum)):
                    self._set_momentum(group, top)
                    group["max_momentum"], group["base_momentum"] = top, base
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._schedule_phases):
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[lr0], group[lr1], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[m0], group[m1], pct))
                    break
                start = end
        return lrs


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the rates by `factor` once the metric passed to ``step(metric)`` has not improved
    for `patience` epochs, then waits `cooldown` epochs before watching again.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        mode (str, optional): ``"min"`` (the metric should fall) or ``"max"``. Default: ``"min"``.
        factor (float, optional): the factor of each reduction, below 1. Default: ``0.1``.
        patience (int, optional): the epochs without improvement tolerated. Default: ``10``.
        threshold (float, optional): the least change that counts as improvement. Default: ``1e-4``.
        threshold_mode (str, optional): ``"rel"`` (relative to the best) or ``"abs"``. Default: ``"rel"``.
        cooldown (int, optional): the epochs to wait after a reduction. Default: ``0``.
        min_lr (float or list, optional): the lowest rate (one per group, or one for all). Default: ``0``.
        eps (float, optional): a reduction smaller than this is skipped. Default: ``1e-8``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
        >>> lrs = []
        >>> for loss in [1.0, 0.9, 0.9, 0.9, 0.9, 0.9]:
        ...     opt.step()
        ...     sched.step(loss)
        ...     lrs.append(opt.param_groups[0]["lr"])
        >>> lrs
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        _check_optimizer(optimizer)
        self.factor, self.optimizer = factor, optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * len(optimizer.param_groups)
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = self._current()
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self._reset()

    def _reset(self):
        self.best, self.cooldown_counter, self.num_bad_epochs = self.mode_worse, 0, 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" else a > best + self.threshold

    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0   # bad epochs in cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._current()

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(self.optimizer.param_groups)})"
                                   f" differs from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                                   "usually due to a new param group being added to the optimizer. Please modify "
                                   "the `min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for group, low in zip(self.optimizer.param_groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, low)
            if old - new > self.eps:
                group["lr"] = new


# ---- api: CyclicLR
class CyclicLR(LRScheduler):
    """Cycles the rate between `base_lr` and `max_lr`, stepped once per batch.

    The rate goes up over `step_size_up` steps and down over `step_size_down`, the amplitude scaled
    per cycle (``"triangular"``: 1, ``"triangular2"``: halved each cycle), per step
    (``"exp_range"``: ``gamma ** step``), or by `scale_fn`. Momentum (or Adam's ``beta1``) cycles
    the opposite way, between `max_momentum` and `base_momentum`.

    Args:
        optimizer (Optimizer): the optimizer whose rates it sets.
        base_lr (float or list): the lower bound (one per group, or one for all).
        max_lr (float or list): the upper bound.
        step_size_up (int, optional): the steps of the rising half. Default: ``2000``.
        step_size_down (int, optional): the steps of the falling half (default: `step_size_up`).
        mode (str, optional): ``"triangular"``, ``"triangular2"`` or ``"exp_range"``. Default: ``"triangular"``.
        gamma (float, optional): the base of ``"exp_range"``. Default: ``1.0``.
        scale_fn (Callable, optional): a custom amplitude scale (overrides `mode`).
        scale_mode (str, optional): whether `scale_fn` takes the ``"cycle"`` or the ``"iterations"``.
            Default: ``"cycle"``.
        cycle_momentum (bool, optional): cycle the momentum too. Default: ``True``.
        base_momentum (float or list, optional): the lowest momentum. Default: ``0.8``.
        max_momentum (float or list, optional): the highest momentum. Default: ``0.9``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule (``-1``: start
            afresh from the optimizer's rates). Default: ``-1``.

    Example::

        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        >>> sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=2,
        ...                                             cycle_momentum=False)
        >>> lrs = []
        >>> for epoch in range(8):
        ...     lrs.append(round(sched.get_last_lr()[0], 4))
        ...     opt.step()
        ...     sched.step()
        >>> lrs
        [0.1, 0.55, 1.0, 0.55, 0.1, 0.55, 1.0, 0.55]
    """

    _SCALES = {"triangular": (lambda x: 1.0, "cycle"), "triangular2": (lambda x: 1 / (2.0 ** (x - 1)), "cycle")}

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        if scale_fn is not None:
            self._scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "exp_range":
            self._scale_fn, self.scale_mode = (lambda x: gamma ** x), "iterations"
        else:
            self._scale_fn, self.scale_mode = self._SCALES[mode]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for m, group in zip(self.max_momentums, optimizer.param_groups):
                    self._set_momentum(group, m)
        self._cycle_base_lrs = base_lrs   # the base step (in __init__) reads them before base_lrs is set
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        return self._scale_fn(x)

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [lo + (hi - lo) * scale_factor * scale for lo, hi in zip(self._cycle_base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                self._set_momentum(group, hi - (hi - lo) * scale_factor * scale)
        return lrs
