"""Random autograd programs, run on ndgrad and on torch and compared (property-based, hypothesis).

A program is a list of steps, each a line of torch code written against a library `T`; the same
lines run with `T = ndgrad` and with `T = torch`. It starts from float64 leaves made by
`mk(T, shape, seed)` (a standard normal array from NumPy's generator with that seed, as a leaf that
requires grad), applies 3 to 25 ops drawn from the common families (pointwise unary and binary with
broadcasting, reductions, views and shape ops, in-place ops on intermediates and on views, matmul,
softmax, where/clamp, indexing, cat/stack, hooks, retain_grad), sometimes on 0-size tensors, and ends
with a backward: a plain one, one with retain_graph run twice, or a grad with create_graph=True
followed by a backward through the first derivatives. Both runs must agree on every step's value
(float64, tight tolerances), requires_grad and grad_fn name, the final values of all variables, the
grad_fn names along the output's graph, the leaves' (and retained) gradients, and the exception: both
raise at the same step with the same type, or neither raises.

The generator runs each step on torch as it draws it, to know the shapes it may draw the next step
from; a step torch refuses ends the program there (ndgrad must refuse it with the same type).
On failure hypothesis shrinks to a minimal program and prints it as code (`T` is torch or ndgrad).

Profiles (environment variable NDGRAD_FUZZ):
- unset: the CI profile, a fixed seed (derandomize) and 300 programs, about half a minute on 2 cores;
- `NDGRAD_FUZZ=long`: 5,000 random programs (new ones each run), on demand:
  `NDGRAD_FUZZ=long python -m pytest -q tests/test_fuzz.py`.

KNOWN_DIFFERENCES lists the constructs where ndgrad deliberately differs from torch (or does not
yet match it), with the reason; the generator does not draw them (the place that avoids one names it).
"""
import os
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import ndgrad  # noqa: E402

LONG = os.environ.get("NDGRAD_FUZZ") == "long"
PROFILE = settings(
    max_examples=5000 if LONG else 300, derandomize=not LONG, deadline=None, database=None,
    suppress_health_check=list(HealthCheck), print_blob=False)

# construct -> why it is not drawn (ndgrad differs from torch there on purpose, or not yet)
KNOWN_DIFFERENCES = {
    "index_select with an index out of range":
        "torch reports it from whichever internal kernel the layout picks (IndexError 'index out of range in "
        "self', or RuntimeError 'INDICES element is out of DATA bounds' for negative indices into a "
        "multi-dim tensor, 'self indexing axis dim should be positive' for an empty dim); ndgrad always "
        "raises the IndexError",
    "in-place op with a tensor operand that overlaps or does not broadcast to the target":
        "not yet matched: ndgrad misses torch's partial-overlap refusal (some elements of the input and "
        "the written-to tensor refer to a single memory location) and raises NumPy's ValueError where "
        "torch says the output shape doesn't match the broadcast shape; in-place ops take fresh operands",
    "a second backward through a freed graph (finale 'twice')":
        "not yet matched: in some graphs ndgrad runs the second backward where torch reports that the "
        "saved values were freed; the finale is not drawn",
    "grad_fn names inside create_graph gradients":
        "not compared: torch builds cat/stack/split gradients from narrow/select (SliceBackward0, "
        "SelectBackward0) where ndgrad uses split/unbind (SplitWithSizesBackward0, UnbindBackward0); the "
        "values and the second derivatives are compared",
    "an index out of range into a tensor with no elements":
        "torch does not check the indices of x[index] (and take) when x has no elements and returns an "
        "empty result; ndgrad raises the IndexError it raises for a non-empty tensor",
    "sin or cos of a value beyond 1e6 in magnitude":
        "ill-conditioned: NumPy's and torch's exp, sinh, ... may round the input 1 ulp apart, which at 4e21 "
        "changes its sine entirely",
    "matmul of a batch (3 or more dims) with a size-1 dim before the last":
        "not yet matched: ndgrad's unsqueeze (and x[None]) gives the new dim NumPy's stride 0 where torch gives "
        "size * stride, so for x = y[None] torch folds the batch into one mm (MmBackward0) and ndgrad runs a "
        "bmm (BmmBackward0, ExpandBackward0): same values, other grad_fn names",
    "register_hook on a view":
        "torch 2.13 crashes (segmentation fault) registering a hook on a view whose base was modified in "
        "place through another view (v = b.view(-1); b[None].mul_(3); v.register_hook(f)); nothing to compare",
}


