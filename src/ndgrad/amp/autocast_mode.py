"""torch.autocast on the CPU: inside the region, ops torch lists as safe in lower precision (matrix
products, convolutions, linear, attention) compute in the autocast dtype (bfloat16 by default,
through ml_dtypes), ops it lists as needing float32 (losses, reductions such as prod, linear algebra,
FFTs, padding, pooling in 3-D) compute in float32, and cat / stack / index_copy promote to the widest
floating input. Only float32 and lower-precision tensors are cast (float64 stays), as torch's
autocast does; the casts are ordinary `to` ops, so autograd records ToCopyBackward0 for them.

The region is a mode on the op glue (`ops._registry.dispatch_hook`, as selective checkpointing's):
calls outside a region pay nothing. ndgrad keeps no cast cache (torch's reuses a cast weight within a
region; the values are the same), so clear_autocast_cache has nothing to clear.
"""
import functools
import threading
import warnings

from .. import _dtype
from .._tensor import Tensor
from ..ops import _registry

__all__ = ["autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]

# torch's CPU autocast op lists (aten names), as the ops ndgrad records them
_LOWER = frozenset("""conv1d conv2d conv3d convolution conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d
    bmm mm linalg_vecdot baddbmm addmm addbmm linear matmul _prelu_kernel prelu scaled_dot_product_attention
    _scaled_dot_product_flash_attention_for_cpu mkldnn_rnn_layer _native_multi_head_attention""".split())
_FP32 = frozenset("""avg_pool3d binary_cross_entropy grid_sampler grid_sampler_2d grid_sampler_3d polar prod quantile
    nanquantile stft cdist _cdist_forward trace view_as_complex cholesky cholesky_inverse cholesky_solve inverse
    lu_solve orgqr ormqr pinverse max_pool3d max_pool3d_with_indices max_unpool2d max_unpool3d adaptive_avg_pool3d
    _adaptive_avg_pool3d reflection_pad1d reflection_pad2d replication_pad1d replication_pad2d replication_pad3d
    mse_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss poisson_nll_loss smooth_l1_loss
    cross_entropy_loss l1_loss huber_loss margin_ranking_loss soft_margin_loss triplet_margin_loss
    multi_margin_loss ctc_loss _ctc_loss kl_div multilabel_margin_loss binary_cross_entropy_with_logits
    _fft_r2c _fft_c2r _fft_c2c linalg_cond linalg_matrix_rank linalg_solve linalg_cholesky linalg_svdvals
    linalg_eigvals linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv linalg_tensorsolve
    fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd triangular_solve fractional_max_pool2d
    fractional_max_pool3d adaptive_max_pool3d multilabel_margin_loss_forward linalg_qr linalg_cholesky_ex
    linalg_svd linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex""".split())
_PROMOTE = frozenset("stack cat index_copy".split())

_DEVICES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
            "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class _State(threading.local):
    def __init__(self):
        self.enabled = {}                       # device type -> bool
        self.dtype = {"cpu": _dtype.bfloat16}    # device type -> dtype (others: float16)
        self.cache_enabled = True
        self.nesting = 0


state = _State()


def _device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICES)} device type at start of device string: "
                           f"{device_type}")
    return device_type


def is_autocast_available(device_type):
    """Autocast runs on the CPU only here (ndgrad computes on the CPU)."""
    return _device_type(device_type) == "cpu"


def _cast(x, target):
    if isinstance(x, Tensor):
        return x.to(target) if x.is_floating_point() and x.dtype is not _dtype.float64 and x.dtype is not target \
            else x
    if type(x) in (list, tuple):
        return type(x)(_cast(v, target) for v in x)
    return x


def _widest(args):
    dtypes = [t.dtype for a in args for t in (a if type(a) in (list, tuple) else (a,))
              if isinstance(t, Tensor) and t.is_floating_point()]
    return max(dtypes, key=lambda d: (d.itemsize, d is not _dtype.bfloat16)) if dtypes else None


