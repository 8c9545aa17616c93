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
