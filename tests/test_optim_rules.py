"""Optimizer update rules written out for one step by hand, so a wrong rule fails without torch too
(issue 18: a doubled AdamW weight decay was caught only by the torch comparison)."""
import copy
import math
import warnings

import numpy as np
import pytest

import ndgrad
from ndgrad.optim.optimizer import required

from parity import both, lists, same_error


def _one_step(T, make):
    p = T.nn.Parameter(T.tensor([1.0, -2.0], dtype=T.float64))
    opt = make(T, [p])
    p.grad = T.tensor([0.5, 0.25], dtype=T.float64)
    opt.step()
    return p.detach()


def test_adamw_decays_the_weights_once_then_takes_the_adam_step():
    got = both(lambda T: _one_step(T, lambda T, ps: T.optim.AdamW(ps, lr=0.1, weight_decay=0.1)))
    p, g, lr, wd, eps = np.array([1.0, -2.0]), np.array([0.5, 0.25]), 0.1, 0.1, 1e-8
    m_hat, v_hat = g, g * g          # first step: bias corrections undo (1 - beta)
    np.testing.assert_allclose(got, p * (1 - lr * wd) - lr * m_hat / (np.sqrt(v_hat) + eps), rtol=1e-12)


def test_adam_adds_l2_weight_decay_to_the_gradient():
    got = both(lambda T: _one_step(T, lambda T, ps: T.optim.Adam(ps, lr=0.1, weight_decay=0.1)))
    p, lr = np.array([1.0, -2.0]), 0.1
    g = np.array([0.5, 0.25]) + 0.1 * p
    np.testing.assert_allclose(got, p - lr * g / (np.abs(g) + 1e-8), rtol=1e-12)


def test_sgd_with_momentum_and_weight_decay():
    got = both(lambda T: _one_step(T, lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01)))
    p = np.array([1.0, -2.0])
    np.testing.assert_allclose(got, p - 0.1 * (np.array([0.5, 0.25]) + 0.01 * p), rtol=1e-12)


# --- two steps of each rule, written out in NumPy ------------------------------------------------
P0 = np.array([1.0, -2.0])
G = [np.array([0.5, 0.25]), np.array([-0.3, 0.8])]   # the gradient at step 1 and step 2


def _two_steps(T, make):
    p = T.nn.Parameter(T.tensor(P0.tolist(), dtype=T.float64))
    opt = make(T, [p])
    out = []
    for g in G:
        p.grad = T.tensor(g.tolist(), dtype=T.float64)
        opt.step()
        out.append(p.detach().clone())
    return out


def test_sgd_momentum_with_dampening_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.3)))
    p, lr = P0.copy(), 0.1
    buf = G[0].copy()                       # the first step's buffer is the gradient, undamped
    p1 = p - lr * buf
    buf = 0.9 * buf + (1 - 0.3) * G[1]
    np.testing.assert_allclose(got, [p1, p1 - lr * buf], rtol=1e-12)


def test_sgd_nesterov_and_maximize_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.5, nesterov=True,
                                                                  maximize=True, weight_decay=0.2)))
    p, out, buf = P0.copy(), [], None
    for g in G:
        d = -g + 0.2 * p                    # maximize negates the gradient, then L2 decay is added
        buf = d if buf is None else 0.5 * buf + d
        p = p - 0.1 * (d + 0.5 * buf)
        out.append(p)
    np.testing.assert_allclose(got, out, rtol=1e-12)


def _adam(amsgrad=False, maximize=False, wd=0.0, decoupled=False, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    p, m, v, vmax, out = P0.copy(), 0.0, 0.0, 0.0, []
    for t, g in enumerate(G, 1):
        g = -g if maximize else g
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / np.sqrt(1 - b2 ** t) + eps
        p = p - lr / (1 - b1 ** t) * m / denom
        out.append(p)
    return out


def test_adam_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.Adam(ps, lr=0.1, betas=(0.8, 0.9))))
    np.testing.assert_allclose(got, _adam(b1=0.8, b2=0.9), rtol=1e-10)


def test_adam_amsgrad_maximize_and_weight_decay_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.Adam(ps, lr=0.1, betas=(0.8, 0.5), amsgrad=True,
                                                                   maximize=True, weight_decay=0.1)))
    # beta2 = 0.5 lets v fall at step 2 for the first entry, so the running max differs from v
    np.testing.assert_allclose(got, _adam(amsgrad=True, maximize=True, wd=0.1, b1=0.8, b2=0.5), rtol=1e-10)


def test_adamw_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.AdamW(ps, lr=0.1, weight_decay=0.3, eps=1e-3)))
    np.testing.assert_allclose(got, _adam(wd=0.3, decoupled=True, eps=1e-3), rtol=1e-10)