class _AutocastMode:
    """The op-glue mode of the innermost enabled CPU autocast region."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __enter__(self):
        self.outer = _registry.dispatch_hook
        _registry.dispatch_hook = self.on_op

    def __exit__(self, *exc):
        _registry.dispatch_hook = self.outer

    def on_op(self, spec, args, inplace=False):
        _registry.dispatch_hook = self.outer   # the casts and the op itself are not seen again
        try:
            name = spec.name.split(".")[0]
            if not inplace:
                if name in _LOWER:
                    args = tuple(_cast(a, self.dtype) for a in args)
                elif name in _FP32:
                    args = tuple(_cast(a, _dtype.float32) for a in args)
                elif name in _PROMOTE:
                    widest = _widest(args)
                    if widest is not None:
                        args = tuple(_cast(a, widest) for a in args)
            return (_registry.call_inplace if inplace else _registry.call)(spec, args)
        finally:
            _registry.dispatch_hook = self.on_op


class autocast:
    """`with torch.autocast("cpu"):` (or as a decorator): mixed precision in the region; see the
    module docstring. dtype: bfloat16 (default) or float16 on the CPU."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _device_type(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = state.cache_enabled if cache_enabled is None else cache_enabled
        self._enabled = enabled
        if self.device == "cuda" and enabled:
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            self._enabled = False
        elif self.device == "cpu" and enabled and self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.")
            self._enabled = False
        elif self.device != "cpu" and enabled:
            raise NotImplementedError(f"autocast: ndgrad computes on the CPU only (device_type={self.device!r})")

    def __enter__(self):
        self._prev = (state.enabled.get(self.device, False), state.dtype.get(self.device), state.cache_enabled)
        state.enabled[self.device] = self._enabled
        state.dtype[self.device] = self.fast_dtype
        state.cache_enabled = self._cache_enabled
        state.nesting += 1
        self._mode = _AutocastMode(self.fast_dtype) if self._enabled else None
        if self._mode is not None:
            self._mode.__enter__()
        elif self._prev[0]:   # autocast(enabled=False) inside a region: no casting inside
            self._mode = _Suspended()
            self._mode.__enter__()
        return self

    def __exit__(self, *exc):
        if self._mode is not None:
            self._mode.__exit__(*exc)
        state.nesting -= 1
        state.enabled[self.device], state.dtype[self.device], state.cache_enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def decorated(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return decorated


class _Suspended:
    """autocast(enabled=False) nested in an enabled region: the enclosing casting mode is lifted."""

    def __enter__(self):
        self.saved = _registry.dispatch_hook
        if getattr(self.saved, "__self__", None).__class__ is _AutocastMode:
            _registry.dispatch_hook = self.saved.__self__.outer

    def __exit__(self, *exc):
        _registry.dispatch_hook = self.saved


# ---- the state functions of torch's namespace ---------------------------------------------------
def is_autocast_enabled(device_type=None):
    return state.enabled.get("cuda" if device_type is None else _device_type(device_type), False)


def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:   # the old one-argument form: the CUDA flag
        device_type, enabled = "cuda", device_type
    state.enabled[_device_type(device_type)] = bool(enabled)


def get_autocast_dtype(device_type):
    return state.dtype.get(_device_type(device_type), _dtype.float16)


def set_autocast_dtype(device_type, dtype):
    state.dtype[_device_type(device_type)] = dtype


def is_autocast_cache_enabled():
    return state.cache_enabled


def set_autocast_cache_enabled(enabled):
    state.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Nothing to clear: ndgrad casts afresh each time (see the module docstring)."""


def autocast_increment_nesting():
    state.nesting += 1
    return state.nesting


def autocast_decrement_nesting():
    state.nesting -= 1
    return state.nesting


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's forward: runs it with autocast off and, when cast_inputs is
    given and autocast is on, with its floating inputs cast to cast_inputs."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            return fwd(*args, **kwargs)
        cast = is_autocast_enabled(device_type)
        with autocast(device_type=device_type, enabled=False):
            if cast:
                args = (args[0],) + tuple(_cast(a, cast_inputs) for a in args[1:])
                kwargs = {k: _cast(v, cast_inputs) for k, v in kwargs.items()}
            return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's backward: runs it under the forward's autocast state."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


# the CPU spellings torch 2.4 deprecated in favour of the device_type forms above
def _deprecated_cpu(name, replacement):
    warnings.warn(f"torch.{name}() is deprecated. Please use torch.{replacement} instead.", DeprecationWarning,
                  stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated_cpu("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated_cpu("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated_cpu("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated_cpu("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)
