"""Mixed precision: autocast regions on the CPU (which ops run in bfloat16/float16, which in
float32, the casts in the graph, the weight cache) and GradScaler's scaling rules."""
import threading
import warnings

import pytest

import ndgrad
from parity import both, err, parity

pytest.importorskip("ml_dtypes")   # CPU autocast's default dtype is bfloat16


def name(dtype):
    return str(dtype).replace("torch.", "")


# op -> a call on float32 (or bfloat16) operands built by the library T
OPS = {
    "matmul": lambda T, x: x @ x,
    "mm": lambda T, x: T.mm(x, x),
    "addmm": lambda T, x: T.addmm(x, x, x),
    "bmm": lambda T, x: T.bmm(x[None], x[None]),
    "baddbmm": lambda T, x: T.baddbmm(x[None], x[None], x[None]),
    "linear": lambda T, x: T.nn.functional.linear(x, x, x[0]),
    "conv2d": lambda T, x: T.nn.functional.conv2d(x[None, None], x[None, None, :2, :2]),
    "conv_transpose1d": lambda T, x: T.nn.functional.conv_transpose1d(x[None], x[:, None, :2]),
    "prelu": lambda T, x: T.nn.functional.prelu(x, x[0, :1]),
    "einsum": lambda T, x: T.einsum("ij,jk->ik", x, x),
    "linalg.vecdot": lambda T, x: T.linalg.vecdot(x, x),
    "sdpa": lambda T, x: T.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None]),
    "mv (not listed)": lambda T, x: T.mv(x, x[0]),
    "relu (not listed)": lambda T, x: T.relu(x),
    "softmax (not listed)": lambda T, x: T.softmax(x, 0),
    "sum (not listed)": lambda T, x: x.sum(),
    "layer_norm (not listed)": lambda T, x: T.nn.functional.layer_norm(x, (3,)),
    "mse_loss": lambda T, x: T.nn.functional.mse_loss(x, x * 2),
    "l1_loss": lambda T, x: T.nn.functional.l1_loss(x, x * 2),
    "cross_entropy": lambda T, x: T.nn.functional.cross_entropy(x, T.tensor([0, 1, 2])),
    "nll_loss": lambda T, x: T.nn.functional.nll_loss(x, T.tensor([0, 1, 2])),
    "bce_with_logits": lambda T, x: T.nn.functional.binary_cross_entropy_with_logits(x, x.sigmoid()),
    "kl_div": lambda T, x: T.nn.functional.kl_div(x, x, reduction="batchmean"),
    "prod": lambda T, x: x.prod(),
    "cdist": lambda T, x: T.cdist(x, x),
    "trace": lambda T, x: T.trace(x),
    "linalg.inv": lambda T, x: T.linalg.inv(x + 4 * T.eye(3, dtype=x.dtype)),
    "linalg.svdvals": lambda T, x: T.linalg.svdvals(x),
    "quantile": lambda T, x: T.quantile(x.flatten(), T.tensor(0.5, dtype=x.dtype)),
    "fft.rfft": lambda T, x: T.fft.rfft(x),
    "cat (promote)": lambda T, x: T.cat([x, x.float()]),
    "stack (promote)": lambda T, x: T.stack([x, x.float()]),
}


@pytest.mark.parametrize("op", list(OPS))
def test_autocast_policy_gives_torchs_dtypes(op):
    def scenario(T):
        x = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.1, 0.2, 0.3]])
        dtypes = []
        for dtype in (T.float32, T.bfloat16, T.float64):
            with T.autocast("cpu"):
                dtypes.append(name(OPS[op](T, x.to(dtype)).dtype))
        with T.autocast("cpu", dtype=T.float16):
            dtypes.append(name(OPS[op](T, x).dtype))
        return dtypes
    parity(scenario)


def test_matmul_in_bfloat16_records_the_casts_and_reuses_a_weights_cast():
    def scenario(T):
        T.manual_seed(0)
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        w = T.nn.Parameter(T.tensor([[0.5, -1.0], [0.25, 2.0]]))
        with T.autocast("cpu"):
            y, z = x @ w, (x + 1) @ w
            inside = [T.is_autocast_enabled("cpu"), name(T.get_autocast_dtype("cpu"))]
        y_edges = [n.name() for n, _ in y.grad_fn.next_functions]
        shared = y.grad_fn.next_functions[1][0] is z.grad_fn.next_functions[1][0]
        (y.float().sum() + z.float().sum()).backward()
        return [name(y.dtype), y.grad_fn.name(), y_edges, shared, inside, T.is_autocast_enabled("cpu"),
                y.float(), name(x.grad.dtype), x.grad, w.grad]
    out = both(scenario)
    assert out[:6] == ["bfloat16", "MmBackward0", ["ToCopyBackward0", "ToCopyBackward0"], True,
                       [True, "bfloat16"], False]
    assert out[7] == "float32" and out[9].tolist() == [[10.0, 10.0], [14.0, 14.0]]   # column sums of x and x + 1


def test_cache_is_for_float32_leaves_only_and_ends_with_the_region():
    x = ndgrad.ones(2, 2, requires_grad=True)
    with ndgrad.autocast("cpu"):
        a, b = x @ x, x @ x
        c = (x * 1) @ (x * 1)   # not leaves: a fresh cast each time
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
    assert c.grad_fn.next_functions[0][0] is not c.grad_fn.next_functions[1][0]
    with ndgrad.autocast("cpu"):
        d = x @ x
    assert d.grad_fn.next_functions[0][0] is not a.grad_fn.next_functions[0][0]   # a new region, a new cast
    with ndgrad.autocast("cpu", cache_enabled=False):
        e, f = x @ x, x @ x
    assert e.grad_fn.next_functions[0][0] is not f.grad_fn.next_functions[0][0]


