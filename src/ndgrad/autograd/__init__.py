"""ndgrad.autograd: the torch.autograd namespace — backward and grad (differentiate.py), grad
modes, custom Functions, forward AD, the graph API, gradcheck, functional, anomaly mode, profiler.
"""
from . import engine, graph  # noqa: F401
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,  # noqa: F401
                        no_grad, set_grad_enabled)
from .node import GradientEdge, Node  # noqa: F401
from . import tensor_methods  # noqa: F401  (Tensor.register_hook, retain_grad, ...)
from .differentiate import _calculate_shape, backward, grad  # noqa: F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from . import _functions, function, functional  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .anomaly_mode import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,  # noqa: F401
                           set_detect_anomaly)
from .grad_mode import (_force_original_view_tracking, _is_view_replay_enabled,  # noqa: F401
                        is_multithreading_enabled, set_multithreading_enabled)
from .variable import Variable  # noqa: F401
from .grad_mode import _is_view_replay_enabled as is_view_replay_enabled  # noqa: F401,E402
from .record import _unsafe_preserve_version_counter  # noqa: F401,E402
from . import profiler  # noqa: F401
from .profiler import _profiler_enabled, kineto_available  # noqa: F401
from .graph import SavedTensor  # noqa: F401
from ..overrides import handle_torch_function, has_torch_function, is_tensor_like  # noqa: F401,E402
from . import profiler_util  # noqa: F401,E402
from ..profiler import ProfilerActivity  # noqa: F401,E402  (torch.autograd's is torch.profiler's)
