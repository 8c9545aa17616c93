"""The benchmark workloads, written once per library.

ndgrad and torch share one implementation (`import ndgrad as torch` is the point of ndgrad);
HIPS autograd, MyGrad and hand-written NumPy get their own, computing the same function from the
same data (every library starts from the same NumPy arrays, so the first step's loss must agree:
run.py checks it). A factory returns `step(mark=None)`; one call is one timed unit (a training
step, a forward + backward chain, one jacobian). Training steps call `mark("forward")` once the
loss exists and `mark("backward")` once the gradients do, so the memory probe can reset and read
the high-water mark around backward. A step returns the loss (or a checksum) — or, to time only
part of itself, a dict {"check", "time", ...}.

A factory raises NotApplicable when the library has no such operation (HIPS autograd has no
convolution); an ndgrad op that does not exist yet surfaces as AttributeError/NotImplementedError,
which the worker reports as "not supported yet".
"""
import math
import time

import numpy as np

F32 = np.float32
LR = 0.01
TORCHLIKE = ("ndgrad", "torch")


class NotApplicable(Exception):
    """The library has no counterpart for this workload."""


def _noop(_phase):
    pass


# ---- data (shared by every library) ------------------------------------------------------
def _rs():
    return np.random.RandomState(0)


def _dense(rs, fan_in, fan_out):
    return (rs.randn(fan_in, fan_out) / math.sqrt(fan_in)).astype(F32)


def mlp_data(batch=256, sizes=(784, 1024, 1024, 10)):
    rs = _rs()
    x = rs.randn(batch, sizes[0]).astype(F32)
    y = rs.randint(0, sizes[-1], batch).astype(np.int64)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params += [_dense(rs, fan_in, fan_out), (0.01 * rs.randn(fan_out)).astype(F32)]
    return x, y, params


def cnn_data(batch=64, c1=32, c2=64, classes=10):
    rs = _rs()
    x = rs.randn(batch, 3, 32, 32).astype(F32)
    y = rs.randint(0, classes, batch).astype(np.int64)
    ones, zeros = (lambda n: np.ones(n, F32)), (lambda n: np.zeros(n, F32))
    params = [(rs.randn(c1, 3, 3, 3) * math.sqrt(2 / 27)).astype(F32), ones(c1), zeros(c1),
              (rs.randn(c2, c1, 3, 3) * math.sqrt(2 / (9 * c1))).astype(F32), ones(c2), zeros(c2),
              _dense(rs, c2 * 8 * 8, classes), zeros(classes)]
    return x, y, params


def transformer_data(batch=8, tokens=128, width=256, hidden=1024):
    rs = _rs()
    x = rs.randn(batch, tokens, width).astype(F32)
    target = rs.randn(batch, tokens, width).astype(F32)
    ones, zeros = np.ones(width, F32), np.zeros(width, F32)
    params = [ones, zeros]                                    # layer norm 1
    for _ in range(4):                                        # q, k, v, out projections
        params += [_dense(rs, width, width), zeros.copy()]
    params += [ones.copy(), zeros.copy(),                     # layer norm 2
               _dense(rs, width, hidden), np.zeros(hidden, F32), _dense(rs, hidden, width), zeros.copy()]
    causal = np.triu(np.ones((tokens, tokens), dtype=bool), k=1)   # True above the diagonal: masked
    return x, target, params, causal


HEADS = 4
GELU_C = math.sqrt(2 / math.pi)   # GELU's tanh form everywhere: MyGrad and HIPS autograd lack erf


