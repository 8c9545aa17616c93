"""Adafactor, Muon, SparseAdam, swa_utils and swap_in_optimizer_params_and_state against torch:
the same weights and gradients give the same parameters step after step."""
import numpy as np
import pytest

from parity import both, same_error

W = np.random.default_rng(1).standard_normal((3, 4))
B = np.random.default_rng(2).standard_normal(4)
X = np.random.default_rng(3).standard_normal((5, 3))
E = np.random.default_rng(4).standard_normal((6, 3)).astype(np.float32)


def _fit(T, make, steps=4):
    w = T.tensor(W, requires_grad=True)
    b = T.tensor(B, requires_grad=True)
    opt = make(T, [w, b])
    x = T.tensor(X)
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b).sin() ** 2).sum().backward()
        opt.step()
    return w, b, [opt.state[w][k] for k in sorted(opt.state[w]) if k != "step"]


@pytest.mark.parametrize("kwargs", [{}, {"weight_decay": 0.1, "maximize": True}, {"lr": 0.5, "eps": (1e-6, 1e-2)}])
def test_adafactor(kwargs):
    w, b, state = both(lambda T: _fit(T, lambda T, p: T.optim.Adafactor(p, **kwargs)), rtol=1e-10)
    assert not np.allclose(w, W) and state[0].shape == (1, 4) and state[1].shape == (3, 1)   # col_var, row_var


@pytest.mark.parametrize("kwargs", [{}, {"nesterov": False, "adjust_lr_fn": "match_rms_adamw", "lr": 0.02}])
def test_muon(kwargs):
    def scenario(T):
        w = T.tensor(W, dtype=T.float32, requires_grad=True)
        opt = T.optim.Muon([w], **kwargs)
        for _ in range(3):
            opt.zero_grad()
            (T.tensor(X, dtype=T.float32) @ w).tanh().sum().backward()
            opt.step()
        return w
    w = both(scenario, rtol=2e-3, atol=1e-5)   # the Newton-Schulz iteration runs in bfloat16
    assert not np.allclose(w, W)
    same_error(lambda T: T.optim.Muon([T.zeros(3, requires_grad=True)]), ValueError)


def test_sparse_adam():
    def scenario(T):
        emb = T.nn.Embedding(6, 3, sparse=True)
        with T.no_grad():
            emb.weight.copy_(T.tensor(E))
        opt = T.optim.SparseAdam(emb.parameters(), lr=0.1)
        for ids in ([1, 2, 1], [4, 1], [0]):
            opt.zero_grad()
            emb(T.tensor(ids)).pow(2).sum().backward()
            opt.step()
        return emb.weight, opt.state[emb.weight]["exp_avg_sq"]
    weight, v = both(scenario, rtol=1e-5, atol=1e-7)
    assert np.array_equal(weight[[3, 5]], E[[3, 5]])   # untouched
    same_error(lambda T: _fit(T, lambda T, p: T.optim.SparseAdam(p)), RuntimeError)


def test_swa_and_ema_averages():
    def scenario(T):
        model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4))
        with T.no_grad():
            model[0].weight.copy_(T.tensor(W.T))
            model[0].bias.copy_(T.tensor(B))
        model.double()
        swa = T.optim.swa_utils.AveragedModel(model)
        ema = T.optim.swa_utils.AveragedModel(model, multi_avg_fn=T.optim.swa_utils.get_ema_multi_avg_fn(0.5),
                                              use_buffers=True)
        single = T.optim.swa_utils.AveragedModel(model, avg_fn=T.optim.swa_utils.get_ema_avg_fn(0.9))
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        sched = T.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
        lrs = []
        for _ in range(5):
            opt.zero_grad()
            model(T.tensor(X)).pow(2).sum().backward()
            opt.step()
            for m in (swa, ema, single):
                m.update_parameters(model)
            sched.step()
            lrs.append(sched.get_last_lr()[0])
        T.optim.swa_utils.update_bn([T.tensor(X), T.tensor(X[:2] * 2)], swa)
        return ([swa.module[0].weight, ema.module[0].weight, ema.module[1].running_mean, single.module[0].bias,
                 swa.module[1].running_var, swa(T.tensor(X))], int(swa.n_averaged), lrs)
    tensors, n, lrs = both(scenario, rtol=1e-10)
    assert n == 5 and lrs[-1] == pytest.approx(0.05)
    same_error(lambda T: T.optim.swa_utils.get_ema_avg_fn(2.0), ValueError)


def test_swap_in_params_and_state():
    def scenario(T):
        w = T.tensor(W, requires_grad=True)
        opt = T.optim.Adam([w], lr=0.1)
        w.grad = T.ones_like(w)
        opt.step()
        other = T.zeros_like(w)
        other.grad = T.ones_like(w)
        sd = opt.state_dict()
        sd = {"state": {0: {k: v.clone() for k, v in sd["state"][0].items()}},
              "param_groups": [dict(sd["param_groups"][0], lr=1.0)]}
        with T.optim.swap_in_optimizer_params_and_state(opt, {"w": other}, sd):
            inside = opt.param_groups[0]["lr"]
            opt.step()
        return other, sd["state"][0]["exp_avg"], w, inside, opt.param_groups[0]["lr"], opt.state[w]["step"]
    other, avg, w, inside, after, step = both(scenario)
    assert inside == 1.0 and after == 0.1 and float(step) == 1.0 and not np.allclose(other, 0)