def test_adagrad_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.Adagrad(ps, lr=0.1, lr_decay=0.5, weight_decay=0.1,
                                                                      initial_accumulator_value=0.2, eps=1e-3)))
    p, acc, out = P0.copy(), 0.2, []
    for t, g in enumerate(G, 1):
        g = g + 0.1 * p
        acc = acc + g * g
        p = p - 0.1 / (1 + (t - 1) * 0.5) * g / (np.sqrt(acc) + 1e-3)
        out.append(p)
    np.testing.assert_allclose(got, out, rtol=1e-12)


def test_rmsprop_centered_with_momentum_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.RMSprop(ps, lr=0.1, alpha=0.9, eps=1e-3, momentum=0.5,
                                                                      centered=True, weight_decay=0.1)))
    p, sq, avg, buf, out = P0.copy(), 0.0, 0.0, 0.0, []
    for g in G:
        g = g + 0.1 * p
        sq = 0.9 * sq + 0.1 * g * g
        avg = 0.9 * avg + 0.1 * g
        buf = 0.5 * buf + g / (np.sqrt(sq - avg * avg) + 1e-3)
        p = p - 0.1 * buf
        out.append(p)
    np.testing.assert_allclose(got, out, rtol=1e-12)


def test_rmsprop_plain_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.RMSprop(ps, lr=0.1, alpha=0.9, eps=1e-3)))
    p, sq, out = P0.copy(), 0.0, []
    for g in G:
        sq = 0.9 * sq + 0.1 * g * g
        p = p - 0.1 * g / (np.sqrt(sq) + 1e-3)
        out.append(p)
    np.testing.assert_allclose(got, out, rtol=1e-12)


def test_adamax_two_steps():
    got = both(lambda T: _two_steps(T, lambda T, ps: T.optim.Adamax(ps, lr=0.1, betas=(0.8, 0.9), eps=1e-3,
                                                                     weight_decay=0.1)))
    p, m, u, out = P0.copy(), 0.0, 0.0, []
    for t, g in enumerate(G, 1):
        g = g + 0.1 * p
        m = 0.8 * m + 0.2 * g
        u = np.maximum(0.9 * u, np.abs(g) + 1e-3)
        p = p - 0.1 / (1 - 0.8 ** t) * m / u
        out.append(p)
    np.testing.assert_allclose(got, out, rtol=1e-12)


# --- learning-rate schedules, written out ----------------------------------------------------------
def _lrs(T, make, steps, optimizer="SGD", epochs=None, **opt_kwargs):
    """The learning rate of group 0 (and its momentum or beta1) before the first step and after each."""
    p = T.nn.Parameter(T.zeros(1))
    opt = getattr(T.optim, optimizer)([p], lr=1.0, **opt_kwargs)
    sched = make(T.optim.lr_scheduler, opt)
    g = opt.param_groups[0]
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(steps + 1):
            if i:
                opt.step()
                sched.step(*([epochs[i - 1]] if epochs else []))
            out.append((g["lr"], g.get("momentum", g.get("betas", (None,))[0])))
    return [list(x) for x in out]


def _cyclic(e, up=2, down=3, lo=0.1, hi=0.5, scale=lambda cycle, e: 1.0, m_lo=0.8, m_hi=0.9):
    """CyclicLR's rule: x is the position in the cycle; the rate climbs for up steps, then falls for down."""
    total = up + down
    cycle = math.floor(1 + e / total)
    x = 1 + e / total - cycle
    f = x / (up / total) if x <= up / total else (x - 1) / (up / total - 1)
    s = scale(cycle, e)
    return [lo + (hi - lo) * f * s, m_hi - (m_hi - m_lo) * f * s]


def test_cyclic_lr_triangular_cycles_rate_and_momentum():
    got = both(lambda T: _lrs(T, lambda L, o: L.CyclicLR(o, 0.1, 0.5, step_size_up=2, step_size_down=3), 11,
                              momentum=0.9))
    np.testing.assert_allclose(got, [_cyclic(e) for e in range(12)], rtol=1e-12)
    # by hand: up in two steps to 0.5, down in three, while the momentum goes the other way
    np.testing.assert_allclose([r for r, _ in got[:6]], [0.1, 0.3, 0.5, 0.1 + 0.4 * 2 / 3, 0.1 + 0.4 / 3, 0.1])
    assert math.isclose(got[2][1], 0.8) and math.isclose(got[5][1], 0.9)