# ---- (a) per-op overhead / (f) long chains: tanh(x * 1.0001) ------------------------------
def chain(lib, mod, length=2000, size=16):
    x0 = np.linspace(-1, 1, size)
    if lib in TORCHLIKE:
        T = mod

        def step(mark=None):
            x = T.tensor(x0, requires_grad=True)
            y = x
            for _ in range(length):
                y = T.tanh(y * 1.0001)
            y.sum().backward()
            return x.grad.sum()
    elif lib == "autograd":
        import autograd
        import autograd.numpy as anp

        def f(x):
            for _ in range(length):
                x = anp.tanh(x * 1.0001)
            return anp.sum(x)
        grad = autograd.grad(f)

        def step(mark=None):
            return grad(x0).sum()
    elif lib == "mygrad":
        mg = mod

        def step(mark=None):
            x = mg.tensor(x0)
            y = x
            for _ in range(length):
                y = mg.tanh(y * 1.0001)
            y.sum().backward()
            return x.grad.sum()
    else:   # numpy: the same two ops per link, values kept for a hand-written backward
        def step(mark=None):
            y, saved = x0, []
            for _ in range(length):
                y = np.tanh(y * 1.0001)
                saved.append(y)
            g = np.ones_like(x0)
            for t in reversed(saved):
                g = g * (1 - t * t)
                g = g * 1.0001
            return g.sum()
    return step


def long_chain(lib, mod, length=500_000, size=16):
    """Forward then backward through `length` links (2 nodes each); times backward alone."""
    if lib not in TORCHLIKE:
        raise NotApplicable("ndgrad and torch only")
    T = mod
    x0 = np.linspace(-1, 1, size)

    def step(mark=None):
        x = T.tensor(x0, requires_grad=True)
        start = time.perf_counter()
        y = x
        for _ in range(length):
            y = T.tanh(y * 1.0001)
        loss = y.sum()
        built = time.perf_counter()
        loss.backward()
        done = time.perf_counter()
        return {"check": float(x.grad.sum()), "time": done - built, "forward": built - start}
    return step


# ---- (b) MLP training step ------------------------------------------------------------------
def mlp(lib, mod):
    x_np, y_np, p_np = mlp_data()
    layers = len(p_np) // 2
    if lib in TORCHLIKE:
        T = mod
        F = T.nn.functional
        x, y = T.tensor(x_np), T.tensor(y_np)
        params = [T.tensor(p, requires_grad=True) for p in p_np]

        def loss_fn(x, y):
            h = x
            for i in range(layers):
                h = h @ params[2 * i] + params[2 * i + 1]
                if i < layers - 1:
                    h = T.relu(h)
            return F.cross_entropy(h, y)
        step = _sgd_step(mod, loss_fn, (x, y), params)
    elif lib == "autograd":
        import autograd
        import autograd.numpy as anp
        from autograd.scipy.special import logsumexp
        rows = np.arange(len(y_np))
        params = [p.copy() for p in p_np]

        def loss_fn(params):
            h = x_np
            for i in range(layers):
                h = anp.dot(h, params[2 * i]) + params[2 * i + 1]
                if i < layers - 1:
                    h = anp.maximum(h, F32(0))
            logp = h - logsumexp(h, axis=1, keepdims=True)
            return -anp.mean(logp[rows, y_np])
        value_and_grad = autograd.value_and_grad(loss_fn)

        def step(mark=_noop):   # one call does forward and backward: no "forward" mark
            loss, grads = value_and_grad(params)
            mark("backward")
            for p, g in zip(params, grads):
                p -= LR * g
            return loss
    elif lib == "mygrad":
        mg = mod
        from mygrad.nnet import relu, softmax_crossentropy
        params = [mg.tensor(p) for p in p_np]

        def step(mark=_noop):
            h = x_np
            for i in range(layers):
                h = mg.matmul(h, params[2 * i]) + params[2 * i + 1]
                if i < layers - 1:
                    h = relu(h)
            loss = softmax_crossentropy(h, y_np)
            mark("forward")
            loss.backward()
            mark("backward")
            for p in params:
                p.data -= LR * p.grad
                p.null_grad()
            return loss
    else:   # numpy, forward and backward by hand
        rows = np.arange(len(y_np))
        params = [p.copy() for p in p_np]

        def step(mark=_noop):
            acts = [x_np]
            h = x_np
            for i in range(layers):
                h = h @ params[2 * i] + params[2 * i + 1]
                if i < layers - 1:
                    h = np.maximum(h, 0, out=h)
                    acts.append(h)
            z = h - h.max(axis=1, keepdims=True)
            e = np.exp(z)
            s = e.sum(axis=1, keepdims=True)
            loss = np.log(s[:, 0]).mean() - z[rows, y_np].mean()
            mark("forward")
            g = e / s                    # d loss / d logits = (softmax - onehot) / batch
            g[rows, y_np] -= 1
            g /= len(rows)
            grads = [None] * len(params)
            for i in reversed(range(layers)):
                a = acts[i]
                grads[2 * i], grads[2 * i + 1] = a.T @ g, g.sum(axis=0)
                if i:
                    g = g @ params[2 * i].T
                    g *= a > 0           # ReLU's mask, from its output
            mark("backward")
            for p, d in zip(params, grads):
                p -= LR * d
            return loss
    return step


