"""Run PyTorch's OpInfo database (torch.testing._internal.common_methods_invocations.op_db, read from
the installed torch wheel at run time, never copied here) against ndgrad.

For every OpInfo in scope (supports autograd, has float64 on CPU) and each of its float64 samples:
the inputs are rebuilt as ndgrad tensors, the ndgrad op of the same name is called, its outputs are
compared with torch's (torch.testing.assert_close, torch's default tolerances), then the gradients
of a weighted sum of the outputs (the same weights on both sides) with respect to every input that
requires grad. Each OpInfo gets one status, the worst of its samples':

    pass, missing (AttributeError / NotImplementedError), error (any other exception),
    value (wrong value), grad (wrong gradient), dtype (a result or gradient of another dtype than
    torch's), excluded (listed in KNOWN with the reason)

Other modes (--modes): complex128, forward_ad, inplace, and float32: the float32 samples, dtypes
compared exactly, values with assert_close's float32 tolerances (rtol 1.3e-6, atol 1e-5); an
OpInfo whose differences are float32 rounding only is listed in KNOWN_F32 with the reason.

    python tests/opinfo_runner.py [--ops a,b] [--limit N] [--samples N]

prints a per-op table and the percentage of in-scope OpInfos passing every sample.
"""
import argparse
import functools
import importlib
import sys
import time
import types
import warnings

import numpy as np

import ndgrad

# The one place where an OpInfo is knowingly not run, with the reason. Keys are OpInfo ids
# (`name` or `name.variant_test_name`); a key without a variant covers every variant.
UNINIT = "result is uninitialised memory"
KNOWN = {
    "empty": UNINIT, "empty_like": UNINIT, "new_empty": UNINIT, "empty_strided": UNINIT,
    "new_empty_strided": UNINIT, "empty_permuted": UNINIT,
}

# OpInfos whose result is drawn from the random stream: ndgrad's CPU generator is torch's (mt19937,
# the same draws per op), so both generators are seeded alike just before each call and the results
# compared as any other.
SEEDED = {
    "bernoulli", "multinomial", "normal", "rand_like", "randn_like", "randint_like", "randint", "uniform",
    "exponential", "geometric", "cauchy", "log_normal", "nn.functional.dropout", "nn.functional.dropout2d",
    "nn.functional.dropout3d", "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
    "nn.functional.rrelu", "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
    "nn.functional.gumbel_softmax", "svd_lowrank",
}
SEED = 1234

# Samples of otherwise deterministic ops that draw from the random stream (dropout_p > 0): seeded too.
# multi_head_attention_forward takes dropout_p positionally (args[9]) and drops only when training
POSITIONAL_DROPOUT_P = {"nn.functional.multi_head_attention_forward": 9}


def _duplicate_indices(sample):
    """Whether two values of one (N, C) plane unpool to the same place: torch documents the result
    there as nondeterministic (which write lands is up to its kernel), so such samples are not compared."""
    idx = sample.args[0]
    planes = idx.reshape(-1, idx.shape[-1] * idx.shape[-2] * (idx.shape[-3] if idx.dim() == 5 else 1))
    return any(len(set(row.tolist())) != len(row) for row in planes)


UNDETERMINED = {"nn.functional.max_unpool2d": _duplicate_indices, "nn.functional.max_unpool3d": _duplicate_indices}


def undetermined_sample(sample, op):
    """Whether torch leaves the sample's result undetermined (not compared)."""
    return op.name in UNDETERMINED and UNDETERMINED[op.name](sample)


def random_sample(sample, op=None):
    """Whether the sample's result is drawn from the random stream (compared with both generators seeded)."""
    if op is not None and op.name in SEEDED:
        return True
    p = sample.kwargs.get("dropout_p", 0)
    i = POSITIONAL_DROPOUT_P.get(op.name) if op is not None else None
    if i is not None and sample.kwargs.get("training", True) and len(sample.args) > i:
        p = sample.args[i]
    return isinstance(p, (int, float)) and p > 0


# OpInfos whose torch gradient is itself wrong (torch's OpInfo skips its gradcheck, test_fn_grad):
# values are compared with torch, ndgrad's gradients are checked by ndgrad's gradcheck instead.
TORCH_GRAD_WRONG = {
    "as_strided_scatter": "torch's gradient for self keeps the overwritten elements' gradient "
                          "(its OpInfo skips test_fn_grad); ndgrad's passes gradcheck",
}

# OpInfos whose torch forward-AD tangent is itself wrong: ndgrad's tangents are checked against finite
# differences (ndgrad's gradcheck with check_forward_ad) instead of against torch's
TORCH_TANGENT_WRONG = {
    "cholesky_inverse": "torch's tangent differs from finite differences even for triangular tangents "
                        "(its backward is right); ndgrad's passes gradcheck(check_forward_ad=True)",
    "logcumsumexp": "torch's tangent loses precision on inputs of magnitude 1e4 (1.8e-6 from an extended-precision "
                    "reference, ndgrad's 4e-13); ndgrad's passes gradcheck(check_forward_ad=True)",
}

