"""ndgrad: PyTorch's autograd on NumPy. `import ndgrad as torch` in autograd code.

This module is the torch-like namespace: dtypes, factories, every public op (collected from
`ndgrad/ops/` by the `@op` registry), grad modes and the autograd entry points. It imports the
layers bottom to top (see ARCHITECTURE.md): tensor, autograd core, ops, derivatives, tools, nn...
"""
import gc as _gc
import importlib as _importlib
import warnings as _warnings

# torch computes inf and nan silently where the math gives them (log(0), 1/0, inf - inf); NumPy
# warns. Silence those warnings for NumPy calls made by ndgrad's own code (free, unlike errstate).
_warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero|underflow) encountered",
                         RuntimeWarning, r"ndgrad(\.|$)")

from . import _native  # noqa: E402
_native.tune()   # glibc's malloc and OpenBLAS's threads set for array workloads (see _native)
from . import _dtype  # noqa: E402
from ._dtype import (bfloat16, bool_ as bool, complex64, complex128, dtype, float16, float32, float64,  # noqa: F401
                     get_default_dtype, int8, int16, int32, int64, promote_types, set_default_dtype, uint8,
                     uint16, uint32, uint64)
from ._tensor import Size, Tensor, device  # noqa: F401
from ._tensor import device as _device_cls  # get_device_module's (its parameter `device` shadows the class)
from ._legacy import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,  # noqa: F401
                      IntTensor, LongTensor, ShortTensor, tensortype)
from ._tensor import (TypedStorage, UntypedStorage, channels_last, channels_last_3d, contiguous_format,  # noqa: F401
                      memory_format, preserve_format)
from . import autograd  # noqa: F401,E402
from . import ops as _ops  # noqa: E402  (registers every op)
from . import derivatives as _derivatives  # noqa: E402,F401  (binds every op to its derivatives.yaml entry)
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled, is_anomaly_enabled,  # noqa: F401
                                    set_anomaly_enabled)
from ._random import Generator, default_generator, manual_seed, seed, initial_seed  # noqa: F401

half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

_ops._registry.install(globals(), Tensor)
from . import nn  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from ._lobpcg import lobpcg  # noqa: E402,F401
from . import fft  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
from . import nested  # noqa: E402,F401
from ._nested_array import SymInt, jagged  # noqa: E402,F401
from ._sparse_array import (layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr,  # noqa: E402,F401
                            strided)
from . import profiler, utils  # noqa: E402,F401
from . import multiprocessing  # noqa: E402,F401  (registers the shared-memory reductions, as torch)
from . import special  # noqa: E402,F401
from . import masked  # noqa: E402,F401
from . import func  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401
from . import _C  # noqa: E402,F401
from . import onnx  # noqa: E402,F401
# the device preamble and process-wide settings of torch programs (ndgrad: CPU only)
from . import accelerator, backends, cuda  # noqa: E402,F401
from ._settings import (are_deterministic_algorithms_enabled, get_default_device,  # noqa: E402,F401
                        get_deterministic_debug_mode, get_num_interop_threads, get_num_threads,
                        is_deterministic_algorithms_warn_only_enabled, set_default_device,
                        set_deterministic_debug_mode, set_num_interop_threads, set_num_threads,
                        use_deterministic_algorithms)
# utilities: dtype limits, print options, testing helpers, math constants
from ._typeinfo import finfo, iinfo  # noqa: E402,F401
from ._repr import set_printoptions  # noqa: E402,F401
from math import e, inf, nan, pi  # noqa: E402,F401
newaxis = None

from .version import __version__  # noqa: E402  (the one place the version is written)
# Imported on first use (PEP 562 module __getattr__): most programs never touch these, and importing
# them eagerly was a third of `import ndgrad`. `ndgrad.X` and `from ndgrad import Y` work as before.
_LAZY_MODULES = frozenset({"distributions", "serialization", "compiler", "testing", "amp", "cpu", "jit", "futures",
                           "types",
                           "xpu", "mps", "distributed", "hub",
                           "quasirandom", "_VF", "_vmap_internals"})