# ---- (c) CNN training step ------------------------------------------------------------------
def cnn(lib, mod):
    x_np, y_np, p_np = cnn_data()
    if lib in TORCHLIKE:
        T = mod
        F = T.nn.functional
        x, y = T.tensor(x_np), T.tensor(y_np)
        params = [T.tensor(p, requires_grad=True) for p in p_np]

        def loss_fn(x, y):
            h = x
            for w, gamma, beta in (params[0:3], params[3:6]):
                h = F.conv2d(h, w, padding=1)
                h = F.batch_norm(h, None, None, gamma, beta, training=True)
                h = F.max_pool2d(F.relu(h), 2)
            return F.cross_entropy(h.reshape(h.shape[0], -1) @ params[6] + params[7], y)
        step = _sgd_step(mod, loss_fn, (x, y), params)
    elif lib == "mygrad":
        mg = mod
        from mygrad.nnet import batchnorm, conv_nd, max_pool, relu, softmax_crossentropy
        params = [mg.tensor(p) for p in p_np]

        def step(mark=_noop):
            h = x_np
            for w, gamma, beta in (params[0:3], params[3:6]):
                h = conv_nd(h, w, stride=1, padding=1)
                h = batchnorm(h, gamma=gamma, beta=beta, eps=1e-5)
                h = max_pool(relu(h), (2, 2), 2)
            loss = softmax_crossentropy(mg.matmul(h.reshape(h.shape[0], -1), params[6]) + params[7], y_np)
            mark("forward")
            loss.backward()
            mark("backward")
            for p in params:
                p.data -= LR * p.grad
                p.null_grad()
            return loss
    else:
        raise NotApplicable({"autograd": "no convolution primitive",
                             "numpy": "no hand-written CNN"}.get(lib, "not written"))
    return step


