"""ndgrad.nn.functional: torch.nn.functional's API, one module per op family (the family names of
ndgrad/ops/).

The kernels live in ops/; the functions here pick among them and compose them the way torch does
(cross_entropy is log_softmax then nll_loss, linear is addmm or matmul...), so a call records the
graph torch records. Functions ops/ already offers with nn.functional's signature are re-exported.
"""
import warnings  # noqa: F401

from ...ops import loss as _ops  # noqa: F401
from ...ops.linalg import broadcast_shape  # noqa: F401
from ...ops._torch_function import (handle_torch_function, has_torch_function,  # noqa: F401
                                  has_torch_function_unary, has_torch_function_variadic)
from .activation import *  # noqa: F401,F403
from .activation import _softmax_dim  # noqa: F401
from .attention import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .loss import REDUCTIONS, _class_shape, _cross_entropy_probs, _nll_loss_nd, _reduction  # noqa: F401
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