# float32 mode: OpInfos whose float32 results differ from torch's beyond assert_close's float32
# tolerances only by rounding (another accumulation order or formula, both float32-accurate), with
# the reason; run, but reported as excluded in that mode only. (Dtypes are still compared exactly.)
# (Each was checked against a float64 reference computed by torch: ndgrad's float32 error is of the
# order of torch's, or smaller.)
_F32_MORE_ACCURATE = "ndgrad's float32 result is closer to a float64 reference than torch's ({})"
_F32_ORDER = "another accumulation order: ndgrad's and torch's float32 errors from a float64 reference are alike ({})"
KNOWN_F32 = {
    "digamma": _F32_MORE_ACCURATE.format("its gradient, trigamma, from SciPy: 2e-4 off, torch's 1.2e-2 at 1.7e3"),
    "polygamma": _F32_MORE_ACCURATE.format("SciPy's polygamma: 5e-5 off, torch's float32 kernel 1e-2 at 1.4e3"),
    "special.polygamma": _F32_MORE_ACCURATE.format("as polygamma"),
    "special.log_ndtr": _F32_MORE_ACCURATE.format("gradient 7e-6 off, torch's 5e-5"),
    "_upsample_bilinear2d_aa": _F32_MORE_ACCURATE.format("9e-7 off, torch's 2e-5"),
    "linalg.svd": _F32_MORE_ACCURATE.format("LAPACK's gesdd via NumPy: gradient 6e-7 off, torch's 1e-5"),
    "svd": _F32_MORE_ACCURATE.format("as linalg.svd"),
    "linalg.pinv": _F32_MORE_ACCURATE.format("gradient 2e-5 off, torch's 8e-5"),
    "linalg.lstsq": _F32_MORE_ACCURATE.format("gradient 1e-5 off, torch's 2e-5"),
    "nn.functional.layer_norm": _F32_MORE_ACCURATE.format("the weight's gradient over a single element is 0 up "
                                                          "to 1e-14; torch's float32 rstd gives up to 1e-4"),
    "native_layer_norm": _F32_MORE_ACCURATE.format("as nn.functional.layer_norm"),
    "pow": _F32_ORDER.format("values up to 1e8: 1 ulp"),
    "__rpow__": _F32_ORDER.format("as pow"),
    "ldexp": _F32_ORDER.format("values up to 3e3: 1-2 ulp"),
    "cov": _F32_ORDER.format("a gradient that is 0 in exact arithmetic: 3e-5 off, torch's 5e-5"),
    "addbmm": _F32_ORDER.format("5e-5 off at 4e2, both"),
    "linalg.multi_dot": _F32_ORDER.format("gradient 1e-4 off at 2e3, torch's 2e-4"),
    "linalg.householder_product": _F32_ORDER.format("gradient 1.4e-5 off at 30, both"),
    "nn.functional.conv3d": _F32_ORDER.format("weight gradient 1e-4 off at 4e2, torch's 8.5e-5"),
    "nn.functional.conv_transpose3d": _F32_ORDER.format("gradients 3e-5 off at 2e2, torch's 6e-5"),
    "nn.functional.ctc_loss": _F32_ORDER.format("gradient 6e-5 off, torch's 1e-4"),
    "grid_sampler_3d": _F32_ORDER.format("grid gradient 1.4e-4 off at 1e2, torch's 1.6e-4"),
    "nn.functional.grid_sample": _F32_ORDER.format("grid gradient 9e-6 off at 15, both"),
    "fft.hfft2": _F32_ORDER.format("pocketfft vs torch's: 4e-5 off at 2.5e2, torch's 2e-5"),
    "stft": _F32_ORDER.format("gradient 1.5e-5 apart, 5e-6 relative"),
    "logcumsumexp": _F32_ORDER.format("inputs of magnitude 1e4: gradient 4e-3 off, torch's 3e-3"),
    "matrix_exp": _F32_ORDER.format("SciPy's expm in float32: 1.1e-6 relative off (torch's 6e-8) at 9e4"),
    "nn.functional.scaled_dot_product_attention": _F32_ORDER.format("gradients 4e-5 off at 20, torch's 2e-5"),
}

# the statuses, best first: an OpInfo takes the worst of its samples'
ORDER = ["pass", "excluded", "value", "grad", "dtype", "error", "missing"]


def in_scope(op, torch):
    return op.supports_autograd and torch.float64 in op.supported_dtypes("cpu")


def op_id(op):
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def known_reason(op):
    return KNOWN.get(op_id(op)) or KNOWN.get(op.name)