def test_cyclic_lr_triangular2_halves_each_cycle():
    got = both(lambda T: _lrs(T, lambda L, o: L.CyclicLR(o, 0.1, 0.5, step_size_up=2, step_size_down=3,
                                                         mode="triangular2"), 16, momentum=0.9))
    np.testing.assert_allclose(got, [_cyclic(e, scale=lambda c, e: 0.5 ** (c - 1)) for e in range(17)], rtol=1e-12)
    assert math.isclose(got[7][0], 0.3) and math.isclose(got[12][0], 0.2)   # peaks: 0.5, 0.3, 0.2


def test_cyclic_lr_exp_range_scales_by_iteration():
    got = both(lambda T: _lrs(T, lambda L, o: L.CyclicLR(o, 0.1, 0.5, step_size_up=2, mode="exp_range",
                                                         gamma=0.9), 9, momentum=0.9))
    np.testing.assert_allclose(got, [_cyclic(e, down=2, scale=lambda c, e: 0.9 ** e) for e in range(10)],
                               rtol=1e-12)


def test_cyclic_lr_with_a_scale_function_and_adam_beta1():
    def make(mode):
        return lambda L, o: L.CyclicLR(o, 0.1, 0.5, step_size_up=2, scale_fn=lambda x: 1 / (1 + x),
                                       scale_mode=mode, base_momentum=0.7, max_momentum=0.95)
    for mode, scale in (("cycle", lambda c, e: 1 / (1 + c)), ("iterations", lambda c, e: 1 / (1 + e))):
        got = both(lambda T: _lrs(T, make(mode), 9, optimizer="Adam"))
        np.testing.assert_allclose(got, [_cyclic(e, down=2, scale=scale, m_lo=0.7, m_hi=0.95) for e in range(10)],
                                   rtol=1e-12)


def test_cyclic_lr_without_momentum_cycling_and_its_errors():
    got = both(lambda T: _lrs(T, lambda L, o: L.CyclicLR(o, 0.1, 0.5, step_size_up=2, cycle_momentum=False), 4,
                              momentum=0.9))
    assert [m for _, m in got] == [0.9] * 5

    def bad_mode(T):
        T.optim.lr_scheduler.CyclicLR(T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0), 0.1, 0.5, mode="cubic")

    def no_momentum(T):
        T.optim.lr_scheduler.CyclicLR(T.optim.Adagrad([T.nn.Parameter(T.zeros(1))]), 0.1, 0.5)
    assert same_error(bad_mode, ValueError) == "mode is invalid and scale_fn is None"
    assert same_error(no_momentum, ValueError) == \
        "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"


class _Halving:
    """A callable object: LambdaLR saves its __dict__ (a plain function saves None)."""

    def __init__(self, k=0.5):
        self.k = k

    def __call__(self, epoch):
        return self.k ** epoch


def test_lambda_lr_state_dict_saves_callable_objects_only():
    def scenario(T):
        L = T.optim.lr_scheduler
        opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0)
        sched = L.LambdaLR(opt, _Halving())
        for _ in range(2):
            opt.step()
            sched.step()
        saved = sched.state_dict()
        plain = L.LambdaLR(T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0), lambda e: 1.0).state_dict()
        other = _Halving(0.1)
        fresh = L.LambdaLR(T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0), other)
        fresh.load_state_dict(saved)
        mult = L.MultiplicativeLR(T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0), _Halving(0.25)).state_dict()
        return (saved["lr_lambdas"], saved["last_epoch"], saved["base_lrs"], saved["_last_lr"], "optimizer" in saved,
                plain["lr_lambdas"], other.k, fresh.last_epoch, fresh.get_last_lr(), mult["lr_lambdas"])
    assert both(scenario) == [[{"k": 0.5}], 2, [1.0], [0.25], False, [None], 0.5, 2, [0.25], [{"k": 0.25}]]


def test_sequential_lr_state_dict_round_trip():
    def make(T):
        opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=0.1)
        L = T.optim.lr_scheduler
        return opt, L.SequentialLR(opt, [L.ConstantLR(opt, 0.5, 2), L.ExponentialLR(opt, 0.9)], [3])

    def scenario(T):
        opt, sched = make(T)
        for _ in range(4):
            opt.step()
            sched.step()
        saved = sched.state_dict()
        opt2, resumed = make(T)
        opt2.load_state_dict(opt.state_dict())
        resumed.load_state_dict(saved)
        rates = []
        for _ in range(3):
            for o, s in ((opt, sched), (opt2, resumed)):
                o.step()
                s.step()
            rates.append([sched.get_last_lr()[0], resumed.get_last_lr()[0]])
        return (sorted(saved), saved["_milestones"], saved["last_epoch"], [s["last_epoch"] for s in saved["_schedulers"]],
                "optimizer" in saved, rates)
    keys, milestones, epoch, inner, has_opt, rates = both(scenario)
    assert keys == ["_last_lr", "_milestones", "_schedulers", "last_epoch"] and milestones == [3] and epoch == 4
    assert not has_opt and inner == [2, 1]
    np.testing.assert_allclose(rates, [[0.1 * 0.9 ** k] * 2 for k in (2, 3, 4)], rtol=1e-12)


