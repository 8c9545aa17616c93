"""The op registry: sample calls per op, written once against the torch API.

Each family module (pointwise.py, reduction.py, ...) defines `OPS`, a list of `OpInfo`. A call
is a function `(T, *inputs)` where `T` is the library (ndgrad or torch), so the same sample runs
on both. Inputs are described, not built: `S(2, 3)` is a float64 tensor that requires grad,
`I(4, high=3)` an int64 tensor, anything else is passed as it is. tests/test_ops.py turns every
entry into gradcheck, gradgradcheck, grad_fn-name and torch-parity tests.
"""
import importlib

import numpy as np


class S:
    """A float64 (or `dtype`) random tensor of `shape` with values in [low, high)."""

    def __init__(self, *shape, low=-1.0, high=1.0, requires_grad=True, dtype="float64", fill=None):
        self.shape, self.low, self.high = shape, low, high
        self.requires_grad, self.dtype, self.fill = requires_grad, dtype, fill

    def array(self, rng):
        if self.fill is not None:
            return np.array(self.fill, dtype=self.dtype).reshape(self.shape) if self.shape else \
                np.array(self.fill, dtype=self.dtype)
        a = rng.uniform(self.low, self.high, size=self.shape)
        if self.dtype.startswith("complex"):
            a = a + 1j * rng.uniform(self.low, self.high, size=self.shape)
        return np.asarray(a, dtype=self.dtype)


class I:
    """An integer tensor of `shape` with values in [low, high) (indices, labels), or given `values`."""

    def __init__(self, *shape, high=2, low=0, values=None, dtype="int64"):
        self.shape, self.high, self.low, self.values, self.dtype = shape, high, low, values, dtype

    def array(self, rng):
        if self.values is not None:
            return np.array(self.values, dtype=self.dtype)
        return rng.integers(self.low, self.high, size=self.shape).astype(self.dtype)

    requires_grad = False


class B(I):
    """A bool tensor (masks)."""

    def __init__(self, *shape, values=None):
        super().__init__(*shape, high=2, values=values, dtype="bool")


class OpInfo:
    """One sample call of an op.

    name: unique test id; call(T, *inputs): the call; inputs: S/I/B specs or plain values;
    grad_fn: the expected grad_fn.name() of the (first) output; gradgrad: torch supports double
    backward here; torch_parity: compare with torch when installed; atol/rtol: value tolerances;
    forward_ad: informative only (False where forward AD is known not to apply); the forward-AD test
    takes its expectation from torch (op_db/forward_ad_support.py), not from this field or ndgrad.
    """

    def __init__(self, name, call, inputs, grad_fn=None, gradgrad=True, torch_parity=True,
                 atol=1e-7, rtol=1e-7, check_grad=True, seed=0, forward_ad=None):
        self.name, self.call, self.inputs, self.grad_fn = name, call, inputs, grad_fn
        self.gradgrad, self.torch_parity, self.atol, self.rtol = gradgrad, torch_parity, atol, rtol
        self.check_grad, self.seed = check_grad, seed
        self.forward_ad = forward_ad

    def arrays(self):
        rng = np.random.default_rng(self.seed)
        return [x.array(rng) if isinstance(x, (S, I)) else x for x in self.inputs]

    def make_inputs(self, T):
        """The inputs as tensors of library T (fresh each call)."""
        out = []
        for spec, a in zip(self.inputs, self.arrays()):
            if isinstance(spec, (S, I)):
                t = T.tensor(a.copy())
                if getattr(spec, "requires_grad", False):
                    t.requires_grad_(True)
                out.append(t)
            else:
                out.append(a)
        return out

    def __repr__(self):
        return self.name


FAMILIES = ["pointwise", "reduction", "shape", "indexing", "creation", "linalg", "linalg_decompositions", "special",
            "sparse", "nested", "activation", "loss", "normalization", "dropout", "embedding", "padding", "sampling",
            "convolution", "pooling", "distance", "attention", "recurrent", "masked", "foreach",
            "random_ops", "misc", "first_derivative"]


def all_ops():
    ops = []
    for fam in FAMILIES:
        try:
            mod = importlib.import_module(f"{__name__}.{fam}")
        except ModuleNotFoundError as e:
            if e.name == f"{__name__}.{fam}":
                continue
            raise
        ops.extend(mod.OPS)
    names = [o.name for o in ops]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate OpInfo names: {dup}"
    return ops