_LAZY_NAMES = {"load": "serialization", "save": "serialization",
               "compile": "compiler",   # shadows the builtin in this namespace, as torch.compile
               "autocast": "amp", "GradScaler": "amp.grad_scaler",
               **dict.fromkeys(("autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache",
                                "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype",
                                "is_autocast_cache_enabled", "is_autocast_cpu_enabled", "is_autocast_enabled",
                                "set_autocast_cache_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
                                "set_autocast_dtype", "set_autocast_enabled", "set_autocast_gpu_dtype"),
                               "amp.autocast_mode"),
               **dict.fromkeys(("sym_float", "sym_int", "sym_ite", "sym_max", "sym_min", "sym_not", "sym_sqrt",
                                "sym_sum"), "_sym"),
               "cond": "_higher_order_ops", "while_loop": "_higher_order_ops",
               **dict.fromkeys(("has_lapack", "has_mkl", "has_openmp", "has_spectral"), "_build")}


def __getattr__(name):
    if name in _LAZY_MODULES:
        return _importlib.import_module(f".{name}", __name__)   # the import binds it in this namespace
    where = _LAZY_NAMES.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | _LAZY_MODULES | set(_LAZY_NAMES))



def get_device_module(device=None):
    """The namespace of a device type (``ndgrad.cuda`` for ``"cuda:0"``); with no device, the current
    accelerator's, which is ``ndgrad.cpu`` since ndgrad computes on the CPU.

    Args:
        device (torch.device, str or None): the device.

    Returns:
        module: ``ndgrad.<device type>``.

    Raises:
        RuntimeError: for anything but a device, a string or None, or a device type without a namespace.

    Example::

        >>> torch.get_device_module().__name__, torch.get_device_module("cuda:0").__name__
        ('ndgrad.cpu', 'ndgrad.cuda')
    """
    if isinstance(device, _device_cls):
        name = device.type
    elif isinstance(device, str):
        name = _device_cls(device).type
    elif device is None:
        name = "cpu"   # no accelerator: torch answers with its CPU namespace too
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = globals().get(name) if name not in _LAZY_MODULES else __getattr__(name)
    if not isinstance(module, type(_importlib)):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return module


def is_tensor(obj):
    """Whether `obj` is a tensor (an instance of :class:`ndgrad.Tensor` or of a subclass).

    Args:
        obj (object): anything.

    Returns:
        bool: ``True`` for a tensor.

    Example::

        >>> torch.is_tensor(torch.zeros(1)), torch.is_tensor([1.0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def is_inference(input):
    """Whether `input` is an inference tensor (made under :class:`ndgrad.inference_mode`).

    Args:
        input (Tensor): the tensor.

    Returns:
        bool: ``True`` for an inference tensor.

    Example::

        >>> with torch.inference_mode():
        ...     x = torch.ones(1)
        >>> torch.is_inference(x), torch.is_inference(torch.ones(1))
        (True, False)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_inference()


def numel(input):
    """The number of elements of `input`.

    Args:
        input (Tensor): the tensor.

    Returns:
        int: the product of its sizes.

    Example::

        >>> torch.numel(torch.zeros(2, 3))
        6
    """
    return input.numel()


def result_type(tensor1, tensor2):
    """The dtype that an arithmetic op on the two operands would return, by torch's type
    promotion rules (dimensioned tensors outrank 0-D ones, which outrank Python numbers, within a category).

    Args:
        tensor1 (Tensor or Number): the first operand.
        tensor2 (Tensor or Number): the second operand.

    Returns:
        dtype: the promoted dtype.

    Example::

        >>> torch.result_type(torch.tensor([1]), 1.0)
        torch.float32
        >>> torch.result_type(torch.tensor([1], dtype=torch.int32), torch.tensor(1))
        torch.int32
    """
    args = [tensor1, tensor2]
    dims = [a.dtype for a in args if isinstance(a, Tensor) and a.ndim]
    zeros = [a.dtype for a in args if isinstance(a, Tensor) and not a.ndim]
    return _dtype.result_type(dims, zeros, [a for a in args if not isinstance(a, Tensor)])