def test_closed_forms_when_stepping_to_an_epoch():
    epochs = [3, 9, 5, 1, 0, 2]
    got = both(lambda T: _lrs(T, lambda L, o: L.ConstantLR(o, 0.25, 4), 6, epochs=epochs))
    assert [r for r, _ in got] == [0.25, 0.25, 1.0, 1.0, 0.25, 0.25, 0.25]
    got = both(lambda T: _lrs(T, lambda L, o: L.MultiStepLR(o, [2, 5, 5], 0.5), 6, epochs=epochs))
    # gamma to the number of milestones passed (a repeated milestone counts twice)
    np.testing.assert_allclose([r for r, _ in got], [1.0, 0.5, 0.125, 0.125, 1.0, 1.0, 0.5])


# --- constructor errors, as torch words them ---------------------------------------------------------
def _params(T):
    return [T.nn.Parameter(T.zeros(1))]


def _two_groups(T, **kwargs):
    return T.optim.SGD([{"params": _params(T)}, {"params": _params(T)}], lr=1.0, momentum=0.9, **kwargs)


def _sgd(T):
    return T.optim.SGD(_params(T), lr=1.0, momentum=0.9)


OPTION_WORDS = {"lr": "learning rate", "eps": "epsilon value"}
OPTIONS = {"Adadelta": "lr rho eps weight_decay", "Adamax": "lr eps weight_decay",
           "NAdam": "lr eps weight_decay momentum_decay", "RAdam": "lr eps weight_decay", "Rprop": "lr",
           "ASGD": "lr weight_decay", "Adagrad": "lr lr_decay weight_decay initial_accumulator_value eps",
           "RMSprop": "lr eps momentum weight_decay alpha", "SGD": "lr momentum weight_decay",
           "Adam": "lr eps weight_decay", "AdamW": "lr eps weight_decay"}


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_optimizer_option_errors(name):
    for option in OPTIONS[name].split():
        msg = same_error(lambda T: getattr(T.optim, name)(_params(T), **{option: -1.0}), ValueError)
        assert msg == f"Invalid {OPTION_WORDS.get(option, option + ' value')}: -1.0"
    if name in ("Adam", "AdamW", "Adamax", "NAdam", "RAdam"):
        assert same_error(lambda T: getattr(T.optim, name)(_params(T), betas=(1.0, 0.9)), ValueError) == \
            "Invalid beta parameter at index 0: 1.0"
        assert same_error(lambda T: getattr(T.optim, name)(_params(T), betas=(0.9, -0.1)), ValueError) == \
            "Invalid beta parameter at index 1: -0.1"


