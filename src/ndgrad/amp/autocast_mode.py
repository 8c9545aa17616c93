"""Automatic mixed precision on the CPU: `torch.autocast("cpu")` as torch runs it.

Inside an enabled autocast region some ops run in the region's lower-precision dtype (bfloat16 by
default, or float16) and some in float32, whatever their inputs' dtype; the rest run as usual. The
casts are ordinary recorded ops (`ToCopyBackward0` in the graph), and a float32 leaf that requires
grad (a weight) is cast once per region and the cast reused (the autocast cache), as in torch.

The op lists are torch's CPU autocast policy (measured against torch 2.13: which ops return the
lower dtype from float32 inputs, which return float32 from bfloat16 inputs). ndgrad applies the
policy to its registered ops; a composite function (`F.cross_entropy`, say) casts where its first
listed op runs, so it gives torch's dtypes, with bfloat16 rounding in a different place.
Autocast state is per thread, as in torch. CUDA and other devices have no autocast here: asking for
one warns and disables the region, as torch does without that device.
"""
import functools
import threading
import warnings

from .. import _dtype
from .._tensor import Tensor
from ..ops import _registry

# run in the lower-precision dtype: float32 (never float64) inputs are cast down
LOWER_PRECISION = frozenset("""
    conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d convolution _convolution conv_tbc
    mkldnn_convolution bmm mm linalg_vecdot baddbmm addmm addbmm linear matmul mkldnn_rnn_layer prelu
    _prelu_kernel scaled_dot_product_attention _native_multi_head_attention""".split())
# run in float32: bfloat16 and float16 inputs are cast up
FLOAT32 = frozenset("""
    avg_pool3d binary_cross_entropy grid_sampler grid_sampler_2d grid_sampler_3d polar prod quantile
    nanquantile stft cdist _cdist_forward trace view_as_complex cholesky cholesky_inverse cholesky_solve
    inverse lu_solve orgqr ormqr pinverse max_pool3d max_pool3d_with_indices max_unpool2d max_unpool3d
    adaptive_avg_pool3d _adaptive_avg_pool3d reflection_pad1d reflection_pad2d replication_pad1d
    replication_pad2d replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss2d
    hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy_loss l1_loss huber_loss
    margin_ranking_loss soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss _ctc_loss kl_div
    multilabel_margin_loss multilabel_margin_loss_forward binary_cross_entropy_with_logits
    fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn
    fft_irfftn fft_hfft fft_ihfft fft_hfft2 fft_ihfft2 fft_hfftn fft_ihfftn _fft_r2c _fft_c2r _fft_c2c
    linalg_cond linalg_matrix_rank linalg_solve linalg_cholesky linalg_svdvals linalg_eigvals
    linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv linalg_tensorsolve geqrf
    _lu_with_info qr svd triangular_solve fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d
    linalg_qr linalg_cholesky_ex linalg_svd linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex
    linalg_solve_ex _linalg_svd _linalg_eigh _linalg_solve_ex""".split())
# run in the widest floating dtype among the inputs
PROMOTE = frozenset({"stack", "cat", "index_copy"})

_LOWER_DTYPES = ("bfloat16", "float16")


class _State(threading.local):
    def __init__(self):
        self.enabled = {"cpu": False}
        self.dtype = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16}
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}   # id(leaf) -> (leaf, its cast): kept until the outermost region exits


_state = _State()
_active = 0   # threads with CPU autocast on; while 0 the op glue skips autocast entirely
_active_lock = threading.Lock()


def _device_type(device_type):
    if device_type is None:
        return "cuda"   # torch's default for the device-less queries
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    return device_type