def load_op_db():
    """The OpInfo list of the installed torch (it already holds opinfo.definitions' linalg, fft,
    special, signal lists)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
    return op_db


# --- from torch objects to ndgrad objects -------------------------------------------------------
def _attr_path(root, path):
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


class _Namespace:
    """What a torch module (torch, torch.nn.functional, ...) is in ndgrad: attribute lookups go to
    the ndgrad module of the same path; a missing name raises AttributeError (-> `missing`)."""

    def __init__(self, path):
        self._path = path

    def __getattr__(self, name):
        target = _ndgrad_module(self._path)
        if name.startswith("_") and not hasattr(target, name):
            # a private helper of torch's that the OpInfo wrappers call (torch.masked._output_mask):
            # no API of ndgrad, so torch computes it, on the same values
            helper = getattr(importlib.import_module(self._path), name)
            return functools.partial(_torch_helper, helper)
        value = getattr(target, name)
        return _Namespace(f"{self._path}.{name}") if isinstance(value, types.ModuleType) else value


def _torch_helper(helper, *args, **kwargs):
    import torch

    def to_torch(x):
        if isinstance(x, ndgrad.Tensor):
            return torch.from_numpy(np.array(x.detach().resolve_conj().resolve_neg().numpy(), copy=True))
        if callable(x) and getattr(x, "__module__", "").startswith("ndgrad"):
            return getattr(importlib.import_module("torch" + x.__module__[len("ndgrad"):]), x.__name__)
        if isinstance(x, (list, tuple)):
            return type(x)(to_torch(v) for v in x)
        if isinstance(x, dict):
            return {k: to_torch(v) for k, v in x.items()}
        return x
    out = helper(*to_torch(args), **to_torch(kwargs))
    return Converter(torch)(out.detach() if isinstance(out, torch.Tensor) else out)


@functools.cache
def _ndgrad_module(path):
    """ndgrad's module for torch module `path` ('torch.nn.functional' -> ndgrad.nn.functional)."""
    rest = path[len("torch"):].lstrip(".")
    if rest.startswith("_C") or rest == "functional" or rest.startswith("_"):
        return ndgrad
    try:
        return importlib.import_module("ndgrad." + rest) if rest else ndgrad
    except ImportError:
        return _attr_path(ndgrad, rest)


def _torch_module_name(obj):
    return getattr(obj, "__module__", None) or ""


