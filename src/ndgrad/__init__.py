"""ndgrad: PyTorch's autograd on NumPy. `import ndgrad as torch` in autograd code.

This module is the torch-like namespace: dtypes, factories, every public op (collected from
`ndgrad/ops/` by the `@op` registry), grad modes and the autograd entry points. It imports the
layers bottom to top (see ARCHITECTURE.md): tensor, autograd core, ops, derivatives, tools, nn...
"""
import warnings as _warnings

# torch computes inf and nan silently where the math gives them (log(0), 1/0, inf - inf); NumPy
# warns. Silence those warnings for NumPy calls made by ndgrad's own code (free, unlike errstate).
_warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero|underflow) encountered",
                         RuntimeWarning, r"ndgrad(\.|$)")

from . import _dtype  # noqa: E402
from ._dtype import (bfloat16, bool_ as bool, complex64, complex128, dtype, float16, float32, float64,  # noqa: F401
                     get_default_dtype, int8, int16, int32, int64, promote_types, set_default_dtype, uint8)
from ._tensor import Size, Tensor, device  # noqa: F401
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
from . import fft  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
from . import nested  # noqa: E402,F401
from ._nested_array import jagged  # noqa: E402,F401
from ._sparse_array import (layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr,  # noqa: E402,F401
                            strided)
from . import profiler, utils  # noqa: E402,F401
from . import special  # noqa: E402,F401
from . import masked  # noqa: E402,F401
from . import distributions  # noqa: E402,F401
from . import func  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401
from .serialization import load, save  # noqa: E402,F401
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
from . import testing  # noqa: E402,F401
from math import e, inf, nan, pi  # noqa: E402,F401
newaxis = None

__version__ = "0.1.0"


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_inference(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_inference()


def numel(input):
    return input.numel()


def result_type(tensor1, tensor2):
    args = [tensor1, tensor2]
    dims = [a.dtype for a in args if isinstance(a, Tensor) and a.ndim]
    zeros = [a.dtype for a in args if isinstance(a, Tensor) and not a.ndim]
    return _dtype.result_type(dims, zeros, [a for a in args if not isinstance(a, Tensor)])


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    return input.is_complex()