def test_regions_nest_decorate_and_stay_in_their_thread():
    def scenario(T):
        x = T.ones(2, 2)
        seen = []
        with T.autocast("cpu"):
            with T.autocast("cpu", enabled=False):
                seen.append(name((x @ x).dtype))
            with T.autocast("cpu", dtype=T.float16):
                seen.append(name((x @ x).dtype))
            seen.append(name((x @ x).dtype))
            other = []
            t = threading.Thread(target=lambda: other.append((T.is_autocast_enabled("cpu"), name((x @ x).dtype))))
            t.start()
            t.join()
            seen.append(other)

        @T.autocast("cpu")
        def f(a):
            return a @ a
        seen.append(name(f(x).dtype))
        seen.append(name((x @ x).dtype))
        return seen
    assert both(scenario) == ["float32", "float16", "bfloat16", [[False, "float32"]], "bfloat16", "float32"]


def test_autocast_arguments_and_other_devices():
    def scenario(T):
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with T.autocast("cpu", dtype=T.float64):
                out.append(name((T.ones(2, 2) @ T.ones(2, 2)).dtype))
            with T.autocast("cuda"):
                out.append(T.is_autocast_enabled("cuda"))
            with T.cpu.amp.autocast():
                out.append(T.is_autocast_enabled("cpu"))
        out.append([str(m.message).split("\n")[0] for m in w])
        out.append(err(lambda: T.autocast(3)))
        out.append([T.amp.is_autocast_available("cpu"), T.is_autocast_cache_enabled(), name(T.get_autocast_dtype("cpu"))])
        return out
    out = both(scenario)
    assert out[:3] == ["float32", False, True]
    assert out[3] == ["In CPU autocast, but the target dtype is not supported. Disabling autocast.",
                      "CUDA is not available or torch_xla is imported. Disabling autocast.",
                      "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead."]


def test_custom_fwd_casts_inputs_and_runs_backward_in_the_forwards_state():
    def scenario(T):
        seen = []

        class Mul(T.autograd.Function):
            @staticmethod
            @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
            def forward(ctx, a, b):
                seen.append(("fwd", name(a.dtype), T.is_autocast_enabled("cpu")))
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            @T.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                seen.append(("bwd", T.is_autocast_enabled("cpu")))
                return g * b, g * a
        a = T.ones(2, dtype=T.bfloat16, requires_grad=True)
        with T.autocast("cpu"):
            y = Mul.apply(a, T.full((2,), 3.0))
        y.sum().backward()
        return [seen, name(y.dtype), a.grad.float()]
    out = both(scenario)
    assert out[0] == [["fwd", "float32", False], ["bwd", False]] and out[1] == "float32"


# ---- GradScaler -----------------------------------------------------------------------------------


def _step(T, scaler, w, opt, grad=None):
    opt.zero_grad()
    loss = (w * 3).sum()
    scaler.scale(loss).backward()
    if grad is not None:
        w.grad = grad
    result = scaler.step(opt)
    scaler.update()
    return result


def test_grad_scaler_unscales_skips_and_adjusts_the_scale():
    def scenario(T):
        w = T.nn.Parameter(T.tensor([1.0, 2.0]))
        opt = T.optim.SGD([w], lr=0.1)
        scaler = T.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
        out = [scaler.scale(T.tensor(1.5)), scaler.get_scale()]
        _step(T, scaler, w, opt)                   # good step 1
        out += [w.detach().clone(), scaler.get_scale(), scaler.state_dict()]
        _step(T, scaler, w, opt)                   # good step 2: the scale doubles
        out += [w.detach().clone(), scaler.get_scale()]
        _step(T, scaler, w, opt, grad=T.tensor([float("inf"), 1.0]))   # skipped: the scale halves
        out += [w.detach().clone(), scaler.get_scale(), scaler.state_dict()]
        return out
    out = both(scenario)
    assert out[0].item() == 12.0 and out[1] == 8.0
    assert out[2].tolist() == pytest.approx([0.7, 1.7]) and out[3] == 8.0   # grads unscaled to 3 before the step
    assert out[4] == {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                      "_growth_tracker": 1}
    assert out[6] == 16.0 and out[8] == 8.0 and out[7].tolist() == out[5].tolist()   # the inf step left w alone


def test_grad_scaler_errors_and_disabled_forms():
    def scenario(T):
        w = T.nn.Parameter(T.tensor([1.0]))
        opt = T.optim.SGD([w], lr=0.1)
        scaler = T.amp.GradScaler("cpu")
        out = [err(lambda: scaler.update()), err(lambda: scaler.unscale_(opt))]
        scaler.scale((w * 2).sum()).backward()
        scaler.unscale_(opt)
        out.append(err(lambda: scaler.unscale_(opt)))
        scaler.step(opt)
        out.append(err(lambda: scaler.step(opt)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            off = T.amp.GradScaler()                       # CUDA, which this machine lacks
            old = T.cuda.amp.GradScaler()
        out.append([str(m.message) for m in caught])
        loss = (w * 2).sum()
        out += [off.is_enabled(), old.is_enabled(), off.scale(loss) is loss, off.get_scale(), off.state_dict()]
        return out
    out = both(scenario)
    assert out[2] == ["RuntimeError", "unscale_() has already been called on this optimizer since the last update()."]
    assert out[3] == ["RuntimeError", "step() has already been called since the last update()."]
    assert out[5:] == [False, False, True, 1.0, {}]