class Converter:
    """Turns torch values (tensors, dtypes, functions, modules) into ndgrad's."""

    def __init__(self, torch):
        self.torch = torch
        self.leaves = {}       # id(torch tensor) -> ndgrad tensor, for the gradient comparison
        self.seen = {}         # id(torch tensor) -> ndgrad tensor: a tensor passed twice stays one
        self.functions = {}    # torch.testing function -> its ndgrad form
        self.converted = []    # the torch tensors keyed above, kept alive: a temporary's id, once freed,
        #                        could name the next temporary (a fresh clone), which would get the first's tensor

    def tensor(self, t):
        torch = self.torch
        if id(t) in self.seen:
            return self.seen[id(t)]
        if t.layout == torch.sparse_csr:   # the same values, compressed by ndgrad's to_sparse_csr
            return self._leaf(t, ndgrad.tensor(t.detach().to_dense().numpy().copy()).to_sparse_csr())
        if t.layout != torch.strided:
            raise NotImplementedError(f"OpInfo runner: layout {t.layout} not converted")
        if t._base is not None and t.grad_fn is None and t.layout == torch.strided and not t.is_conj() \
                and not t.is_neg():
            # a leaf view (as_strided.partial_views: base[5:15]): the same view of a copy of its whole
            # storage, so that strides and storage offsets reach the same memory
            size = t.untyped_storage().nbytes() // t.element_size()
            storage = t.detach().as_strided((size,), (1,), 0).numpy().copy()
            n = ndgrad.tensor(storage).as_strided(tuple(t.shape), t.stride(), t.storage_offset())
            return self._leaf(t, n)
        v = t.detach().resolve_conj().resolve_neg()
        if v.dtype == torch.bfloat16:   # torch's numpy() refuses bfloat16: its bits, as ml_dtypes' bfloat16
            a = v.view(torch.int16).numpy().copy().view(ndgrad.bfloat16.np)
        else:
            a = v.numpy().copy()
        return self._leaf(t, ndgrad.tensor(a))

    def _leaf(self, t, n):
        if t.requires_grad:
            n.requires_grad_(True)
            self.leaves[id(t)] = n
        self.seen[id(t)] = n
        self.converted.append(t)
        return n

    def __call__(self, x):
        torch = self.torch
        if isinstance(x, torch.Tensor):
            return self.tensor(x)
        if isinstance(x, torch.Size):
            return tuple(x)
        if isinstance(x, torch.dtype):
            return getattr(ndgrad, str(x).split(".")[-1])
        if isinstance(x, torch.device):
            return str(x)
        if isinstance(x, (torch.memory_format, torch.layout)):
            return getattr(ndgrad, str(x).split(".")[-1])
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*(self(v) for v in x))
        if isinstance(x, (list, tuple)):
            return type(x)(self(v) for v in x)
        if isinstance(x, dict):
            return {k: self(v) for k, v in x.items()}
        if isinstance(x, functools.partial):
            return functools.partial(self(x.func), *self(x.args), **self(x.keywords))
        if isinstance(x, torch.nn.Module):
            return self.module(x)
        if isinstance(x, types.ModuleType) and x.__name__.startswith("torch"):
            return _Namespace(x.__name__)
        if isinstance(x, types.FunctionType):
            return self.function(x)
        if callable(x) and type(x).__name__ in ("builtin_function_or_method", "method_descriptor",
                                                "wrapper_descriptor", "OpOverloadPacket", "OpOverload"):
            return self.builtin(x)
        return x

    def module(self, m):
        """An nn.Module argument (triplet_margin_with_distance_loss's distance_function): ndgrad's
        module of the same class, its plain attributes copied (parameter-free modules only)."""
        if any(True for _ in m.parameters()) or any(True for _ in m.buffers()):
            raise NotImplementedError(f"OpInfo runner: module {type(m).__name__} with parameters not converted")
        n = getattr(ndgrad.nn, type(m).__name__).__new__(getattr(ndgrad.nn, type(m).__name__))
        ndgrad.nn.Module.__init__(n)
        for k, v in vars(m).items():
            if not k.startswith("_"):
                setattr(n, k, self(v))
        return n

    def builtin(self, f):
        if type(f).__name__ in ("OpOverloadPacket", "OpOverload"):   # torch.ops.aten.X(.overload)
            packet = getattr(f, "_overloadpacket", f)
            return getattr(ndgrad.ops.aten, packet.__name__)
        name = getattr(f, "__name__", None) or str(f).split(".")[-1]
        mod = _torch_module_name(f)
        if type(f).__name__ in ("method_descriptor", "wrapper_descriptor"):
            return getattr(ndgrad.Tensor, name)
        for prefix, path in (("linalg_", "linalg"), ("fft_", "fft"), ("special_", "special")):
            if mod.endswith("_" + path) and name.startswith(prefix):
                return getattr(getattr(ndgrad, path), name[len(prefix):])
        if mod.endswith("_nn"):
            return getattr(ndgrad.nn.functional, name)
        return getattr(ndgrad, name)

    def function(self, f):
        mod = _torch_module_name(f)
        if not mod.startswith("torch"):
            return f
        if not mod.startswith("torch.testing"):
            return getattr(_ndgrad_module(mod), f.__name__)
        # a helper of the OpInfo database (lambdas, wrappers): the same code, with its torch
        # names read from ndgrad, and the database's helpers it calls converted alike
        # (wrapper_set_seed seeds the generator of the library it is given)
        if f in self.functions:
            return self.functions[f]
        glob = {k: self(v) if isinstance(v, types.ModuleType) else v for k, v in f.__globals__.items()}
        closure = None
        if f.__closure__:
            closure = tuple(types.CellType(self(c.cell_contents)) for c in f.__closure__)
        g = self.functions[f] = types.FunctionType(f.__code__, glob, f.__name__, self(f.__defaults__), closure)
        g.__kwdefaults__ = self(f.__kwdefaults__)
        for name in _names(f.__code__):   # (after the memo entry: helpers may call each other)
            v = glob.get(name)
            if isinstance(v, types.FunctionType) and _torch_module_name(v).startswith("torch.testing") \
                    and not hasattr(v, "__wrapped__"):   # (a decorated one, freeze_rng_state, stays torch's)
                glob[name] = self.function(v)
        return g


