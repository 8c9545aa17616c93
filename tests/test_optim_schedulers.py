"""ndgrad.optim.lr_scheduler against torch's: the same optimizer and schedule give the same
learning rates (and OneCycleLR's momenta) step after step, bit for bit; state_dict round trips."""
import warnings

import numpy as np
import pytest

import ndgrad
from parity import both

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def rates(lib, make, steps=25, optimizer="SGD", metrics=None):
    """(lr of each group, momentum or beta1 of group 0) after each of `steps` epochs."""
    groups = [{"params": [lib.nn.Parameter(lib.zeros(2))]}, {"params": [lib.nn.Parameter(lib.zeros(2))], "lr": 0.05}]
    extra = {"momentum": 0.9} if optimizer == "SGD" else {}
    opt = getattr(lib.optim, optimizer)(groups, lr=0.1, **extra)
    sched = make(lib.optim.lr_scheduler, opt)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(steps):
            opt.step()
            sched.step(*([metrics[i]] if metrics else []))
            g = opt.param_groups[0]
            out.append(list(sched.get_last_lr()) + [g.get("momentum", g.get("betas", (0,))[0])])
    return np.array(out)


SCHEDULES = {
    "StepLR": lambda L, o: L.StepLR(o, 4, 0.5),
    "MultiStepLR": lambda L, o: L.MultiStepLR(o, [3, 7, 7, 20], 0.3),
    "ExponentialLR": lambda L, o: L.ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda L, o: L.CosineAnnealingLR(o, 7, 0.001),
    "LambdaLR": lambda L, o: L.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1 / (e + 1)]),
    "OneCycleLR": lambda L, o: L.OneCycleLR(o, [1.0, 0.5], total_steps=25),
    "OneCycleLR-3phase-linear": lambda L, o: L.OneCycleLR(o, 1.0, epochs=5, steps_per_epoch=5, three_phase=True,
                                                          anneal_strategy="linear"),
    "MultiplicativeLR": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.9),
    "ConstantLR": lambda L, o: L.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda L, o: L.LinearLR(o, 0.1, 1.0, 6),
    "PolynomialLR": lambda L, o: L.PolynomialLR(o, 10, 2.0),
    "CosineAnnealingWarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, 2, 0.001),
    "SequentialLR-warmup-cosine": lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, 0.1, total_iters=4), L.CosineAnnealingLR(o, 10)], [4]),
    "SequentialLR-three": lambda L, o: L.SequentialLR(
        o, [L.ConstantLR(o, 0.5, 3), L.ExponentialLR(o, 0.9), L.StepLR(o, 3)], [5, 12]),
    "ChainedScheduler": lambda L, o: L.ChainedScheduler([L.ConstantLR(o, 0.5, 3), L.ExponentialLR(o, 0.9)]),
}


@needs_torch
@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedule_matches_torch(name):
    assert np.array_equal(rates(ndgrad, SCHEDULES[name]), rates(torch, SCHEDULES[name]))


@needs_torch
def test_one_cycle_cycles_adam_beta1():
    make = SCHEDULES["OneCycleLR"]
    assert np.array_equal(rates(ndgrad, make, optimizer="Adam"), rates(torch, make, optimizer="Adam"))


@needs_torch
@pytest.mark.parametrize("kwargs", [{"patience": 2}, {"mode": "max", "patience": 1, "cooldown": 2,
                                                      "threshold_mode": "abs", "min_lr": [0.01, 0.02]}], ids=str)
def test_reduce_on_plateau_matches_torch(kwargs):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8] * 2

    def make(L, o):
        return L.ReduceLROnPlateau(o, factor=0.5, **kwargs)
    assert np.array_equal(rates(ndgrad, make, 24, metrics=metrics), rates(torch, make, 24, metrics=metrics))


@needs_torch
@pytest.mark.parametrize("name", ["StepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "PolynomialLR",
                                  "ConstantLR", "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_uses_closed_form(name):
    def run(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (3, 9, 5):
                sched.step(epoch)
        return sched.get_last_lr()
    assert run(ndgrad) == run(torch)


def test_state_dict_resumes_the_schedule():
    def fresh():
        opt = ndgrad.optim.SGD([ndgrad.nn.Parameter(ndgrad.zeros(1))], lr=0.1)
        return opt, ndgrad.optim.lr_scheduler.CosineAnnealingLR(opt, 10)
    opt, sched = fresh()
    for _ in range(4):
        opt.step()
        sched.step()
    saved_opt, saved = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in saved
    expected = []
    for _ in range(3):
        opt.step()
        sched.step()
        expected.append(sched.get_last_lr()[0])
    opt2, sched2 = fresh()
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved)
    resumed = []
    for _ in range(3):
        opt2.step()
        sched2.step()
        resumed.append(sched2.get_last_lr()[0])
    assert resumed == expected


def test_scheduler_errors():
    opt = ndgrad.optim.SGD([ndgrad.nn.Parameter(ndgrad.zeros(1))], lr=0.1)
    L = ndgrad.optim.lr_scheduler
    with pytest.raises(TypeError, match="is not an Optimizer"):
        L.StepLR(object(), 2)
    with pytest.raises(KeyError, match="initial_lr"):
        L.StepLR(opt, 2, last_epoch=3)
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        L.ReduceLROnPlateau(opt, factor=1.5)
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        L.OneCycleLR(ndgrad.optim.Adagrad([ndgrad.nn.Parameter(ndgrad.zeros(1))]), 1.0, total_steps=3)
    sched = L.OneCycleLR(opt, 1.0, total_steps=2)
    opt.step()   # (before the scheduler's, as torch wants: no warning)
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        sched.step()


@pytest.mark.parametrize("order", ["scheduler first", "optimizer first", "step replaced", "step wrapped"])
def test_the_scheduler_warns_of_the_old_call_order_as_torch(order):
    """A scheduler wraps optimizer.step to see whether it ran; its first step() after construction warns
    when it came first, or when optimizer.step was replaced by a function that does not say it calls it."""
    def scenario(T):
        model = T.nn.Linear(2, 1)
        opt = T.optim.SGD(model.parameters(), lr=0.5)
        sched = T.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
        if order == "step replaced":
            opt.step = lambda *args, **kwargs: None
        if order == "step wrapped":
            inner = opt.step

            def spy(*args, **kwargs):
                return inner(*args, **kwargs)
            spy._wrapped_by_lr_sched = True
            opt.step = spy
        model(T.ones(2)).sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if order != "scheduler first":
                opt.step()
            sched.step()
            sched.step()
        return [str(w.message) for w in caught], opt.param_groups[0]["lr"], getattr(opt, "_opt_called", False)
    messages, lr, called = both(scenario)
    assert lr == 0.125 and called == (order in ("optimizer first", "step wrapped"))
    assert len(messages) == (0 if called else 1)