def is_floating_point(input):
    """Whether the dtype of `input` is a floating point one (float16, bfloat16, float32, float64).

    Args:
        input (Tensor): the tensor.

    Returns:
        bool: ``True`` for a floating dtype.

    Example::

        >>> torch.is_floating_point(torch.tensor([1.0])), torch.is_floating_point(torch.tensor([1]))
        (True, False)
    """
    return input.is_floating_point()


def is_complex(input):
    """Whether the dtype of `input` is a complex one (complex64, complex128).

    Args:
        input (Tensor): the tensor.

    Returns:
        bool: ``True`` for a complex dtype.

    Example::

        >>> torch.is_complex(torch.tensor([1j])), torch.is_complex(torch.tensor([1.0]))
        (True, False)
    """
    return input.is_complex()


# ---- api: more of torch's top-level names (see ndgrad/_api.py, `python -m ndgrad api`)
from ._legacy import (BoolStorage, ByteStorage, CharStorage, ComplexDoubleStorage,  # noqa: E402,F401
                      ComplexFloatStorage, DoubleStorage, FloatStorage, HalfStorage, BFloat16Storage, IntStorage, LongStorage,
                      ShortStorage, Storage, StorageBase, is_storage)
from ._settings import (get_float32_matmul_precision, init_num_threads, is_warn_always_enabled,  # noqa: E402,F401
                        set_float32_matmul_precision, set_flush_denormal, set_warn_always)
from .ops.reduction import return_types  # noqa: E402,F401
from .nn.functional.distance import cosine_similarity, pairwise_distance  # noqa: E402,F401
from .nn.functional.distance import triplet_margin_loss as _triplet_margin_loss  # noqa: E402
from .ops.loss import _reduction_name  # noqa: E402
from . import random, version  # noqa: E402,F401
from . import functional, overrides, signal, storage, torch_version  # noqa: E402,F401
from .random import thread_safe_generator  # noqa: E402,F401
from .signal import windows  # noqa: E402,F401  (torch re-exports torch.signal.windows at the top level)
from . import library  # noqa: E402,F401  (torch.library: custom ops; their namespaces land in ndgrad.ops)
from .ops._torch_function import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402,F401
legacy_contiguous_format = contiguous_format   # torch's old name for it, the same object

# function forms of in-place and detaching methods
detach, detach_, addmv_, as_strided_, resize_as_, i0_ = (Tensor.detach, Tensor.detach_, Tensor.addmv_,
                                                        Tensor.as_strided_, Tensor.resize_as_, Tensor.i0_)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, reduction=0):
    """The triplet margin loss (as :func:`ndgrad.nn.functional.triplet_margin_loss`), in aten's form:
    `reduction` is an int, 0 for ``'none'``, 1 for ``'mean'``, 2 for ``'sum'``.

    Args:
        anchor (Tensor): the anchors, (N, D).
        positive (Tensor): the positive examples, (N, D).
        negative (Tensor): the negative examples, (N, D).
        margin (float): the margin. Default: ``1.0``.
        p (float): the order of the distance norm. Default: ``2``.
        eps (float): added to the differences before the norm. Default: ``1e-6``.
        swap (bool): use the positive-negative distance where it is smaller. Default: ``False``.
        reduction (int): 0 none, 1 mean, 2 sum. Default: ``0``.

    Returns:
        Tensor: the loss.

    Example::

        >>> a = torch.tensor([[0.0, 0.0]])
        >>> p = torch.tensor([[1.0, 0.0]])
        >>> n = torch.tensor([[0.0, 3.0]])
        >>> torch.triplet_margin_loss(a, p, n, margin=3.0, eps=0.0)
        tensor([1.])
    """
    red = _reduction_name(reduction, "triplet_margin_loss")
    return _triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=red)


