"""Optimizer update rules written out for one step by hand, so a wrong rule fails without torch too
(issue 18: a doubled AdamW weight decay was caught only by the torch comparison)."""
import numpy as np

from parity import both


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