# ---- (d) transformer block training step ----------------------------------------------------
def transformer(lib, mod):
    x_np, t_np, p_np, causal = transformer_data()
    B, N, D = x_np.shape
    hd = D // HEADS
    scale = F32(1 / math.sqrt(hd))
    if lib in TORCHLIKE:
        T = mod
        params = [T.tensor(p, requires_grad=True) for p in p_np]
        loss_fn = _transformer_loss(T, params, T.tensor(causal), (B, N, D), float(scale))
        return _sgd_step(mod, loss_fn, (T.tensor(x_np), T.tensor(t_np)), params)
    if lib not in ("autograd", "mygrad"):
        raise NotApplicable("no hand-written transformer")
    # HIPS autograd and MyGrad: NumPy-style functions composed from primitives
    if lib == "autograd":
        import autograd
        import autograd.numpy as xp
        matmul, swap = xp.matmul, xp.swapaxes

        def softmax(a):
            e = xp.exp(a - xp.max(a, axis=-1, keepdims=True))
            return e / xp.sum(e, axis=-1, keepdims=True)
    else:
        import mygrad as xp
        from mygrad.nnet import softmax as _softmax
        matmul, swap = xp.matmul, xp.swapaxes

        def softmax(a):
            return _softmax(a, axis=-1)
    neg = np.where(causal, -np.inf, 0).astype(F32)      # additive causal mask
    # float32 scalars: a Python scalar makes MyGrad upcast to float64
    eps, one, half, c0, c1 = F32(1e-5), F32(1), F32(0.5), F32(GELU_C), F32(0.044715)

    def layer_norm(h, w, b):
        d = h - xp.mean(h, axis=-1, keepdims=True)
        return d / xp.sqrt(xp.mean(d * d, axis=-1, keepdims=True) + eps) * w + b

    def heads(t):
        return xp.transpose(t.reshape(B, N, HEADS, hd), (0, 2, 1, 3))

    def loss_fn(params):
        ln1w, ln1b, wq, bq, wk, bk, wv, bv, wo, bo, ln2w, ln2b, w1, b1, w2, b2 = params
        h = layer_norm(x_np, ln1w, ln1b)
        q, k, v = heads(matmul(h, wq) + bq), heads(matmul(h, wk) + bk), heads(matmul(h, wv) + bv)
        att = softmax(matmul(q, swap(k, -1, -2)) * scale + neg)
        o = xp.transpose(matmul(att, v), (0, 2, 1, 3)).reshape(B, N, D)
        x1 = x_np + matmul(o, wo) + bo
        h = matmul(layer_norm(x1, ln2w, ln2b), w1) + b1
        h = half * h * (one + xp.tanh(c0 * (h + c1 * h * h * h)))
        d = x1 + matmul(h, w2) + b2 - t_np
        return xp.mean(d * d)

    if lib == "autograd":
        params = [p.copy() for p in p_np]
        value_and_grad = autograd.value_and_grad(loss_fn)

        def step(mark=_noop):
            loss, grads = value_and_grad(params)
            mark("backward")
            for p, g in zip(params, grads):
                p -= LR * g
            return loss
    else:
        params = [xp.tensor(p) for p in p_np]

        def step(mark=_noop):
            loss = loss_fn(params)
            mark("forward")
            loss.backward()
            mark("backward")
            for p in params:
                p.data -= LR * p.grad
                p.null_grad()
            return loss
    return step


# ---- (h) jacobian and hessian of small functions --------------------------------------------
def _derivative(lib, mod, which):
    x0 = np.linspace(-1, 1, 8)
    if lib in TORCHLIKE:
        T = mod
        functional = T.autograd.functional
        x = T.tensor(x0)

        def vector_fn(x):
            return (x * x.sum()).tanh() + x.exp() * 0.5

        def scalar_fn(x):
            return (x.tanh() * x.exp()).sum() + x.sum() * (x * x).sum()

        if which == "jacobian":
            return lambda mark=None: functional.jacobian(vector_fn, x).sum()
        return lambda mark=None: functional.hessian(scalar_fn, x).sum()
    if lib == "autograd":
        import autograd
        import autograd.numpy as anp

        def vector_np(x):
            return anp.tanh(x * anp.sum(x)) + anp.exp(x) * 0.5

        def scalar_np(x):
            return anp.sum(anp.tanh(x) * anp.exp(x)) + anp.sum(x) * anp.sum(x * x)

        fn = autograd.jacobian(vector_np) if which == "jacobian" else autograd.hessian(scalar_np)
        return lambda mark=None: fn(x0).sum()
    raise NotApplicable(f"no {which} function")


def jacobian(lib, mod):
    return _derivative(lib, mod, "jacobian")


def hessian(lib, mod):
    return _derivative(lib, mod, "hessian")


# ---- (j) ndgrad.compile against torch eager ---------------------------------------------------
def chain_compiled(lib, mod, length=200, size=16):
    """The (a) chain, shorter, as one function: ndgrad runs it compiled, torch eagerly."""
    if lib not in TORCHLIKE:
        raise NotApplicable("compiled workloads compare ndgrad.compile with torch eager")
    T = mod
    x0 = np.linspace(-1, 1, size)

    def f(x):
        for _ in range(length):
            x = T.tanh(x * 1.0001)
        return x.sum()
    f = T.compile(f) if lib == "ndgrad" else f

    def step(mark=None):
        x = T.tensor(x0, requires_grad=True)
        f(x).backward()
        return x.grad.sum()
    return step