def typename(obj):
    """The type name of `obj`: the legacy tensor type of a tensor (``'torch.FloatTensor'``), else the
    dotted name of `obj` (a class or function) or of its class.

    Args:
        obj (object): any object.

    Returns:
        str: the name.

    Example::

        >>> torch.typename(torch.zeros(2, dtype=torch.int64))
        'torch.LongTensor'
        >>> torch.typename(1.5)
        'float'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    named = obj if hasattr(obj, "__qualname__") else type(obj)
    module = getattr(named, "__module__", "") or ""
    return named.__qualname__ if module in ("", "builtins") else f"{module}.{named.__qualname__}"


def can_cast(from_, to):
    """Whether type promotion allows casting from `from_` to `to`: never to a lower kind (bool, then
    integer, then floating point, then complex), any size within a kind.

    Args:
        from_ (torch.dtype): the dtype to cast from.
        to (torch.dtype): the dtype to cast to.

    Returns:
        bool: whether the cast is allowed.

    Example::

        >>> torch.can_cast(torch.float64, torch.float32)
        True
        >>> torch.can_cast(torch.float32, torch.int32)
        False
    """
    def kind(d):
        return 3 if d.is_complex else 2 if d.is_floating_point else 0 if d is _dtype.bool_ else 1
    return kind(from_) <= kind(to)


def get_device(input):
    """The index of the device `input` is on: -1 for a CPU tensor (in ndgrad, every tensor but those of the
    CuPy backend).

    Args:
        input (Tensor): the tensor.

    Returns:
        int: the device index.

    Example::

        >>> torch.get_device(torch.zeros(2))
        -1
    """
    return -1


def set_default_tensor_type(t):
    """Sets the default floating-point dtype from a float tensor type (deprecated in torch, which warns:
    use :func:`ndgrad.set_default_dtype`).

    Args:
        t (type or str): ``torch.FloatTensor``, ``torch.DoubleTensor`` (or its name, ``"torch.DoubleTensor"``)...

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     torch.set_default_tensor_type(torch.DoubleTensor)
        ...     print(torch.zeros(1).dtype)
        ...     torch.set_default_tensor_type(torch.FloatTensor)
        torch.float64
    """
    _warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                   "torch.set_default_dtype() and torch.set_default_device() as alternatives. ", stacklevel=2)
    if isinstance(t, str):
        if not t.startswith("torch.") or not isinstance(globals().get(t[len("torch."):]), tensortype):
            raise NotImplementedError(f"set_default_tensor_type({t!r}): ndgrad has only the CPU tensor types")
        t = globals()[t[len("torch."):]]
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(t.dtype)


def is_distributed(input):
    """Whether `input` is a distributed tensor: always ``False`` (ndgrad's tensors live in one process;
    :mod:`ndgrad.distributed` works with plain tensors).

    Args:
        input (Tensor): the tensor.

    Returns:
        bool: ``False``.

    Example::

        >>> torch.is_distributed(torch.zeros(2))
        False
    """
    return False


gcd_, lcm_ = Tensor.gcd_, Tensor.lcm_


def to_dlpack(tensor):
    """A DLPack capsule that shares the memory of `tensor`, for another library's ``from_dlpack``
    (a capsule can be consumed once).

    Args:
        tensor (Tensor): the tensor to export.

    Returns:
        PyCapsule: the capsule.

    Example::

        >>> t = torch.arange(3)
        >>> torch.from_dlpack(torch.to_dlpack(t))
        tensor([0, 1, 2])
    """
    return tensor.__dlpack__()

# the ops' docstrings (ndgrad/_docs), then the Tensor methods that only point to their namesake function
from . import _docs  # noqa: E402
_docs.attach(globals(), "torch_math")
_docs.attach(globals(), "torch_tensors")
_docs.attach(Tensor, "tensor")
_docs.attach_tensor_methods(Tensor, globals())

# The objects made by importing ndgrad (and numpy/scipy before it: tens of thousands of functions,
# classes, op specs) live as long as the process. Left in the collector's oldest generation, every full
# collection walks them all again, and a long forward pass, which creates many surviving nodes, triggers
# such collections repeatedly: about a fifth of the per-node cost of a long chain. Moved out of the
# collector's view once, here; objects made later are collected as usual.
_gc.freeze()

import typing as _typing  # noqa: E402


# ---- for type checkers (generated by tools/gen_type_exports.py: do not edit by hand): the names above,
# imported again from the modules that define them, so that `mypy --strict` sees them as exported
if _typing.TYPE_CHECKING:
    from typing import Any as _Any
    from ndgrad._dtype import (dtype as dtype, get_default_dtype as get_default_dtype,  # noqa: F401,F811
        promote_types as promote_types, set_default_dtype as set_default_dtype)
    from ndgrad._legacy import (is_storage as is_storage, tensortype as tensortype)  # noqa: F401,F811
    from ndgrad._lobpcg import lobpcg as lobpcg  # noqa: F401,F811
    from ndgrad._nested_array import SymInt as SymInt  # noqa: F401,F811
    from ndgrad._random import (Generator as Generator, initial_seed as initial_seed,  # noqa: F401,F811
        manual_seed as manual_seed, seed as seed)
    from ndgrad._repr import set_printoptions as set_printoptions  # noqa: F401,F811
    from ndgrad._settings import (  # noqa: F401,F811
        are_deterministic_algorithms_enabled as are_deterministic_algorithms_enabled,
        get_default_device as get_default_device,
        get_deterministic_debug_mode as get_deterministic_debug_mode,
        get_float32_matmul_precision as get_float32_matmul_precision,
        get_num_interop_threads as get_num_interop_threads, get_num_threads as get_num_threads,
        init_num_threads as init_num_threads,
        is_deterministic_algorithms_warn_only_enabled as is_deterministic_algorithms_warn_only_enabled,
        is_warn_always_enabled as is_warn_always_enabled, set_default_device as set_default_device,
        set_deterministic_debug_mode as set_deterministic_debug_mode,
        set_float32_matmul_precision as set_float32_matmul_precision,
        set_flush_denormal as set_flush_denormal, set_num_interop_threads as set_num_interop_threads,
        set_num_threads as set_num_threads, set_warn_always as set_warn_always,
        use_deterministic_algorithms as use_deterministic_algorithms)
    from ndgrad._sparse_array import layout as layout  # noqa: F401,F811
    from ndgrad._tensor import (Size as Size, Tensor as Tensor, TypedStorage as TypedStorage,  # noqa: F401,F811
        UntypedStorage as StorageBase, UntypedStorage as UntypedStorage, device as device,
        memory_format as memory_format)
    from ndgrad._typeinfo import (finfo as finfo, iinfo as iinfo)  # noqa: F401,F811
    from ndgrad.amp.autocast_mode import (autocast as autocast,  # noqa: F401,F811
        autocast_decrement_nesting as autocast_decrement_nesting,
        autocast_increment_nesting as autocast_increment_nesting,
        clear_autocast_cache as clear_autocast_cache, get_autocast_cpu_dtype as get_autocast_cpu_dtype,
        get_autocast_dtype as get_autocast_dtype, get_autocast_gpu_dtype as get_autocast_gpu_dtype,
        is_autocast_cache_enabled as is_autocast_cache_enabled,
        is_autocast_cpu_enabled as is_autocast_cpu_enabled, is_autocast_enabled as is_autocast_enabled,
        set_autocast_cache_enabled as set_autocast_cache_enabled,
        set_autocast_cpu_dtype as set_autocast_cpu_dtype,
        set_autocast_cpu_enabled as set_autocast_cpu_enabled, set_autocast_dtype as set_autocast_dtype,
        set_autocast_enabled as set_autocast_enabled, set_autocast_gpu_dtype as set_autocast_gpu_dtype)
    from ndgrad.amp.grad_scaler import GradScaler as GradScaler  # noqa: F401,F811
    from ndgrad.autograd.anomaly_mode import (is_anomaly_check_nan_enabled as is_anomaly_check_nan_enabled,  # noqa: F401,F811
        is_anomaly_enabled as is_anomaly_enabled, set_anomaly_enabled as set_anomaly_enabled)
    from ndgrad.autograd.grad_mode import (enable_grad as enable_grad, inference_mode as inference_mode,  # noqa: F401,F811
        is_grad_enabled as is_grad_enabled, is_inference_mode_enabled as is_inference_mode_enabled,
        no_grad as no_grad, set_grad_enabled as set_grad_enabled)
    from ndgrad.compiler import compile as compile  # noqa: F401,F811
    from ndgrad.func._vmap import vmap as vmap  # noqa: F401,F811
    from ndgrad.nn.functional.distance import (cosine_similarity as cosine_similarity,  # noqa: F401,F811
        pairwise_distance as pairwise_distance)
    from ndgrad.ops._torch_function import (DisableTorchFunction as DisableTorchFunction,  # noqa: F401,F811
        DisableTorchFunctionSubclass as DisableTorchFunctionSubclass)
    from ndgrad.ops.shape import as_strided_ as as_strided_  # noqa: F401,F811
    from ndgrad.random import thread_safe_generator as thread_safe_generator  # noqa: F401,F811
    from ndgrad.serialization import (load as load, save as save)  # noqa: F401,F811

    __all__ = ["BFloat16Storage", "BFloat16Tensor", "BoolStorage", "BoolTensor", "ByteStorage", "ByteTensor",
        "CharStorage", "CharTensor", "ComplexDoubleStorage", "ComplexFloatStorage", "DisableTorchFunction",
        "DisableTorchFunctionSubclass", "DoubleStorage", "DoubleTensor", "FloatStorage", "FloatTensor",
        "Generator", "GradScaler", "HalfStorage", "HalfTensor", "IntStorage", "IntTensor", "LongStorage",
        "LongTensor", "ShortStorage", "ShortTensor", "Size", "Storage", "StorageBase", "SymInt", "Tensor",
        "TypedStorage", "UntypedStorage", "accelerator", "addmv_", "are_deterministic_algorithms_enabled",
        "as_strided_", "autocast", "autocast_decrement_nesting", "autocast_increment_nesting", "autograd",
        "backends", "bfloat16", "bool", "can_cast", "cdouble", "cfloat", "channels_last", "channels_last_3d",
        "clear_autocast_cache", "compile", "complex128", "complex64", "contiguous_format",
        "cosine_similarity", "cuda", "default_generator", "detach", "detach_", "device", "double", "dtype",
        "e", "enable_grad", "fft", "finfo", "float", "float16", "float32", "float64", "func", "functional",
        "gcd_", "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype",
        "get_default_device", "get_default_dtype", "get_deterministic_debug_mode", "get_device",
        "get_device_module", "get_float32_matmul_precision", "get_num_interop_threads", "get_num_threads",
        "half", "i0_", "iinfo", "inf", "inference_mode", "init_num_threads", "initial_seed", "int", "int16",
        "int32", "int64", "int8", "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
        "is_autocast_cache_enabled", "is_autocast_cpu_enabled", "is_autocast_enabled", "is_complex",
        "is_deterministic_algorithms_warn_only_enabled", "is_distributed", "is_floating_point",
        "is_grad_enabled", "is_inference", "is_inference_mode_enabled", "is_storage", "is_tensor",
        "is_warn_always_enabled", "jagged", "layout", "lcm_", "legacy_contiguous_format", "library",
        "linalg", "load", "lobpcg", "long", "manual_seed", "masked", "memory_format", "multiprocessing",
        "nan", "nested", "newaxis", "nn", "no_grad", "numel", "onnx", "optim", "overrides",
        "pairwise_distance", "pi", "preserve_format", "profiler", "promote_types", "random", "resize_as_",
        "result_type", "return_types", "save", "seed", "set_anomaly_enabled", "set_autocast_cache_enabled",
        "set_autocast_cpu_dtype", "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
        "set_autocast_gpu_dtype", "set_default_device", "set_default_dtype", "set_default_tensor_type",
        "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_flush_denormal",
        "set_grad_enabled", "set_num_interop_threads", "set_num_threads", "set_printoptions",
        "set_warn_always", "short", "signal", "sparse", "sparse_bsc", "sparse_bsr", "sparse_coo",
        "sparse_csc", "sparse_csr", "special", "storage", "strided", "tensortype", "thread_safe_generator",
        "to_dlpack", "torch_version", "triplet_margin_loss", "typename", "uint16", "uint32", "uint64",
        "uint8", "use_deterministic_algorithms", "utils", "version", "vmap", "windows"]

    # the 594 names installed at import (the op registry's functions, ...)
    def __getattr__(name: str) -> _Any: ...
