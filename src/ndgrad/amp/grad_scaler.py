"""torch.amp.GradScaler: loss scaling for mixed-precision training. On the CPU it works as torch's
does there: the loss is multiplied by the scale, `step` unscales the gradients and skips the
optimizer step when one is inf/NaN, `update` backs the scale off after such a step and grows it
after `growth_interval` clean ones. For device "cuda" (absent here) it disables itself, as torch's
does without CUDA, and every method is a pass-through."""
import warnings
from collections import defaultdict

from .. import _dtype
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import _registry

__all__ = ["GradScaler", "OptState"]

_OPS = _registry.OPS


class OptState:
    READY, UNSCALED, STEPPED = 0, 1, 2


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale, self._growth_factor, self._backoff_factor = init_scale, growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._scale = None
        self._growth_tracker = 0
        self._per_optimizer_states = defaultdict(lambda: {"stage": OptState.READY, "found_inf": None})

    def is_enabled(self):
        return self._enabled

    def _lazy_scale(self):
        if self._scale is None:
            self._scale = _OPS["full"]((), self._init_scale, dtype=_dtype.float32)
        return self._scale

    def scale(self, outputs):
        """outputs (a tensor or nested lists/tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        scale = self._lazy_scale()
        if isinstance(outputs, Tensor):
            return outputs * scale.to(outputs.dtype)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        """Divide the optimizer's gradients by the scale (in place) and note whether one is inf/NaN."""
        if not self._enabled:
            return
        st = self._per_optimizer_states[id(optimizer)]
        if st["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if st["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._lazy_scale().item()
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    p.grad.mul_(inv)
                    found = found or not bool(_OPS["isfinite"](p.grad).all())
        st["found_inf"] = _OPS["tensor"](1.0 if found else 0.0)
        st["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) unless a gradient was inf/NaN (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        st = self._per_optimizer_states[id(optimizer)]
        if st["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] is OptState.READY:
            self.unscale_(optimizer)
        retval = None if st["found_inf"].item() else optimizer.step(*args, **kwargs)
        st["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """The next scale: `new_scale` if given; else backed off if any step this iteration saw inf/NaN,
        grown after growth_interval clean iterations."""
        if not self._enabled:
            return
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else float(new_scale)
            self._scale = _OPS["full"]((), value, dtype=_dtype.float32)
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            scale = self._lazy_scale().item()
            if any(f.item() for f in found):
                scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    scale *= self._growth_factor
                    self._growth_tracker = 0
            self._scale = _OPS["full"]((), scale, dtype=_dtype.float32)
        self._per_optimizer_states.clear()

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        self._scale = None if self._scale is None else _OPS["full"]((), state_dict["scale"], dtype=_dtype.float32)
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