SCHEDULER_ERRORS = {
    "SequentialLR expects at least one scheduler, but got no scheduler.":
        lambda T, L: L.SequentialLR(_sgd(T), [], []),
    "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.":
        lambda T, L: L.ChainedScheduler([]),
    "SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be specified "
    "when calling `step`, but got one at index 1 in the given schedulers sequence.":
        lambda T, L: (lambda o: L.SequentialLR(o, [L.ConstantLR(o), L.ReduceLROnPlateau(o)], [2]))(_sgd(T)),
    "ChainedScheduler does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
    "specified when calling `step`, but got one at index 0 in the given schedulers sequence.":
        lambda T, L: L.ChainedScheduler([L.ReduceLROnPlateau(_sgd(T))]),
    "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone "
    "points, but got number of schedulers 1 and the number of milestones to be equal to 1":
        lambda T, L: (lambda o: L.SequentialLR(o, [L.ConstantLR(o)], [2]))(_sgd(T)),
    "Constant multiplicative factor expected to be between 0 and 1.": lambda T, L: L.ConstantLR(_sgd(T), 1.5),
    "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.":
        lambda T, L: L.LinearLR(_sgd(T), 0.0),
    "Ending multiplicative factor expected to be between 0 and 1.": lambda T, L: L.LinearLR(_sgd(T), 0.5, 1.5),
    "Expected positive integer T_0, but got 0": lambda T, L: L.CosineAnnealingWarmRestarts(_sgd(T), 0),
    "Expected integer T_mult >= 1, but got 0": lambda T, L: L.CosineAnnealingWarmRestarts(_sgd(T), 2, 0),
    "Expected integer T_mult >= 1, but got 1.5": lambda T, L: L.CosineAnnealingWarmRestarts(_sgd(T), 2, 1.5),
    "Expected non-negative epoch, but got -1": lambda T, L: L.CosineAnnealingWarmRestarts(_sgd(T), 2).step(-1),
    "Expected 2 lr_lambdas, but got 1": lambda T, L: L.LambdaLR(_two_groups(T), [lambda e: 1.0]),
    "Expected 2 lr_lambdas, but got 3": lambda T, L: L.MultiplicativeLR(_two_groups(T), [lambda e: 1.0] * 3),
    "max_lr must have the same length as optimizer.param_groups. max_lr has 1 values, param_groups has 2.":
        lambda T, L: L.OneCycleLR(_two_groups(T), [1.0], total_steps=4),
    "base_momentum must have the same length as optimizer.param_groups. base_momentum has 1 values, param_groups "
    "has 2.": lambda T, L: L.OneCycleLR(_two_groups(T), 1.0, total_steps=4, base_momentum=[0.8]),
    "Expected positive integer total_steps, but got 0": lambda T, L: L.OneCycleLR(_sgd(T), 1.0, total_steps=0),
    "You must define either total_steps OR (epochs AND steps_per_epoch)": lambda T, L: L.OneCycleLR(_sgd(T), 1.0),
    "Expected positive integer epochs, but got 0":
        lambda T, L: L.OneCycleLR(_sgd(T), 1.0, epochs=0, steps_per_epoch=2),
    "Expected positive integer steps_per_epoch, but got 0":
        lambda T, L: L.OneCycleLR(_sgd(T), 1.0, epochs=2, steps_per_epoch=0),
    "Expected float between 0 and 1 pct_start, but got 1.5":
        lambda T, L: L.OneCycleLR(_sgd(T), 1.0, total_steps=4, pct_start=1.5),
    "Factor should be < 1.0.": lambda T, L: L.ReduceLROnPlateau(_sgd(T), factor=1.0),
    "mode up is unknown!": lambda T, L: L.ReduceLROnPlateau(_sgd(T), mode="up"),
    "threshold mode ratio is unknown!": lambda T, L: L.ReduceLROnPlateau(_sgd(T), threshold_mode="ratio"),
    "expected 1 min_lrs, got 2": lambda T, L: L.ReduceLROnPlateau(_sgd(T), min_lr=[0.1, 0.2]),
}


@pytest.mark.parametrize("message", list(SCHEDULER_ERRORS))
def test_scheduler_errors_as_torch(message):
    assert same_error(lambda T: SCHEDULER_ERRORS[message](T, T.optim.lr_scheduler), ValueError) == message


def test_scheduler_arguments_at_their_limits_are_accepted():
    def scenario(T):
        L = T.optim.lr_scheduler
        o = _sgd(T)
        L.ConstantLR(o, 1.0)
        L.LinearLR(o, 1.0, 0.0)                     # start 1 and end 0 are allowed
        one = L.SequentialLR(o, [L.ExponentialLR(o, 0.5)], [])   # one scheduler, no milestone
        cycle = L.OneCycleLR(_sgd(T), 1.0, epochs=1, steps_per_epoch=4)   # one epoch, or one step per epoch
        per_epoch = L.OneCycleLR(_sgd(T), 1.0, epochs=4, steps_per_epoch=1)
        chained = L.ChainedScheduler([L.ExponentialLR(o, 0.5)], optimizer=o)
        return one.get_last_lr(), cycle.total_steps, per_epoch.total_steps, chained.optimizer is o
    assert both(scenario) == [[1.0], 4, 4, True]


def test_cosine_warm_restarts_stepping_to_epochs():
    def cawr(T_0, T_mult, epoch, eta_min=0.0):
        """The period `epoch` falls in (each T_mult times longer) and the cosine within it."""
        T_i, start = T_0, 0.0
        while epoch >= start + T_i:
            start, T_i = start + T_i, T_i * T_mult
        return eta_min + (1 - eta_min) * (1 + math.cos(math.pi * (epoch - start) / T_i)) / 2
    epochs = [1, 4, 10, 2.5, 23, 3, 7.5]
    for T_mult in (1, 2, 3):
        got = both(lambda T: _lrs(T, lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, T_mult), len(epochs),
                                  epochs=epochs))
        np.testing.assert_allclose([r for r, _ in got[1:]], [cawr(3, T_mult, e) for e in epochs], rtol=1e-12)


