"""torch.autocast on the CPU and torch.amp.GradScaler against torch: which ops compute in bfloat16,
which in float32, the recorded casts, gradients, and the scaler's skip/backoff/growth."""
import numpy as np
import pytest

from parity import both, same_error

A = np.linspace(-1, 1, 6).reshape(2, 3)
B = np.linspace(0.5, -0.5, 6).reshape(3, 2)


def test_op_dtypes_inside_autocast():
    def scenario(T):
        a = T.tensor(A, dtype=T.float32, requires_grad=True)
        b = T.tensor(B, dtype=T.float32)
        with T.autocast("cpu"):
            y = a @ b
            outs = [y, T.nn.functional.linear(a, b.T), a + 1, T.cat([a.bfloat16(), a]), T.nn.functional.mse_loss(y, y),
                    T.softmax(y, 0), T.bmm(a[None], b[None]), T.prod(y), T.mm(a.double(), b.double()),
                    T.nn.functional.cross_entropy(y, T.tensor([0, 1]))]
            flags = [T.is_autocast_enabled("cpu"), str(T.get_autocast_dtype("cpu"))]
            with T.autocast("cpu", enabled=False):
                flags.append(str((a @ b).dtype))
        flags.append(T.is_autocast_enabled("cpu"))
        names = [type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0]).__name__]
        y.float().sum().backward()
        return [str(o.dtype) for o in outs], flags, names, y.float(), a.grad
    dtypes, flags, names, y, g = both(scenario, rtol=1e-2, atol=1e-2)
    assert dtypes[:5] == ["torch.bfloat16", "torch.bfloat16", "torch.float32", "torch.float32", "torch.float32"]
    assert flags == [True, "torch.bfloat16", "torch.float32", False] and names == ["MmBackward0", "ToCopyBackward0"]


def test_decorator_float16_and_unsupported_dtype():
    def scenario(T):
        @T.autocast("cpu", dtype=T.float16)
        def f(x):
            return x @ x.T
        with pytest.warns(UserWarning, match="target dtype is not supported"):
            with T.autocast("cpu", dtype=T.float64):
                off = T.is_autocast_enabled("cpu")
        return str(f(T.ones(2, 2)).dtype), off
    assert both(scenario) == ["torch.float16", False]
    same_error(lambda T: T.autocast("xyz"))


def test_grad_scaler_skips_backs_off_and_grows():
    def scenario(T):
        w = T.tensor([1.0, 2.0], requires_grad=True)
        opt = T.optim.SGD([w], lr=0.1)
        scaler = T.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
        scales, weights = [], []
        for bad in (False, True, False, False):
            opt.zero_grad()
            loss = (w * w).sum() * (float("inf") if bad else 1.0)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
            weights.append(w.detach().clone())
        return scales, weights, scaler.state_dict()["_growth_tracker"]
    scales, weights, tracker = both(scenario)
    assert scales == [4.0, 2.0, 2.0, 4.0] and tracker == 0 and np.allclose(weights[1], weights[0])
