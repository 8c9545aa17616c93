"""The torch._functorch modules the `functorch` package imports: make_functional(_with_buffers),
combine_state_for_ensemble and the deprecated transform spellings, against torch's."""
import importlib

import numpy as np
import pytest

from parity import both

W = np.linspace(-1, 1, 12).reshape(3, 4)


def _model(T):
    model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.BatchNorm1d(3))
    with T.no_grad():
        model[0].weight.copy_(T.tensor(W, dtype=T.float32))
        model[0].bias.fill_(0.5)
    return model.eval()


def _ft(T):
    return importlib.import_module(T.__name__ + "._functorch.deprecated")


def test_make_functional_with_buffers_and_jvp():
    def scenario(T):
        ft = _ft(T)
        x = T.tensor(W[:2], dtype=T.float32)
        func, params, buffers = ft.make_functional_with_buffers(_model(T))
        tangents = tuple(T.ones_like(p) for p in params)
        with pytest.warns(FutureWarning):
            out, jvp_out = ft.jvp(lambda ps: func(ps, buffers, x), (params,), (tangents,))
        return out, jvp_out, [type(p).__name__ for p in params], len(buffers)
    out, jvp_out, kinds, nbuf = both(scenario, rtol=1e-6)
    assert kinds == ["Parameter", "Parameter", "Parameter", "Parameter"] and nbuf == 3 and jvp_out.shape == (2, 3)


def test_make_functional_refuses_buffers_and_combines_ensembles():
    def scenario(T):
        ft = _ft(T)
        with pytest.raises(RuntimeError, match="has buffers"):
            ft.make_functional(_model(T))
        lin = T.nn.Linear(4, 3)
        func, params = ft.make_functional(lin, disable_autograd_tracking=True)
        y = func(tuple(T.ones_like(p) for p in params), T.ones(1, 4))
        fm, ps, bs = ft.combine_state_for_ensemble([_model(T), _model(T)])
        return y, [list(p.shape) for p in ps], [p.requires_grad for p in params], len(bs)
    y, shapes, grads, nbuf = both(scenario)
    assert y.tolist() == [[5.0, 5.0, 5.0]] and shapes[0] == [2, 3, 4] and grads == [False, False] and nbuf == 3


def test_make_fx_refuses():
    from ndgrad._functorch.python_key import make_fx
    with pytest.raises(NotImplementedError, match="no torch.fx"):
        make_fx(lambda x: x)
