"""torch._C._autograd: saved-tensor and graph internals (see ndgrad._C)."""