def _names(code):
    """The global names `code` and the code nested in it read."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


def resolve(op, conv):
    """The ndgrad callable for OpInfo `op` (raises AttributeError when ndgrad lacks it)."""
    f = op.op
    if isinstance(f, types.FunctionType) and _torch_module_name(f).startswith("torch.testing"):
        return conv.function(f)
    if type(f).__name__ in ("method_descriptor", "wrapper_descriptor"):
        return getattr(ndgrad.Tensor, f.__name__)
    try:
        return _attr_path(ndgrad, op.name)
    except AttributeError:
        pass
    try:
        return conv(f) if not isinstance(f, types.FunctionType) else conv.function(f)
    except AttributeError:
        pass
    if op.aten_name and op.aten_name != op.name:
        try:
            return _attr_path(ndgrad, op.aten_name)
        except AttributeError:
            pass
    # a Tensor method of that name
    meth = getattr(ndgrad.Tensor, op.name)
    return lambda self, *a, **k: meth(self, *a, **k)


# --- running one sample -------------------------------------------------------------------------
def _flatten(out):
    if isinstance(out, (list, tuple)):
        res = []
        for o in out:
            res.extend(_flatten(o))
        return res
    return [out]


class Mismatch(Exception):
    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind


def _to_torch(torch, x):
    if isinstance(x, ndgrad.Tensor):
        if x.layout != ndgrad.strided:   # compared by value (assert_close(check_layout=False))
            x = x.detach().to_dense()
        a = np.array(x.detach().resolve_conj().resolve_neg().numpy(), copy=True)   # the values (lazy conj/neg views)
        if x.dtype is ndgrad.bfloat16:   # torch takes no ml_dtypes array: hand it the bits
            return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(a)
    return x


def _compare(torch, kind, got, want):
    if len(got) != len(want):
        raise Mismatch(kind, f"{len(got)} outputs, torch gives {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, torch.Tensor):
            if not isinstance(g, ndgrad.Tensor):
                raise Mismatch(kind, f"output {i}: {type(g).__name__}, torch gives a Tensor")
            # views keep torch's lazy conj/neg bits (those of a computed result, or of a gradient, are a
            # detail of torch's kernels and engine: values only)
            if kind == "value" and w._is_view() and (g.is_conj(), g.is_neg()) != (w.is_conj(), w.is_neg()):
                raise Mismatch(kind, f"output {i}: is_conj, is_neg {g.is_conj(), g.is_neg()}, torch gives "
                                     f"{w.is_conj(), w.is_neg()}")
            if g.dtype is not getattr(ndgrad, str(w.dtype).split(".")[-1]):   # (a dtype bug, not rounding)
                raise Mismatch("dtype", f"{kind} {i}: dtype {g.dtype}, torch gives {w.dtype}")
            try:
                torch.testing.assert_close(_to_torch(torch, g), w.detach().resolve_conj().resolve_neg(),
                                           equal_nan=True, check_device=False, check_layout=False)
            except AssertionError as e:
                raise Mismatch(kind, f"output {i}: " + " ".join(str(e).split())[:300]) from None
        elif w is None:
            if g is not None and not (isinstance(g, ndgrad.Tensor) and not g.detach().resolve_conj().resolve_neg().numpy().any()):
                raise Mismatch(kind, f"output {i}: {g!r}, torch gives None")
        else:
            if isinstance(g, ndgrad.Tensor) or g != w and not (g != g and w != w):
                raise Mismatch(kind, f"output {i}: {g!r}, torch gives {w!r}")


def run_sample(op, fn, sample, torch, rng):
    """Compare one sample; returns None (pass) or raises Mismatch / another exception."""
    conv = Converter(torch)
    wrapper = op.gradcheck_wrapper

    def call_torch():
        return wrapper(op.op, sample.input, *sample.args, **sample.kwargs)

    if undetermined_sample(sample, op):
        return "undetermined"
    seeded = random_sample(sample, op)
    try:
        if seeded:
            torch.manual_seed(SEED)
        want = call_torch()
    except Exception:
        return "torch-error"
    n_in, n_args, n_kwargs = conv(sample.input), conv(sample.args), conv(sample.kwargs)
    n_wrapper = conv(wrapper)
    if seeded:
        ndgrad.manual_seed(SEED)
    got = n_wrapper(fn, n_in, *n_args, **n_kwargs)
    process = sample.output_process_fn_grad
    want_o = _flatten(process(want))
    got_o = _flatten(conv(process)(got))
    _compare(torch, "value", got_o, want_o)

    # gradients of sum(w * out) over the differentiable outputs, with the same weights w
    leaves = [t for t in _flatten([sample.input, list(sample.args), list(sample.kwargs.values())])
              if isinstance(t, torch.Tensor) and t.requires_grad and id(t) in conv.leaves]
    outs = [(i, w) for i, w in enumerate(want_o)
            if isinstance(w, torch.Tensor) and w.requires_grad and (w.is_floating_point() or w.is_complex())]
    if not leaves or not outs:
        return None
    if op_id(op) in TORCH_GRAD_WRONG:
        _gradcheck_ndgrad(n_wrapper, fn, n_in, n_args, n_kwargs, conv, process)
        return None
    weights = []
    for _, w in outs:
        a = rng.standard_normal(tuple(w.shape))
        if w.is_complex():
            a = a + 1j * rng.standard_normal(tuple(w.shape))
        weights.append(torch.from_numpy(np.asarray(a)).to(w.dtype))
    want_g = torch.autograd.grad([w for _, w in outs], leaves, weights, allow_unused=True)
    n_outs = [got_o[i] for i, _ in outs]
    for j, o in enumerate(n_outs):
        if not isinstance(o, ndgrad.Tensor) or not o.requires_grad:
            raise Mismatch("grad", f"output {outs[j][0]} does not require grad")
    n_leaves = [conv.leaves[id(t)] for t in leaves]
    got_g = ndgrad.autograd.grad(n_outs, n_leaves, [conv(w) for w in weights], allow_unused=True)
    # an unused input: None or zeros on either side
    got_g = [g if g is not None else ndgrad.zeros_like(t) for g, t in zip(got_g, n_leaves)]
    _compare(torch, "grad", list(got_g), [g if g is not None else torch.zeros_like(t) for g, t in
                                          zip(want_g, leaves)])
    return None


def _gradcheck_ndgrad(n_wrapper, fn, n_in, n_args, n_kwargs, conv, process, forward_ad=False):
    """ndgrad's gradcheck on the sample's leaves (the other arguments held fixed); forward_ad: of
    the forward-AD tangents instead of the gradients."""
    leaves = list(conv.leaves.values())

    def f(*xs):
        sub = dict(zip(map(id, leaves), xs))

        def swap(v):
            if isinstance(v, ndgrad.Tensor):
                return sub.get(id(v), v)
            if isinstance(v, (list, tuple)):
                return type(v)(swap(u) for u in v)
            if isinstance(v, dict):
                return {k: swap(u) for k, u in v.items()}
            return v
        out = _flatten(conv(process)(n_wrapper(fn, swap(n_in), *swap(n_args), **swap(n_kwargs))))
        # (under forward AD the outputs carry tangents, not requires_grad)
        return tuple(o for o in out if isinstance(o, ndgrad.Tensor) and
                     (o.requires_grad or forward_ad and (o.is_floating_point() or o.is_complex())))
    # (float32 leaves checked in float64: finite differences in float32 are too coarse for gradcheck)
    inputs = tuple((t.detach().double() if t.dtype is ndgrad.float32 else t.detach()).requires_grad_(True)
                   for t in leaves)
    try:
        ndgrad.autograd.gradcheck(f, inputs, check_forward_ad=forward_ad, check_backward_ad=not forward_ad)
    except Exception as e:  # noqa: BLE001 - a gradcheck failure is a wrong gradient
        raise Mismatch("grad", "ndgrad gradcheck: " + " ".join(str(e).split())[:200]) from None


def _map_tensors(x, f, cls):
    """x with every `cls` instance t replaced by f(t) (inside lists, tuples and dicts)."""
    if isinstance(x, cls):
        return f(x)
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_map_tensors(v, f, cls) for v in x)
    if isinstance(x, dict):
        return {k: _map_tensors(v, f, cls) for k, v in x.items()}
    return x


def run_sample_forward_ad(op, fn, sample, torch, rng):
    """Forward AD: the same random tangent on every input that requires grad, on both sides; the
    outputs' tangents compared (None and zeros alike). None (pass), or raises."""
    import torch.autograd.forward_ad as t_fwad
    n_fwad = ndgrad.autograd.forward_ad
    if undetermined_sample(sample, op):
        return "undetermined"
    seeded = random_sample(sample, op)
    leaves = [t for t in _flatten([sample.input, list(sample.args), list(sample.kwargs.values())])
              if isinstance(t, torch.Tensor) and t.requires_grad]
    if not leaves:
        return "torch-error"
    tangents = {}
    for t in leaves:
        a = rng.standard_normal(tuple(t.shape))
        if t.is_complex():
            a = a + 1j * rng.standard_normal(tuple(t.shape))
        tangents[id(t)] = torch.from_numpy(np.asarray(a)).to(t.dtype)
    wrapper, process = op.gradcheck_wrapper, sample.output_process_fn_grad
    try:
        with t_fwad.dual_level():
            duals = {id(t): t_fwad.make_dual(t.detach(), tangents[id(t)]) for t in leaves}
            sub = lambda t: duals.get(id(t), t)   # noqa: E731
            if seeded:
                torch.manual_seed(SEED)
            want = _flatten(process(wrapper(op.op, *_map_tensors([sample.input, *sample.args], sub, torch.Tensor),
                                            **_map_tensors(sample.kwargs, sub, torch.Tensor))))
            want_t = [t_fwad.unpack_dual(w).tangent if isinstance(w, torch.Tensor) else None for w in want]
            want_p = [t_fwad.unpack_dual(w).primal if isinstance(w, torch.Tensor) else w for w in want]
    except Exception:
        return "torch-error"
    conv = Converter(torch)
    n_in, n_args, n_kwargs = conv(sample.input), conv(sample.args), conv(sample.kwargs)
    if op_id(op) in TORCH_TANGENT_WRONG:
        _gradcheck_ndgrad(conv(wrapper), fn, n_in, n_args, n_kwargs, conv, process, forward_ad=True)
        return None
    n_leaves = {id(conv.leaves[id(t)]): (conv.leaves[id(t)], conv(tangents[id(t)])) for t in leaves}
    with n_fwad.dual_level():
        nd = {k: n_fwad.make_dual(n.detach(), tan) for k, (n, tan) in n_leaves.items()}
        sub = lambda t: nd.get(id(t), t)   # noqa: E731
        if seeded:
            ndgrad.manual_seed(SEED)
        got = _flatten(conv(process)(conv(wrapper)(fn, *_map_tensors([n_in, *n_args], sub, ndgrad.Tensor),
                                                   **_map_tensors(n_kwargs, sub, ndgrad.Tensor))))
        got_t = [n_fwad.unpack_dual(g).tangent if isinstance(g, ndgrad.Tensor) else None for g in got]
        got_p = [n_fwad.unpack_dual(g).primal if isinstance(g, ndgrad.Tensor) else g for g in got]
    _compare(torch, "value", got_p, want_p)
    pairs = [(g, w) for g, w in zip(got_t, want_t) if w is not None or g is not None]
    fixed_g = [g if g is not None else ndgrad.zeros_like(p) for (g, w), p in
               zip(pairs, [p for p, (g, w) in zip(got_p, zip(got_t, want_t)) if w is not None or g is not None])]
    fixed_w = [w if w is not None else torch.zeros(tuple(g.shape), dtype=getattr(torch, str(g.dtype).split(".")[-1]))
               for (g, w) in pairs]
    _compare(torch, "grad", fixed_g, fixed_w)
    return None


