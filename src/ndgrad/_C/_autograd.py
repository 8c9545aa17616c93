"""torch._C._autograd: saved-tensor and graph internals (see ndgrad._C)."""
from ..autograd.record import _unsafe_set_version_counter  # noqa: F401