def test_scheduler_defaults():
    got = both(lambda T: _lrs(T, lambda L, o: L.ConstantLR(o), 6))           # a third of the rate for 5 epochs
    np.testing.assert_allclose([r for r, _ in got], [1 / 3] * 5 + [1.0, 1.0])
    got = both(lambda T: _lrs(T, lambda L, o: L.PolynomialLR(o), 6))         # linear to 0 over 5 epochs
    np.testing.assert_allclose([r for r, _ in got], [1.0, 0.8, 0.6, 0.4, 0.2, 0.0, 0.0], atol=1e-15)
    got = both(lambda T: _lrs(T, lambda L, o: L.CosineAnnealingWarmRestarts(o, 4), 5))   # T_mult 1, eta_min 0
    np.testing.assert_allclose([r for r, _ in got], [1.0, (1 + math.cos(math.pi / 4)) / 2, 0.5,
                                                     (1 + math.cos(3 * math.pi / 4)) / 2, 1.0, (1 + math.cos(math.pi / 4)) / 2])


def test_schedulers_resume_from_last_epoch():
    def scenario(T):
        L = T.optim.lr_scheduler
        out = []
        for make in (lambda o, e: L.ConstantLR(o, 0.5, 4, last_epoch=e), lambda o, e: L.CosineAnnealingLR(o, 8, last_epoch=e),
                     lambda o, e: L.LambdaLR(o, lambda k: 0.5 ** k, last_epoch=e),
                     lambda o, e: L.PolynomialLR(o, 8, 2.0, last_epoch=e)):
            o = T.optim.SGD(_params(T), lr=1.0)
            make(o, -1)                        # sets each group's initial_lr
            o.param_groups[0]["lr"] = 1.0
            s = make(o, 2)                      # resumes: its first step is epoch 3
            out.append([s.last_epoch, o.param_groups[0]["lr"]])
        return out
    got = both(scenario)
    assert [e for e, _ in got] == [3, 3, 3, 3]
    # LambdaLR's rate is a closed form (0.5 ** 3); the chainable ones step from the rate the group has
    np.testing.assert_allclose([r for _, r in got], [1.0, 1.0, 0.125, 1.0], rtol=1e-12)


def test_reduce_on_plateau_details():
    def scenario(T):
        L = T.optim.lr_scheduler
        out = []
        for kwargs, metrics in (({"mode": "max", "patience": 0, "threshold": 0.1}, [1.0, 1.05, 1.2, 1.3]),
                                ({"mode": "min", "patience": 0, "threshold": 0.0}, [1.0, 1.0, 0.5, 0.5]),
                                ({"mode": "max", "patience": 0, "threshold": 0.0, "threshold_mode": "abs"},
                                 [1.0, 1.0, 2.0])):
            o = T.optim.SGD(_params(T), lr=1.0)
            s = L.ReduceLROnPlateau(o, factor=0.5, **kwargs)
            first = s.get_last_lr()
            for m in metrics:
                s.step(m)
            out.append([first, s.get_last_lr(), s.last_epoch, s.best])
        tiny = T.optim.SGD(_params(T), lr=1e-9)
        s = L.ReduceLROnPlateau(tiny, patience=0)   # a cut smaller than eps is not made
        s.step(1.0)
        s.step(1.0)
        out.append(tiny.param_groups[0]["lr"])
        grown = T.optim.SGD(_params(T), lr=1.0)
        s = L.ReduceLROnPlateau(grown, factor=0.5, patience=0, min_lr=0.3)
        grown.add_param_group({"params": _params(T), "lr": 1.0})   # a scalar min_lr extends to the new group
        s.step(1.0)
        s.step(1.0)
        out.append([g["lr"] for g in grown.param_groups])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s.step(1.0, 7)
        out.append([s.last_epoch, str(caught[0].message), caught[0].category.__name__])
        return out
    got = both(scenario)
    # max/rel: better only above best * 1.1 (1.05 and 1.3 are not: two cuts); min with threshold 0: an equal
    # value is no better; max/abs likewise
    assert got[0] == [[1.0], [0.25], 4, 1.2] and got[1] == [[1.0], [0.25], 4, 0.5] and got[2] == [[1.0], [0.5], 3, 2.0]
    assert got[3] == 1e-9 and got[4] == [0.5, 0.5]
    assert got[5][0] == 7 and got[5][2] == "UserWarning" and "epoch" in got[5][1]


def test_reduce_on_plateau_refuses_a_new_group_without_its_min_lr():
    def call(T):
        o = T.optim.SGD(_params(T), lr=1.0)
        s = T.optim.lr_scheduler.ReduceLROnPlateau(o, patience=0, min_lr=[0.1])
        o.add_param_group({"params": _params(T)})
        s.step(1.0)
        s.step(1.0)
    assert same_error(call, RuntimeError) == (
        "The number of param groups in the `optimizer` (2) differs from when `ReduceLROnPlateau` was initialized (1), "
        "usually due to a new param group being added to the optimizer. Please modify the `min_lrs` field to match "
        "the length of the `optimizer` param groups.")