def _sgd_step(mod, loss_fn, inputs, params):
    """An SGD step around loss_fn(*inputs): forward, backward, update."""
    T = mod

    def step(mark=_noop):
        loss = loss_fn(*inputs)
        mark("forward")
        loss.backward()
        mark("backward")
        with T.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return loss
    return step


def _compiled_sgd_step(lib, mod, loss_fn, inputs, params):
    """_sgd_step, with loss_fn (the model and the loss) compiled by ndgrad; the backward call and the
    update run eagerly in both libraries."""
    return _sgd_step(mod, mod.compile(loss_fn) if lib == "ndgrad" else loss_fn, inputs, params)


def _mlp_compiled(lib, mod, batch, sizes):
    if lib not in TORCHLIKE:
        raise NotApplicable("compiled workloads compare ndgrad.compile with torch eager")
    T = mod
    F = T.nn.functional
    x_np, y_np, p_np = mlp_data(batch, sizes)
    params = [T.tensor(p, requires_grad=True) for p in p_np]
    layers = len(params) // 2

    def loss_fn(x, y):
        h = x
        for i in range(layers):
            h = h @ params[2 * i] + params[2 * i + 1]
            if i < layers - 1:
                h = T.relu(h)
        return F.cross_entropy(h, y)
    return _compiled_sgd_step(lib, mod, loss_fn, (T.tensor(x_np), T.tensor(y_np)), params)


def mlp_small_compiled(lib, mod, batch=64, sizes=(64, 128, 128, 10)):
    """A small MLP's SGD step (forward, loss, backward, update): ndgrad compiles the model and loss."""
    return _mlp_compiled(lib, mod, batch, sizes)


def mlp_compiled(lib, mod):
    """The (b) MLP step (784-1024-1024-10, batch 256, f32), the model and loss compiled by ndgrad."""
    return _mlp_compiled(lib, mod, 256, (784, 1024, 1024, 10))


def _transformer_loss(T, params, mask, shape, scale):
    """The (d) block's loss on (x, target) for torch-like libraries: pre-norm causal attention and a
    GELU(tanh) MLP, both residual, then the mean squared error."""
    F = T.nn.functional
    B, N, D = shape
    hd = D // HEADS
    ln1w, ln1b, wq, bq, wk, bk, wv, bv, wo, bo, ln2w, ln2b, w1, b1, w2, b2 = params

    def split_heads(t):
        return t.reshape(B, N, HEADS, hd).transpose(1, 2)

    def loss_fn(x, target):
        h = F.layer_norm(x, (D,), ln1w, ln1b)
        q, k, v = split_heads(h @ wq + bq), split_heads(h @ wk + bk), split_heads(h @ wv + bv)
        att = F.softmax((q @ k.transpose(-2, -1) * scale).masked_fill(mask, float("-inf")), dim=-1)
        x1 = x + (att @ v).transpose(1, 2).reshape(B, N, D) @ wo + bo
        h = F.layer_norm(x1, (D,), ln2w, ln2b)
        d = x1 + F.gelu(h @ w1 + b1, approximate="tanh") @ w2 + b2 - target
        return (d * d).mean()
    return loss_fn