def mk(T, shape, seed, grad=True):
    """A float64 tensor of standard normal values, the same in every library (a leaf if grad)."""
    return T.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=T.float64,
                    requires_grad=grad)


# ---- running a program ------------------------------------------------------------------------------

def attr(v, name):
    """v.name, or None where asking raises (a multi-output view whose base changed in place)."""
    try:
        return getattr(v, name)
    except Exception:  # noqa: BLE001
        return None


def snapshot(v):
    if not hasattr(v, "detach"):   # (grad_fn itself may raise: a stale multi-output view)
        return repr(v)
    try:
        name = type(v.grad_fn).__name__ if v.grad_fn is not None else None
    except Exception as e:  # noqa: BLE001 - a view whose base changed may refuse to give its grad_fn
        name = f"raises {type(e).__name__}"
    return np.array(v.detach().numpy(), copy=True), v.requires_grad, name


def graph_names(root, limit=200):
    """The grad_fn names reachable from root, breadth first (the shape of the recorded graph)."""
    names, seen, todo = [], set(), [root]
    while todo and len(names) < limit:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        todo.extend(fn for fn, _ in node.next_functions)
    return names


def run(program, T):
    """Run the program's lines with library T: what it computed, step by step, and how it ended."""
    env = {"T": T, "mk": mk}
    out = {"steps": [], "error": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (code, result) in enumerate(program["steps"]):
            try:
                exec(code, env)  # the program is our own generated torch code
                out["steps"].append(snapshot(env[result]) if result else None)
            except Exception as e:  # noqa: BLE001 - the exception type is compared across libraries
                out["error"] = (i, type(e).__name__, str(e))
                break
        names = [n for n in program["watch"] if n in env]
        out["final"] = {n: snapshot(env[n]) for n in names}
        out["grads"] = {n: None if attr(env[n], "grad") is None else snapshot(env[n].grad) for n in names
                        if attr(env[n], "is_leaf") or attr(env[n], "retains_grad")}
        if attr(env.get("out"), "grad_fn") is not None:
            out["graph"] = graph_names(env["out"].grad_fn)
        if "gs" in env:   # KNOWN_DIFFERENCES: grad_fn names inside create_graph gradients
            out["gs"] = [None if g is None else snapshot(g)[:2] for g in env["gs"]]
    return out


def listing(program):
    return "\n".join(code for code, _ in program["steps"])


def close(a, b):
    if isinstance(a, tuple):
        if not isinstance(b, tuple) or a[0].shape != b[0].shape or a[0].dtype != b[0].dtype or a[1:] != b[1:]:
            return False
        return np.allclose(a[0], b[0], rtol=1e-6, atol=1e-9, equal_nan=True)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    return a == b


def difference(ours, theirs):
    """The first thing on which the two runs differ (None if they agree)."""
    if (ours["error"] is None) != (theirs["error"] is None) or (
            ours["error"] and ours["error"][:2] != theirs["error"][:2]):
        return f"exception: ndgrad {ours['error']} torch {theirs['error']}"
    for i, (a, b) in enumerate(zip(ours["steps"], theirs["steps"])):
        if not close(a, b):
            return f"step {i}: ndgrad {a} torch {b}"
    for key in ("final", "grads", "graph", "gs"):
        if not close(ours.get(key), theirs.get(key)):
            return f"{key}: ndgrad {ours.get(key)} torch {theirs.get(key)}"
    return None


# ---- drawing a program ------------------------------------------------------------------------------

SIZES = st.sampled_from([2, 3, 1, 4, 0])
UNARY = ["exp", "tanh", "sigmoid", "sin", "cos", "abs", "neg", "relu", "square", "sqrt", "log",
         "reciprocal", "erf", "atan", "sinh", "log1p", "expm1", "rsqrt", "sign", "floor", "trunc"]
INPLACE_UNARY = ["exp_", "tanh_", "sigmoid_", "relu_", "neg_", "sin_", "abs_", "zero_", "sqrt_"]
BINARY = ["{x} + {y}", "{x} - {y}", "{x} * {y}", "{x} / {y}", "T.maximum({x}, {y})",
          "T.minimum({x}, {y})", "T.atan2({x}, {y})", "T.add({x}, {y}, alpha=2)", "{x}.pow({y})",
          "T.where({x} > {y}, {x}, {y})", "T.hypot({x}, {y})", "{x}.lerp({y}, 0.25)"]
SCALAR = ["{x} * 2.5", "{x} + 1", "1 - {x}", "{x} / 3", "{x} ** 2", "{x} ** 3", "{x} ** 0.5",
          "{x} ** -1", "{x}.pow(0)", "{x}.clamp(min=-0.5, max=0.5)", "{x}.clamp(min=0.1)",
          "T.clamp({x}, max=0)", "T.where({x} > 0, {x}, 0.5)", "{x}.masked_fill({x} < 0, 0.5)",
          "2 ** {x}"]
REDUCE_DIM = ["sum", "mean", "prod", "amax", "amin", "logsumexp", "var", "std", "norm", "nansum"]
REDUCE_ALL = ["sum", "mean", "prod", "amax", "max", "min", "var", "std", "norm", "logsumexp"]


class Gen:
    """Draws steps, running each on torch to learn what the next one may use."""

    def __init__(self, draw):
        self.draw, self.env = draw, {"T": torch, "mk": mk}
        self.steps, self.watch, self.seed, self.failed = [], [], 0, False

    def add(self, code, result):
        self.steps.append((code, result))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(code, self.env)
        except Exception:  # noqa: BLE001 - torch refuses the step: the program ends with it
            self.failed = True

    def fresh(self, shape, grad=None):
        """A new mk(...) expression (a leaf when grad)."""
        self.seed += 1
        if grad is None:
            grad = self.draw(st.booleans())
        return f"mk(T, {tuple(shape)}, {self.seed}{'' if grad else ', grad=False'})"

    def new_var(self):
        name = f"v{len(self.watch)}"
        self.watch.append(name)
        return name

    def pick(self, where=lambda t: True):
        names = [n for n in self.watch if hasattr(self.env[n], "shape") and where(self.env[n])]
        if not names:
            return None
        # recent values are drawn most: shrinking goes toward the last one
        return names[len(names) - 1 - self.draw(st.integers(0, len(names) - 1))]

    def dim(self, t):
        n = max(t.dim(), 1)
        return self.draw(st.integers(-n, n - 1))

    def other(self, x):
        """A second operand broadcastable with x: an existing value or a fresh tensor."""
        shape = tuple(self.env[x].shape)
        same = self.pick(lambda t: _broadcasts(tuple(t.shape), shape))
        if same is not None and self.draw(st.booleans()):
            return same
        k = self.draw(st.integers(0, len(shape)))
        sub = [1 if self.draw(st.integers(0, 3)) == 0 else s for s in shape[len(shape) - k:]]
        return self.fresh(sub)


def _huge(t):
    values = t.detach().abs().numpy()
    return bool(values[np.isfinite(values)].max(initial=0) > 1e6)


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _index_list(draw, size, bad=True):
    """A list of indices into a dim of this size (rarely one out of range: both must refuse it)."""
    hi = size if not bad or draw(st.integers(0, 15)) else size + 2
    if hi == 0:
        return []
    return draw(st.lists(st.integers(-hi, hi - 1), min_size=0, max_size=4))


def step_op(g):
    """One op on an existing value; returns (code, result name) or None when it does not apply."""
    draw = g.draw
    x = g.pick()
    t = g.env[x]
    shape, nd = tuple(t.shape), t.dim()
    family = draw(st.sampled_from(
        ["unary", "scalar", "binary", "reduce", "view", "view", "inplace", "inplace", "matmul",
         "softmax", "index", "cat", "hook"]))
    out = f"v{len(g.watch)}"
    code = None
    if family == "unary":
        name = draw(st.sampled_from(UNARY))
        if name in ("sin", "cos") and _huge(t):   # KNOWN_DIFFERENCES: sin or cos beyond 1e6
            return None
        code = f"{out} = {x}.{name}()"
    elif family == "scalar":
        code = f"{out} = " + draw(st.sampled_from(SCALAR)).format(x=x)
    elif family == "binary":
        y = g.other(x)
        a, b = (x, y) if draw(st.booleans()) else (y, x)
        code = f"{out} = " + draw(st.sampled_from(BINARY)).format(x=a, y=b)
    elif family == "reduce":
        if draw(st.booleans()):
            code = f"{out} = {x}.{draw(st.sampled_from(REDUCE_ALL))}()"
        else:
            name = draw(st.sampled_from(REDUCE_DIM + ["max", "min", "cumsum", "cumprod"]))
            d, keep = g.dim(t), draw(st.booleans())
            if name in ("max", "min"):
                code = f"{out} = {x}.{name}({d}, keepdim={keep}).values"
            elif name in ("cumsum", "cumprod"):
                code = f"{out} = {x}.{name}({d})"
            elif name == "norm":
                code = f"{out} = {x}.norm(dim={d}, keepdim={keep})"
            else:
                code = f"{out} = {x}.{name}({d}, keepdim={keep})"
    elif family == "view":
        code = f"{out} = {x}" + view_op(g, t, shape, nd)
    elif family == "inplace":
        return inplace_op(g, x, t, shape, nd)
    elif family == "matmul":
        k = draw(st.sampled_from([2, 1, 3, 0]))
        kind = draw(st.integers(0, 3))
        if nd == 0 or nd >= 3 and 1 in shape[:-1]:   # KNOWN_DIFFERENCES: matmul of a batch with a size-1 dim
            return None
        if kind == 0:
            code = f"{out} = {x} @ {g.fresh(shape[-1:] + (k,))}"
        elif kind == 1:
            code = f"{out} = T.matmul({x}, {g.fresh(shape[-1:])})"
        elif kind == 2 and nd >= 2:
            code = f"{out} = {g.fresh((k, shape[-2]))} @ {x}"
        elif kind == 3 and nd == 2:
            y = g.other(x) if draw(st.booleans()) else g.fresh((shape[1], k))
            code = f"{out} = T.mm({x}, {y})"
        else:
            return None
    elif family == "softmax":
        fn = draw(st.sampled_from(["{x}.softmax({d})", "T.log_softmax({x}, {d})",
                                   "T.nn.functional.softmax({x}, dim={d})"]))
        code = f"{out} = " + fn.format(x=x, d=g.dim(t))
    elif family == "index":
        code = f"{out} = {x}" + index_op(g, x, t, shape, nd)
    elif family == "cat":
        d = g.dim(t)
        if draw(st.booleans()) and nd:
            s = list(shape)
            s[d] = draw(SIZES)
            code = f"{out} = T.cat([{x}, {g.fresh(s)}], dim={d})"
        else:
            y = x if draw(st.booleans()) else g.fresh(shape)
            d = draw(st.integers(-nd - 1, nd))
            code = f"{out} = T.stack([{x}, {y}], dim={d})"
    elif family == "hook":
        kind = draw(st.sampled_from(["hook", "hook", "retain"]))
        if kind == "retain" or attr(t, "_base") is not None:   # KNOWN_DIFFERENCES: hook on a view
            return f"{x}.retain_grad()", None
        fn = draw(st.sampled_from(["g * 2", "g + 1", "None", "g.clamp(-1, 1)", "-g"]))
        return f"_ = {x}.register_hook(lambda g: {fn})", None
    return code and (code, out)


def view_op(g, t, shape, nd):
    draw = g.draw
    kind = draw(st.sampled_from(
        ["view-1", "reshape", "transpose", "permute", "slice", "narrow", "select", "expand",
         "squeeze", "unsqueeze", "flatten", "flip", "t", "unbind", "split", "chunk", "movedim",
         "diagonal", "clone", "contiguous", "mT", "detach", "view_as"]))
    d = g.dim(t)
    if kind == "view-1":
        return ".view(-1)"
    if kind == "reshape":
        if nd == 0:
            return ".reshape(1, 1)"
        return f".reshape({shape[0]}, -1)" if draw(st.booleans()) else f".reshape(-1, {shape[-1]})"
    if kind == "transpose":
        return f".transpose({d}, {g.dim(t)})"
    if kind == "permute":
        return f".permute({tuple(draw(st.permutations(range(nd))))})"
    if kind == "slice" and nd:
        a, b, s = draw(st.integers(-3, 3)), draw(st.integers(-3, 4)), draw(st.integers(1, 2))
        lead = ":, " * draw(st.integers(0, nd - 1))
        return f"[{lead}{a}:{b}:{s}]"
    if kind == "narrow" and nd:
        return f".narrow({d}, {draw(st.integers(0, 2))}, {draw(st.integers(0, 2))})"
    if kind == "select" and nd:
        return f".select({d}, {draw(st.integers(-2, 2))})"
    if kind == "expand":
        new = [s if s != 1 else draw(st.sampled_from([1, 3])) for s in shape]
        return f".expand({', '.join(map(str, [draw(st.sampled_from([2, 0]))] + new))})"
    if kind == "squeeze":
        return ".squeeze()" if draw(st.booleans()) else f".squeeze({d})"
    if kind == "unsqueeze":
        return f".unsqueeze({draw(st.integers(-nd - 1, nd))})"
    if kind == "flatten":
        return ".flatten()"
    if kind == "flip":
        return f".flip({d})"
    if kind == "t" and nd <= 2:
        return ".t()"
    if kind in ("unbind", "split", "chunk") and nd:
        i = draw(st.integers(0, 1))
        return {"unbind": f".unbind({d})[{i}]", "split": f".split(1, {d})[{i}]",
                "chunk": f".chunk(2, {d})[0]"}[kind]
    if kind == "movedim":
        return f".movedim({d}, {g.dim(t)})"
    if kind == "diagonal" and nd >= 2:
        return f".diagonal({draw(st.integers(-1, 1))})"
    if kind == "mT" and nd >= 2:
        return ".mT"
    if kind in ("clone", "contiguous", "detach"):
        return f".{kind}()"
    if kind == "view_as":
        return f".view({', '.join(map(str, shape))})" if nd else ".view(())"
    return ".view(-1)"


def index_op(g, x, t, shape, nd):
    draw = g.draw
    kind = draw(st.sampled_from(["list", "mask", "index_select", "ellipsis", "none", "second",
                                 "gather", "take"]))
    if nd == 0 or kind == "none":
        return "[None]"
    d = g.dim(t)
    bad = t.numel() > 0   # KNOWN_DIFFERENCES: an index out of range into a tensor with no elements
    if kind == "list":
        return f"[T.tensor({_index_list(draw, shape[0], bad)}, dtype=T.long)]"
    if kind == "mask":
        return f"[{x} > 0]"
    if kind == "index_select":
        # KNOWN_DIFFERENCES: index_select with an index out of range (negative ones included)
        index = [i % shape[d] for i in _index_list(draw, shape[d], False)]
        return f".index_select({d}, T.tensor({index}, dtype=T.long))"
    if kind == "ellipsis":
        return f"[..., {draw(st.integers(-1, 1))}]"
    if kind == "second" and nd >= 2:
        return f"[:, T.tensor({_index_list(draw, shape[1], bad)}, dtype=T.long)]"
    if kind == "gather":
        idx = np.random.default_rng(g.seed).integers(0, max(shape[d], 1), size=shape)
        return f".gather({d}, T.tensor({idx.tolist()}, dtype=T.long).reshape({shape}))"
    return f".take(T.tensor({_index_list(draw, int(np.prod(shape)), bad)}, dtype=T.long))"


def inplace_op(g, x, t, shape, nd):
    """An in-place op: on an intermediate, on a view of one, or on a leaf under no_grad."""
    draw = g.draw
    if attr(t, "is_leaf") and t.requires_grad and draw(st.integers(0, 3)):
        return f"with T.no_grad():\n    {x}.mul_(0.5)", x
    kind = draw(st.sampled_from(["unary", "scalar", "other", "view", "setitem", "masked"]))
    if kind == "unary":
        name = draw(st.sampled_from(INPLACE_UNARY))
        if name == "sin_" and _huge(t):   # KNOWN_DIFFERENCES: sin or cos beyond 1e6
            return None
        return f"{x}.{name}()", x
    if kind == "scalar":
        op = draw(st.sampled_from(["add_(1)", "mul_(2)", "div_(4)", "pow_(2)",
                                   "clamp_(min=-0.5)", "sub_(0.5, alpha=2)"]))
        return f"{x}.{op}", x
    if kind == "other":   # KNOWN_DIFFERENCES: a fresh operand, broadcasting to x
        k = draw(st.integers(0, len(shape)))
        y = g.fresh([1 if draw(st.integers(0, 3)) == 0 else n for n in shape[len(shape) - k:]])
        return f"{x}.{draw(st.sampled_from(['add_', 'mul_', 'copy_', 'sub_', 'div_']))}({y})", x
    if kind == "view":
        view = view_op(g, t, shape, nd)
        op = draw(st.sampled_from(["mul_(2)", "add_(1)", "exp_()", "zero_()", "tanh_()"]))
        return f"{x}{view}.{op}", x
    if kind == "setitem" and nd:
        value = draw(st.sampled_from(["0.0", "1.5", g.fresh(shape[1:])]))
        return f"{x}[{draw(st.integers(-1, 1))}] = {value}", x
    return f"{x}.masked_fill_({x} > 0.5, 0)", x


def finale(g):
    """The backward that ends a program."""
    draw = g.draw
    out = g.pick(lambda t: t.requires_grad)
    if out is None:
        out = g.watch[-1]
    t = g.env[out]
    leaves = [n for n in g.watch if attr(g.env[n], "is_leaf") and g.env[n].requires_grad]
    g.steps.append((f"out = {out}", "out"))
    # KNOWN_DIFFERENCES: no "twice" (a second backward through a freed graph)
    kind = draw(st.sampled_from(["sum", "gradient", "retain", "double", "double_grad"]))
    if kind == "sum":
        g.steps.append(("out.sum().backward()", None))
    elif kind == "gradient":
        g.steps.append((f"out.backward({g.fresh(tuple(t.shape), grad=False)})", None))
    elif kind == "retain":
        g.steps.append(("loss = (out * out).sum()\nloss.backward(retain_graph=True)", None))
        g.steps.append(("loss.backward()", None))
    else:
        inputs = "[" + ", ".join(leaves) + "]"
        g.steps.append((f"gs = T.autograd.grad((out * out).sum(), {inputs}, create_graph=True, "
                        "allow_unused=True)", None))
        second = "sum(((g * g).sum() for g in gs if g is not None), T.zeros((), dtype=T.float64))"
        if kind == "double":
            g.steps.append((f"loss2 = {second}\nif loss2.requires_grad:\n    loss2.backward()",
                            None))
        else:
            g.steps.append((f"loss2 = {second}\nif loss2.requires_grad:\n"
                            f"    gs = T.autograd.grad(loss2, {inputs}, allow_unused=True)", None))


@st.composite
def programs(draw):
    g = Gen(draw)
    for _ in range(draw(st.integers(1, 3))):
        shape = draw(st.lists(SIZES, min_size=0, max_size=3))
        g.add(f"{g.new_var()} = {g.fresh(shape, grad=True)}", g.watch[-1])
    n = draw(st.integers(3, 25))
    while len(g.steps) < n + 3 and not g.failed:
        step = step_op(g)
        if step is None:
            continue
        if step[1] is not None and step[1] not in g.watch:
            g.watch.append(step[1])
        g.add(*step)
    if not g.failed:
        finale(g)
    return {"steps": g.steps, "watch": list(g.watch)}


@PROFILE
@given(programs())
def test_random_programs_agree_with_torch(program):
    ours, theirs = run(program, ndgrad), run(program, torch)
    diff = difference(ours, theirs)
    assert diff is None, f"{diff}\nprogram (T is ndgrad or torch):\n{listing(program)}"