def test_one_cycle_keeps_adams_second_beta():
    def scenario(T):
        o = T.optim.Adam(_params(T), lr=1.0, betas=(0.9, 0.99))
        s = T.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=4)
        o.step()
        s.step()
        return list(o.param_groups[0]["betas"])
    got = both(scenario)
    assert got[1] == 0.99 and got[0] < 0.95


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta",
                                  "Rprop", "ASGD"])
def test_default_options_and_flags_reach_the_param_group(name):
    def scenario(T):
        groups = []
        for kwargs in ({}, {"foreach": True}):
            o = getattr(T.optim, name)(_params(T), **kwargs)
            groups.append(sorted((k, str(v)) for k, v in o.param_groups[0].items() if k != "params"))
        return groups
    default, flagged = both(scenario)
    assert ["foreach", "None"] in default and ["foreach", "True"] in flagged
    assert dict(default)["lr"] == {"SGD": "0.001", "Adam": "0.001", "AdamW": "0.001", "Adagrad": "0.01",
                                   "RMSprop": "0.01", "Adamax": "0.002", "NAdam": "0.002", "RAdam": "0.001",
                                   "Adadelta": "1.0", "Rprop": "0.01", "ASGD": "0.01"}[name]


def test_rprop_two_steps_in_float64():
    def scenario(T):
        p = T.nn.Parameter(T.tensor([1.0, -2.0, 0.5], dtype=T.float64))
        opt = T.optim.Rprop([p], lr=0.1, etas=(0.3, 1.7), step_sizes=(0.05, 0.15))
        out = []
        for g in ([0.5, -0.25, 1.0], [0.3, 0.4, 1.0], [0.2, 0.1, 1.0]):
            p.grad = T.tensor(g, dtype=T.float64)
            opt.step()
            out.append(p.detach().clone())
        return out
    got = both(scenario, rtol=0, atol=0)
    # each step size grows by 1.7 (capped at 0.15) while the sign holds, shrinks by 0.3 (floored at 0.05) when it
    # flips, and a flipped gradient makes no move that step and counts as zero next time
    p, size, prev, out = np.array([1.0, -2.0, 0.5]), np.full(3, 0.1), np.zeros(3), []
    for g in (np.array([0.5, -0.25, 1.0]), np.array([0.3, 0.4, 1.0]), np.array([0.2, 0.1, 1.0])):
        s = g * prev
        size = np.clip(size * np.where(s > 0, 1.7, np.where(s < 0, 0.3, 1.0)), 0.05, 0.15)
        g = np.where(s < 0, 0.0, g)
        p = p - np.sign(g) * size
        prev = g
        out.append(p)
    np.testing.assert_allclose(got, out, rtol=1e-15)


def test_rprop_eta_errors():
    for etas in ((0.0, 1.2), (0.5, 1.0)):
        assert same_error(lambda T: T.optim.Rprop(_params(T), etas=etas), ValueError) == \
            f"Invalid eta values: {etas[0]}, {etas[1]}"


def test_load_state_dict_casts_state_to_the_parameters_dtype_but_not_the_step():
    def scenario(T):
        p32 = T.nn.Parameter(T.tensor([1.0, 2.0]))
        a = T.optim.Adam([p32], lr=0.1)
        p32.grad = T.tensor([0.5, 0.5])
        a.step()
        p64 = T.nn.Parameter(T.tensor([1.0, 2.0], dtype=T.float64))
        b = T.optim.Adam([p64], lr=0.1)
        b.load_state_dict(a.state_dict())
        s = b.state[p64]
        return str(s["exp_avg"].dtype), str(s["exp_avg_sq"].dtype), str(s["step"].dtype)
    assert both(scenario) == ["torch.float64", "torch.float64", "torch.float32"]

    def groups(T):
        a = T.optim.SGD(_params(T), lr=0.1)
        T.optim.SGD([{"params": _params(T)}, {"params": _params(T)}], lr=0.1).load_state_dict(a.state_dict())

    def sizes(T):
        a = T.optim.SGD(_params(T), lr=0.1)
        T.optim.SGD(_params(T) + _params(T), lr=0.1).load_state_dict(a.state_dict())
    assert same_error(groups, ValueError) == "loaded state dict has a different number of parameter groups"
    assert same_error(sizes, ValueError) == \
        "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"