def is_autocast_available(device_type):
    """Whether ndgrad can autocast on `device_type`: the CPU only."""
    return _device_type(device_type) == "cpu"


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for `device_type` (``"cpu"`` when omitted; ndgrad has no CUDA, whose
    flag is always off), as set by :class:`ndgrad.autocast`.

    Args:
        device_type (str, optional): the device type.

    Returns:
        bool: the flag.

    Example::

        >>> with torch.autocast("cpu"):
        ...     torch.is_autocast_enabled("cpu")
        True
        >>> torch.is_autocast_enabled("cpu")
        False
    """
    return _state.enabled.get(_device_type(device_type), False)


def set_autocast_enabled(device_type, enabled=None):
    """Turns autocast on or off for `device_type` (prefer the :class:`ndgrad.autocast` context
    manager, which restores the previous state). Only ``"cpu"`` can be turned on in ndgrad; the
    deprecated one-argument form sets CUDA's flag.

    Args:
        device_type (str): the device type.
        enabled (bool): the new flag.

    Example::

        >>> torch.set_autocast_enabled("cpu", True)
        >>> torch.is_autocast_enabled("cpu")
        True
        >>> torch.set_autocast_enabled("cpu", False)
    """
    global _active
    if enabled is None:   # the deprecated one-argument form sets CUDA's flag
        device_type, enabled = "cuda", device_type
    device_type = _device_type(device_type)
    enabled = bool(enabled)
    if device_type != "cpu":
        if enabled:
            raise RuntimeError(f"ndgrad has no autocast for device type '{device_type}' (only 'cpu')")
        _state.enabled[device_type] = False
        return
    if enabled != _state.enabled["cpu"]:
        with _active_lock:
            _active += 1 if enabled else -1
            _registry.autocast = cast_inputs if _active else None
    _state.enabled["cpu"] = enabled


def get_autocast_dtype(device_type):
    """The lower-precision dtype that autocast uses on `device_type` (bfloat16 on the CPU by default).

    Args:
        device_type (str): the device type.

    Returns:
        dtype: the autocast dtype.

    Example::

        >>> torch.get_autocast_dtype("cpu")
        torch.bfloat16
    """
    return _state.dtype.get(_device_type(device_type), _dtype.float16)


def set_autocast_dtype(device_type, dtype):
    """Sets the lower-precision dtype that autocast uses on `device_type`.

    Args:
        device_type (str): the device type.
        dtype (dtype): the dtype, e.g. ``torch.bfloat16`` or ``torch.float16``.

    Example::

        >>> torch.set_autocast_dtype("cpu", torch.float16)
        >>> torch.get_autocast_dtype("cpu")
        torch.float16
        >>> torch.set_autocast_dtype("cpu", torch.bfloat16)
    """
    _state.dtype[_device_type(device_type)] = dtype


def is_autocast_cache_enabled():
    """Whether autocast caches the casts of leaf tensors that require grad (on by default), so that
    a weight used twice in an autocast region is cast once.

    Returns:
        bool: the flag.

    Example::

        >>> torch.is_autocast_cache_enabled()
        True
    """
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    """Turns the autocast cast cache on or off (see :func:`ndgrad.is_autocast_cache_enabled`).

    Args:
        enabled (bool): the new flag.

    Example::

        >>> torch.set_autocast_cache_enabled(False)
        >>> torch.is_autocast_cache_enabled()
        False
        >>> torch.set_autocast_cache_enabled(True)
    """
    _state.cache_enabled = bool(enabled)


def autocast_increment_nesting():
    """Counts one more nested autocast region (what entering :class:`ndgrad.autocast` does).

    Returns:
        int: the new depth.

    Example::

        >>> torch.autocast_increment_nesting()
        1
        >>> torch.autocast_decrement_nesting()
        0
    """
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    """Counts one nested autocast region less (what leaving :class:`ndgrad.autocast` does; the
    cast cache is cleared when the outermost region ends).

    Returns:
        int: the new depth.

    Example::

        >>> torch.autocast_increment_nesting()
        1
        >>> torch.autocast_decrement_nesting()
        0
    """
    _state.nesting -= 1
    return _state.nesting


def clear_autocast_cache():
    """Empties the autocast cast cache (see :func:`ndgrad.is_autocast_cache_enabled`).

    Example::

        >>> torch.clear_autocast_cache()
    """
    _state.cache.clear()


def _deprecated_query(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    """Deprecated form of ``is_autocast_enabled("cpu")`` (it warns).

    Returns:
        bool: the flag.

    Example::

        >>> torch.is_autocast_cpu_enabled()
        False
    """
    _deprecated_query("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    """Deprecated form of ``set_autocast_enabled("cpu", enabled)`` (it warns).

    Args:
        enabled (bool): the new flag.

    Example::

        >>> torch.set_autocast_cpu_enabled(False)
    """
    _deprecated_query("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """Deprecated form of ``get_autocast_dtype("cpu")`` (it warns).

    Returns:
        dtype: the autocast dtype on the CPU.

    Example::

        >>> torch.get_autocast_cpu_dtype()
        torch.bfloat16
    """
    _deprecated_query("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    """Deprecated form of ``set_autocast_dtype("cpu", dtype)`` (it warns).

    Args:
        dtype (dtype): the autocast dtype on the CPU.

    Example::

        >>> torch.set_autocast_cpu_dtype(torch.bfloat16)
    """
    _deprecated_query("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """Deprecated form of ``get_autocast_dtype("cuda")`` (it warns); recorded only, as ndgrad has no CUDA.

    Returns:
        dtype: float16 unless set.

    Example::

        >>> torch.get_autocast_gpu_dtype()
        torch.float16
    """
    _deprecated_query("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    """Deprecated form of ``set_autocast_dtype("cuda", dtype)`` (it warns); recorded only, as ndgrad has no CUDA.

    Args:
        dtype (dtype): the autocast dtype for CUDA.

    Example::

        >>> torch.set_autocast_gpu_dtype(torch.float16)
    """
    _deprecated_query("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


# --- the casts -----------------------------------------------------------------------------------


def _floating(t):
    return isinstance(t, Tensor) and t.dtype.is_floating_point


def _cast(t, dtype):
    """t in `dtype`, a recorded cast; a float32 leaf weight cast down once per region (the cache)."""
    if (_state.cache_enabled and dtype is _state.dtype["cpu"] and t.dtype is _dtype.float32 and t.requires_grad
            and t.is_leaf and t._base is None):
        hit = _state.cache.get(id(t))
        if hit is None or hit[0] is not t:
            hit = _state.cache[id(t)] = (t, t.to(dtype))
        return hit[1]
    return t.to(dtype)


def _map(args, fn):
    return tuple(type(a)(fn(x) for x in a) if type(a) in (list, tuple) else fn(a) for a in args)


def cast_inputs(op_name, args):
    """The op glue's autocast step (set as `ops._registry.autocast` while CPU autocast is on): the
    arguments of op `op_name` (an overload name like "prod.dim_int" allowed) as the policy wants them."""
    if not _state.enabled["cpu"]:
        return args
    name = op_name.partition(".")[0]
    if name in LOWER_PRECISION:
        lower = _state.dtype["cpu"]
        return _map(args, lambda a: _cast(a, lower) if _floating(a) and a.dtype is _dtype.float32 else a)
    if name in FLOAT32:
        return _map(args, lambda a: _cast(a, _dtype.float32) if _floating(a) and a.dtype.itemsize == 2 else a)
    if name in PROMOTE:
        floats = [x for a in args for x in (a if type(a) in (list, tuple) else (a,)) if _floating(x)]
        if len({x.dtype for x in floats}) > 1:
            widest = max((x.dtype for x in floats), key=lambda d: d.itemsize)
            return _map(args, lambda a: _cast(a, widest) if _floating(a) and a.dtype is not widest else a)
    return args


# --- the context manager -------------------------------------------------------------------------


class autocast:
    """A context manager (or decorator) for mixed precision: inside it, the operations that autocast lists
    run in the lower-precision `dtype` (matrix products, convolutions...), the others in float32.

    Args:
        device_type (str): ``"cpu"`` (without CUDA, ``"cuda"`` warns and turns autocast off, as torch does).
        dtype (torch.dtype, optional): the lower precision (default on the CPU: ``torch.bfloat16``).
        enabled (bool): whether autocast is on inside (``False`` turns it off inside an autocast region). Default: ``True``.
        cache_enabled (bool, optional): whether casts of weights are cached inside the region.

    Example::

        >>> a = torch.ones(2, 2)
        >>> with torch.autocast("cpu"):
        ...     b = a @ a
        ...     c = a + a
        >>> b.dtype, c.dtype
        (torch.bfloat16, torch.float32)
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self._enabled = bool(enabled)
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if device_type == "cuda" and self._enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            self._enabled = False
        elif device_type == "cpu" and self._enabled and self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=2)
            self._enabled = False
        elif device_type not in ("cpu", "cuda"):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        if self._enabled and self.fast_dtype is _dtype.bfloat16:
            _dtype.bfloat16.np   # noqa: B018 - bfloat16 needs ml_dtypes: say so when the region starts

    def __enter__(self):
        if self.device != "cpu":
            return self
        self._prev = (is_autocast_enabled("cpu"), get_autocast_dtype("cpu"), is_autocast_cache_enabled())
        set_autocast_enabled("cpu", self._enabled)
        set_autocast_dtype("cpu", self.fast_dtype)
        set_autocast_cache_enabled(self._cache_enabled)
        autocast_increment_nesting()
        return self

    def __exit__(self, *exc):
        if self.device != "cpu":
            return False
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        enabled, dtype, cache = self._prev
        set_autocast_enabled("cpu", enabled)
        set_autocast_dtype("cpu", dtype)
        set_autocast_cache_enabled(cache)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return run


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorates a custom Function's `forward`: it runs with the caller's autocast state, or, with
    `cast_inputs=dtype` inside an autocast region, autocast off and floating tensor inputs cast to
    `dtype`. `custom_bwd` then runs `backward` in the same state as the forward."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(*args, **kwargs):
        ctx, region = args[0], is_autocast_enabled(device_type)
        ctx._dtype = get_autocast_dtype(device_type)
        ctx._fwd_used_autocast = region and cast_inputs is None   # with cast_inputs, backward runs without
        if cast_inputs is None or not region:
            return fwd(*args, **kwargs)
        cast = lambda a: a.to(cast_inputs) if _floating(a) else a   # noqa: E731
        with autocast(device_type, enabled=False):
            return fwd(*_map(args, cast), **{k: cast(v) for k, v in kwargs.items()})
    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorates a custom Function's `backward` (see custom_fwd)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return backward
