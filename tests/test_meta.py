"""The meta device: tensors with a shape and dtype and no data; ops on them give meta results of
the shapes and dtypes torch gives; reading values raises."""
import pytest

from parity import both, same_error


def _describe(t):
    return [str(t.device), list(t.shape), str(t.dtype), t.is_meta, repr(t)]


def test_factories_ops_and_repr():
    def scenario(T):
        m = T.empty(2, 3, device="meta")
        w = T.zeros(3, 4, device="meta", dtype=T.float64)
        outs = [m, m * 2, m.double() @ w, m.sum(1), T.empty_like(m), T.zeros_like(m, dtype=T.int64), m.t(), m[0],
                T.cat([m, m]), T.nn.functional.relu(m), T.ones(2, 3).to("meta"), m.view(3, 2)]
        return [_describe(t) for t in outs]
    out = both(scenario)
    assert out[2] == ["meta", [2, 4], "torch.float64", True, "tensor(..., device='meta', size=(2, 4), dtype=torch.float64)"]


def test_module_to_meta_and_functional_call():
    def scenario(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 3), T.nn.ReLU(), T.nn.Linear(3, 2))
        params = {k: T.linspace(-1, 1, v.numel()).reshape(v.shape) for k, v in model.named_parameters()}
        meta = model.to("meta")
        y = meta(T.empty(5, 4, device="meta"))
        real = T.func.functional_call(meta, params, (T.ones(5, 4),))
        return _describe(meta[0].weight) + [meta[0].weight.requires_grad], _describe(y), real
    w, y, real = both(scenario, rtol=1e-6)
    assert w[0] == "meta" and w[-1] is True and y[1] == [5, 2] and real.shape == (5, 2)


def test_autograd_records_on_meta():
    def scenario(T):
        x = T.ones(3, requires_grad=True).to("meta")
        w = T.empty(3, device="meta", requires_grad=True)
        (w * 2).sum().backward()
        return repr(x), _describe(w.grad)
    rx, g = both(scenario)
    assert rx == "tensor(..., device='meta', size=(3,), grad_fn=<ToCopyBackward0>)" and g[:2] == ["meta", [3]]


def test_reading_data_raises():
    same_error(lambda T: T.empty(2, device="meta").tolist(), NotImplementedError)
    same_error(lambda T: T.empty(2, device="meta").to("cpu"), NotImplementedError)
    same_error(lambda T: T.nn.Linear(2, 2).to("meta").to("cpu"), NotImplementedError)
    same_error(lambda T: T.empty(2, 3, device="meta") + T.ones(2, 3))
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        import ndgrad
        ndgrad.empty(2, device="meta").item()