def test_reduce_on_plateau_relative_and_absolute_thresholds_differ():
    def scenario(T):
        out = []
        for mode, threshold_mode, metrics in (("max", "rel", [2.0, 2.15]), ("max", "abs", [2.0, 2.15]),
                                              ("min", "rel", [2.0, 1.85]), ("min", "abs", [2.0, 1.85])):
            o = T.optim.SGD(_params(T), lr=1.0)
            s = T.optim.lr_scheduler.ReduceLROnPlateau(o, mode=mode, factor=0.5, patience=0, threshold=0.1,
                                                       threshold_mode=threshold_mode)
            for m in metrics:
                s.step(m)
            out.append(o.param_groups[0]["lr"])
        small = T.optim.SGD(_params(T), lr=1e-8)
        s = T.optim.lr_scheduler.ReduceLROnPlateau(small, factor=0.9, patience=0)
        s.step(1.0)
        s.step(1.0)   # a cut of 1e-9, under eps = 1e-8: not made
        out.append(small.param_groups[0]["lr"])
        return out
    # rel: 2.15 is not above 2.0 * 1.1 (nor 1.85 under 2.0 * 0.9): a cut; abs: it is beyond 2.0 -+ 0.1: none
    assert both(scenario) == [0.5, 1.0, 0.5, 1.0, 1e-8]


def test_optimizer_copies_keep_defaults_and_state():
    def scenario(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        opt = T.optim.SGD([p], lr=0.1, momentum=0.9)
        p.grad = T.tensor([1.0, 1.0])
        opt.step()
        twin = copy.deepcopy(opt)
        return twin.defaults["lr"], twin.defaults["momentum"], list(twin.state.values())[0]["momentum_buffer"]
    assert lists(both(scenario)) == [0.1, 0.9, [1.0, 1.0]]
    assert repr(required) == "<required parameter>"   # as torch.optim.optimizer.required


def test_flags_ndgrad_does_not_implement_are_refused():
    # ndgrad runs updates on the _foreach_ ops under no_grad: fused and differentiable are refused, by every class
    for make in (lambda: ndgrad.optim.AdamW(_params(ndgrad), differentiable=True),
                 lambda: ndgrad.optim.AdamW(_params(ndgrad), fused=True),
                 lambda: ndgrad.optim.Adagrad(_params(ndgrad), fused=True)):
        with pytest.raises(NotImplementedError, match="is not supported by ndgrad"):
            make()

    class NoRule(ndgrad.optim.Optimizer):
        pass
    p = ndgrad.nn.Parameter(ndgrad.zeros(1))
    p.grad = ndgrad.ones(1)
    with pytest.raises(NotImplementedError, match="NoRule does not implement step"):
        NoRule([p], {}).step()


def test_fused_false_and_rho_limits():
    def scenario(T):
        return [T.optim.Adagrad(_params(T), fused=False).param_groups[0]["fused"],
                T.optim.AdamW(_params(T), fused=False).param_groups[0]["fused"],
                T.optim.Adadelta(_params(T), rho=1.0).param_groups[0]["rho"]]
    assert both(scenario) == [False, False, 1.0]
    assert same_error(lambda T: T.optim.Adadelta(_params(T), rho=1.5), ValueError) == "Invalid rho value: 1.5"


def test_cyclic_lr_cycles_adams_beta1_only_and_its_defaults():
    def scenario(T):
        L = T.optim.lr_scheduler
        o = T.optim.Adam(_params(T), lr=1.0, betas=(0.9, 0.99))
        s = L.CyclicLR(o, 0.1, 0.5, step_size_up=2)
        o.step()
        s.step()
        g = o.param_groups[0]
        d = T.optim.SGD(_params(T), lr=1.0, momentum=0.9)
        default = L.CyclicLR(d, 0.1, 0.5, scale_fn=lambda x: 0.5)   # step_size_up 2000, scale_mode "cycle"
        d.step()
        default.step()
        m = T.optim.SGD(_params(T), lr=1.0, momentum=0.9)
        L.CyclicLR(m, 0.1, 0.5, step_size_up=2)
        resumed = L.CyclicLR(m, 0.1, 0.5, step_size_up=2, last_epoch=0)   # resumes: lr is not reset to base_lr
        mult = L.MultiplicativeLR(m, lambda e: 0.5, last_epoch=0)
        return (list(g["betas"]), "momentum" in g, d.param_groups[0]["lr"], resumed.last_epoch, mult.last_epoch)
    betas, has_momentum, lr, epoch, mult_epoch = both(scenario)
    assert math.isclose(betas[0], 0.85) and betas[1] == 0.99 and not has_momentum
    assert math.isclose(lr, 0.1 + 0.4 * 0.5 / 2000) and epoch == 1 and mult_epoch == 1


def test_constant_lr_closed_form_at_total_iters():
    got = both(lambda T: _lrs(T, lambda L, o: L.ConstantLR(o, 0.25, 4), 3, epochs=[3, 4, 5]))
    assert [r for r, _ in got] == [0.25, 0.25, 1.0, 1.0]