def transformer_compiled(lib, mod):
    """The (d) transformer block step, the block and loss compiled by ndgrad (the same ops as (d))."""
    if lib not in TORCHLIKE:
        raise NotApplicable("compiled workloads compare ndgrad.compile with torch eager")
    x_np, t_np, p_np, causal = transformer_data()
    T = mod
    params = [T.tensor(p, requires_grad=True) for p in p_np]
    loss_fn = _transformer_loss(T, params, T.tensor(causal), x_np.shape, float(F32(1 / math.sqrt(x_np.shape[2] // HEADS))))
    return _compiled_sgd_step(lib, mod, loss_fn, (T.tensor(x_np), T.tensor(t_np)), params)


# ---- (k) small MNIST-style CNN and bidirectional LSTM training steps (torch-like libraries) ----
def cnn_small(lib, mod, batch=64, classes=10):
    """conv(1->8, 3x3)-relu-pool, conv(8->16, 3x3)-relu-pool, linear: many small ops per step."""
    if lib not in TORCHLIKE:
        raise NotApplicable("torch-like API only")
    rs = _rs()
    x_np = rs.randn(batch, 1, 28, 28).astype(F32)
    y_np = rs.randint(0, classes, batch).astype(np.int64)
    p_np = [(rs.randn(8, 1, 3, 3) * math.sqrt(2 / 9)).astype(F32), np.zeros(8, F32),
            (rs.randn(16, 8, 3, 3) * math.sqrt(2 / 72)).astype(F32), np.zeros(16, F32),
            _dense(rs, 16 * 7 * 7, classes), np.zeros(classes, F32)]
    T = mod
    F = T.nn.functional
    x, y = T.tensor(x_np), T.tensor(y_np)
    params = [T.tensor(p, requires_grad=True) for p in p_np]

    def loss_fn(x, y):
        h = F.max_pool2d(F.relu(F.conv2d(x, params[0], params[1], padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, params[2], params[3], padding=1)), 2)
        return F.cross_entropy(h.reshape(batch, -1) @ params[4] + params[5], y)
    return _sgd_step(mod, loss_fn, (x, y), params)


def lstm(lib, mod, batch=16, steps=32, features=32, hidden=64, classes=10):
    """A one-layer bidirectional nn.LSTM over a 32-step sequence, its last outputs into a linear layer."""
    if lib not in TORCHLIKE:
        raise NotApplicable("torch-like API only")
    rs = _rs()
    x_np = rs.randn(batch, steps, features).astype(F32)
    y_np = rs.randint(0, classes, batch).astype(np.int64)
    T = mod
    net = T.nn.LSTM(features, hidden, batch_first=True, bidirectional=True)
    scale = 1 / math.sqrt(hidden)
    with T.no_grad():   # the same weights in every library (the modules' own init draws differ)
        for _, p in sorted(net.named_parameters()):
            p.copy_(T.tensor(rs.uniform(-scale, scale, tuple(p.shape)).astype(F32)))
    head_w = T.tensor(_dense(rs, 2 * hidden, classes), requires_grad=True)
    head_b = T.tensor(np.zeros(classes, F32), requires_grad=True)
    params = list(net.parameters()) + [head_w, head_b]
    x, y = T.tensor(x_np), T.tensor(y_np)

    def loss_fn(x, y):
        out, _ = net(x)
        return T.nn.functional.cross_entropy(out[:, -1] @ head_w + head_b, y)
    return _sgd_step(mod, loss_fn, (x, y), params)


def lstm_cell(lib, mod, batch=97, steps=40, hidden=51):
    """pytorch/examples' time-series predictor: two nn.LSTMCell (1 -> 51 -> 51) and a linear layer stepped
    over a float64 sequence in Python, mean squared error against the next values (an LSTM cell's dozen
    small ops and products per step, where the (k) LSTM is one fused layer)."""
    if lib not in TORCHLIKE:
        raise NotApplicable("torch-like API only")
    T = mod
    rs = _rs()
    x = T.tensor(np.sin(rs.uniform(0, 20, (batch, 1)) + np.arange(steps + 1) / 20.0))
    inputs, target = x[:, :-1], x[:, 1:]
    cell1, cell2, head = T.nn.LSTMCell(1, hidden).double(), T.nn.LSTMCell(hidden, hidden).double(), \
        T.nn.Linear(hidden, 1).double()
    params = [p for m in (cell1, cell2, head) for p in m.parameters()]
    scale = 1 / math.sqrt(hidden)
    with T.no_grad():   # the same weights in every library (the modules' own init draws differ)
        for p in params:
            p.copy_(T.tensor(rs.uniform(-scale, scale, tuple(p.shape))))

    def loss_fn(inputs, target):
        h1 = c1 = h2 = c2 = T.zeros(batch, hidden, dtype=T.float64)
        outputs = []
        for x_t in inputs.split(1, dim=1):
            h1, c1 = cell1(x_t, (h1, c1))
            h2, c2 = cell2(h1, (h2, c2))
            outputs.append(head(h2))
        return T.nn.functional.mse_loss(T.cat(outputs, dim=1), target)
    return _sgd_step(mod, loss_fn, (inputs, target), params)


# ---- (i) torch.func transforms: nested Jacobians, Hessians, per-sample gradients -----------------
FUNC_WORKLOADS = ("jacfwd_jacfwd", "jacrev_jacrev", "func_hessian", "per_sample_grads")


def _func(lib, mod, which, size=16, batch=64):
    """The tutorial's model tanh(W x + b) (W: size x size), through torch.func's transforms."""
    if lib not in TORCHLIKE:
        raise NotApplicable("no torch.func")
    rs = _rs()
    W, b, x = (mod.tensor(a.astype(np.float32)) for a in (rs.randn(size, size), rs.randn(size), rs.randn(size)))
    xs = mod.tensor(rs.randn(batch, size).astype(np.float32))
    f, F = mod.func, mod.nn.functional

    def predict(W, b, x):
        return F.linear(x, W, b).tanh()

    def loss(W, b, x):
        return predict(W, b, x).pow(2).sum()

    fn = {"jacfwd_jacfwd": lambda: f.jacfwd(f.jacfwd(predict, argnums=2), argnums=2)(W, b, x),
          "jacrev_jacrev": lambda: f.jacrev(f.jacrev(predict, argnums=2), argnums=2)(W, b, x),
          "func_hessian": lambda: f.hessian(predict, argnums=2)(W, b, x),
          "per_sample_grads": lambda: sum(g.sum() for g in f.vmap(f.grad(loss, argnums=(0, 1)),
                                                                   in_dims=(None, None, 0))(W, b, xs))}[which]
    return lambda mark=None: fn().sum() if which != "per_sample_grads" else fn()


def resnet(lib, mod, batch=64, classes=10):
    """ResNet-20 (CIFAR-style: 3 stages of 3 basic blocks, 16-32-64 channels, batch norm, 1x1 strided
    shortcuts) on a 64x3x32x32 batch: the everyday CNN of tutorials."""
    if lib not in TORCHLIKE:
        raise NotApplicable("torch-like API only")
    T = mod
    nn, F = T.nn, T.nn.functional

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
            self.c2, self.b2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
            self.short = None if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
            return F.relu(y + (x if self.short is None else self.short(x)))

    widths = [16] * 4 + [32] * 3 + [64] * 3
    net = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                        *[Block(a, b, 2 if b != a else 1) for a, b in zip(widths, widths[1:])],
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, classes))
    rs = _rs()
    with T.no_grad():   # the same weights in every library (the modules' own init draws differ)
        for name, p in sorted(net.named_parameters()):
            shape = tuple(p.shape)
            if len(shape) > 1:   # He initialisation; batch norm's scale 1, every shift and bias 0
                values = rs.randn(*shape) * math.sqrt(2 / math.prod(shape[1:]))
            else:
                values = np.ones(shape) if name.endswith("weight") else np.zeros(shape)
            p.copy_(T.tensor(values.astype(F32)))
    x = T.tensor(rs.randn(batch, 3, 32, 32).astype(F32))
    y = T.tensor(rs.randint(0, classes, batch).astype(np.int64))
    return _sgd_step(mod, lambda x, y: F.cross_entropy(net(x), y), (x, y), list(net.parameters()))


FACTORIES = {"chain": chain, "long_chain": long_chain, "mlp": mlp, "cnn": cnn,
             "transformer": transformer, "jacobian": jacobian, "hessian": hessian,
             "chain_compiled": chain_compiled, "mlp_small_compiled": mlp_small_compiled,
             "mlp_compiled": mlp_compiled, "transformer_compiled": transformer_compiled,
             "cnn_small": cnn_small, "lstm": lstm, "lstm_cell": lstm_cell, "resnet": resnet}
FACTORIES.update({k: (lambda which: lambda lib, mod: _func(lib, mod, which))(k) for k in FUNC_WORKLOADS})