# --- in-place variants: version counter, leaf refusal, saved-tensor refusal -----------------------
def _message(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the message is what is compared
        return f"{type(e).__name__}: {e}"
    return None


def run_inplace(op, torch, max_samples=None):
    """(status, detail) for an OpInfo's inplace_variant on its float64 samples (those torch accepts
    in place): the in-place call bumps the version counter as torch's does (once), refuses a leaf
    that requires grad with torch's message, and a backward through a node that saved the tensor it
    overwrote fails with torch's message."""
    conv = Converter(torch)
    try:
        n_inplace = conv(op.inplace_variant)
    except AttributeError as e:
        return "missing", f"AttributeError: {e}"
    n_checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for sample in op.sample_inputs("cpu", torch.float64, requires_grad=False):
            if max_samples is not None and n_checked >= max_samples:
                break
            if not isinstance(sample.input, torch.Tensor) or undetermined_sample(sample, op):
                continue
            t_x = sample.input.clone()
            v0 = t_x._version
            seeded = random_sample(sample, op)
            try:
                if seeded:
                    torch.manual_seed(SEED)
                op.inplace_variant(t_x, *sample.args, **sample.kwargs)
            except Exception:
                continue   # not an in-place sample for torch (broadcast into self, dtype)
            t_bumps = t_x._version - v0
            n_checked += 1
            try:
                c = Converter(torch)
                n_x, n_args, n_kwargs = c(sample.input.clone()), c(sample.args), c(sample.kwargs)
                v0 = n_x._version
                if seeded:
                    ndgrad.manual_seed(SEED)
                n_inplace(n_x, *n_args, **n_kwargs)
                if n_x._version - v0 != t_bumps:
                    return "value", f"version counter +{n_x._version - v0}, torch +{t_bumps}"
                _compare(torch, "value", [n_x], [t_x])

                def leaf(T, inplace, x, args, kwargs):
                    return lambda: inplace(x.detach().clone().requires_grad_(True), *args, **kwargs)
                want = _message(leaf(torch, op.inplace_variant, sample.input, sample.args, sample.kwargs))
                n_fresh = c(sample.input.clone())   # (n_x was written: a shape-changing op changed its shape)
                got = _message(leaf(ndgrad, n_inplace, n_fresh, n_args, n_kwargs))
                if got != want:
                    return "error", f"leaf: {got!r}, torch: {want!r}"

                def saved(T, inplace, x, args, kwargs):
                    def run():
                        a = x.detach().clone().requires_grad_(True).clone()
                        y = a.sin()   # SinBackward0 saves a
                        inplace(a, *args, **kwargs)
                        y.sum().backward()
                    return run
                want = _message(saved(torch, op.inplace_variant, sample.input, sample.args, sample.kwargs))
                got = _message(saved(ndgrad, n_inplace, n_fresh, n_args, n_kwargs))
                if got != want:
                    return "error", f"saved: {(got or '')[:150]!r}, torch: {(want or '')[:150]!r}"
            except Mismatch as e:
                return e.kind, str(e)
            except Exception as e:  # noqa: BLE001 - every failure is classified
                return classify(e), f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
    return ("pass", "") if n_checked else ("excluded", "no sample torch runs in place")


def classify(exc):
    if isinstance(exc, Mismatch):
        return exc.kind
    if isinstance(exc, (AttributeError, NotImplementedError)):
        return "missing"
    return "error"


MODES = ("float64", "complex128", "forward_ad", "inplace", "float32")


def mode_applies(op, torch, mode):
    """Whether an in-scope OpInfo is counted in `mode` (complex128: the OpInfo lists it;
    forward_ad: supports_forward_ad; inplace: it has an inplace_variant; float32: the OpInfo lists
    float32)."""
    if mode == "complex128":
        return torch.complex128 in op.supported_dtypes("cpu")
    if mode == "forward_ad":
        return bool(op.supports_forward_ad)
    if mode == "inplace":
        return op.inplace_variant is not None
    if mode == "float32":
        return torch.float32 in op.supported_dtypes("cpu")
    return True


def run_op(op, torch, max_samples=None, seed=0, mode="float64"):
    """(status, detail, samples run) for one OpInfo in one mode."""
    reason = known_reason(op)
    if reason:
        return "excluded", reason, 0
    if mode == "inplace":
        torch.manual_seed(seed)
        status, detail = run_inplace(op, torch, max_samples)
        return status, detail, 0
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    try:
        fn = resolve(op, Converter(torch))
    except AttributeError as e:
        return "missing", f"AttributeError: {e}", 0
    worst, detail, n, n_undetermined = "pass", "", 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # float32: results' dtypes compared exactly (assert_close's check_dtype) and values with
        # assert_close's float32 defaults (rtol 1.3e-6, atol 1e-5); gradients where the OpInfo
        # lists float32 among its backward dtypes
        dtype = {"complex128": torch.complex128, "float32": torch.float32}.get(mode, torch.float64)
        grads = dtype in op.supported_backward_dtypes("cpu")
        samples = op.sample_inputs("cpu", dtype, requires_grad=grads)
        one = run_sample_forward_ad if mode == "forward_ad" else run_sample
        for sample in samples:
            if max_samples is not None and n >= max_samples:
                break
            try:
                r = one(op, fn, sample, torch, rng)
                if r == "torch-error":
                    continue
                if r == "undetermined":
                    n_undetermined += 1
                    continue
                status, msg = "pass", ""
            except Exception as e:  # noqa: BLE001 - every failure is classified
                status, msg = classify(e), f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
            n += 1
            if ORDER.index(status) > ORDER.index(worst):
                worst, detail = status, f"sample {n - 1}: {msg}"
    if n_undetermined and not n:   # nothing compared: torch leaves every sample's result undetermined
        return "excluded", f"torch's result is undetermined (all {n_undetermined} samples)", 0
    if n_undetermined:
        detail = "; ".join(filter(None, [detail, f"{n_undetermined} samples not compared (torch's result undetermined)"]))
    f32_reason = KNOWN_F32.get(op_id(op)) or KNOWN_F32.get(op.name)
    if mode == "float32" and worst in ("value", "grad") and f32_reason:
        return "excluded", f"float32 rounding only: {f32_reason} ({detail})", n
    if worst == "pass" and op_id(op) in TORCH_GRAD_WRONG:
        detail = "gradients by ndgrad's gradcheck: " + TORCH_GRAD_WRONG[op_id(op)]
    if worst == "pass" and mode == "forward_ad" and op_id(op) in TORCH_TANGENT_WRONG:
        detail = "tangents by ndgrad's gradcheck: " + TORCH_TANGENT_WRONG[op_id(op)]
    return worst, detail, n


def run(ops=None, limit=None, max_samples=None, progress=None, mode="float64"):
    import torch
    results = {}
    selected = [op for op in load_op_db() if in_scope(op, torch) and mode_applies(op, torch, mode)]
    if ops:
        wanted = set(ops)
        selected = [op for op in selected if op.name in wanted or op_id(op) in wanted]
    if limit:
        selected = selected[:limit]
    for op in selected:
        t0 = time.perf_counter()
        status, detail, n = run_op(op, torch, max_samples, mode=mode)
        results[op_id(op)] = (status, detail, n, time.perf_counter() - t0)
        if progress:
            progress(op_id(op), status)
    return results


def summary(results):
    counts = {s: 0 for s in ORDER}
    for status, *_ in results.values():
        counts[status] += 1
    in_scope_n = len(results) - counts["excluded"]
    pct = 100.0 * counts["pass"] / in_scope_n if in_scope_n else 0.0
    return counts, in_scope_n, pct


def table(results, failures_only=False):
    lines = ["| OpInfo | status | samples | detail |", "|---|---|---|---|"]
    for name, (status, detail, n, _) in sorted(results.items(), key=lambda kv: (ORDER.index(kv[1][0]), kv[0])):
        if failures_only and status == "pass":
            continue
        lines.append(f"| `{name}` | {status} | {n} | {detail.replace('|', '/')} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ops", help="comma-separated OpInfo names (or name.variant)")
    p.add_argument("--limit", type=int, help="only the first N in-scope OpInfos")
    p.add_argument("--samples", type=int, help="at most N samples per OpInfo")
    p.add_argument("--failures", action="store_true", help="list only the OpInfos that do not pass")
    p.add_argument("--modes", default="float64",
                   help=f"comma-separated, of {', '.join(MODES)} (or 'all'): float64 values and gradients; "
                        "complex128 samples where the OpInfo lists complex128; forward-AD tangents where "
                        "supports_forward_ad; in-place variants (version counter, leaf and saved-tensor refusals); "
                        "float32 samples where the OpInfo lists float32 (dtypes exact, float32 tolerances)")
    a = p.parse_args(argv)
    modes = MODES if a.modes == "all" else a.modes.split(",")
    lines = []
    for mode in modes:
        results = run(a.ops.split(",") if a.ops else None, a.limit, a.samples, mode=mode,
                      progress=lambda n, s, m=mode: print(f"{m:10} {s:8} {n}", file=sys.stderr, flush=True))
        print(f"## {mode}\n")
        print(table(results, a.failures))
        counts, n, pct = summary(results)
        print()
        print(", ".join(f"{k} {v}" for k, v in counts.items()))
        what = {"float64": "every float64 sample incl. gradients", "complex128": "every complex128 sample",
                "forward_ad": "every forward-AD tangent (float64)",
                "inplace": "the in-place checks",
                "float32": "every float32 sample incl. gradients (dtypes exact)"}.get(mode, mode)
        lines.append(f"{mode}: {counts['pass']}/{n} in-scope OpInfos pass {what}: {pct:.1f}%")
        print(lines[-1] + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
