"""ndgrad.nn.utils: torch.nn.utils — gradient clipping (clip_grad), parameters to one vector and
back (convert_parameters), weight_norm, and the submodules rnn (packed sequences), parametrize and
parametrizations."""
from . import parametrizations, parametrize, rnn  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_value_  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grads_with_norm_, get_total_norm  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from . import fusion, memory_format, stateless  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401
from .init import skip_init  # noqa: F401
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: F401
