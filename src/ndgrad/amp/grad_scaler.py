"""GradScaler: loss scaling for mixed precision, as torch's `torch.amp.GradScaler`.

`scale(loss)` multiplies by the scale (65536 at first) so small float16 gradients do not underflow;
`step(optimizer)` divides the gradients back (``unscale_``) and skips the step when any is inf or NaN;
`update()` halves the scale after a skipped step and doubles it after `growth_interval` good ones.
On the CPU it does all of that (torch.amp.GradScaler("cpu")); asked for CUDA, which ndgrad does not
have, it warns and is disabled (scale 1, steps always taken), as torch without CUDA.
"""
import enum
import math
import warnings

from .. import _dtype
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops.creation import full


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


class GradScaler:
    """Gradient scaling for mixed precision training: the loss is multiplied by a scale before
    ``backward()`` so that small float16 gradients do not underflow; :meth:`step` unscales the gradients
    and skips the optimizer step when one is inf or NaN, and :meth:`update` lowers the scale after such a
    step or raises it after `growth_interval` clean ones. ndgrad has no CUDA: use ``device="cpu"`` (with
    the default ``"cuda"`` it warns and disables itself, as torch without CUDA does).

    Args:
        device (str, optional): the device type of the gradients.
        init_scale (float, optional): the first scale.
        growth_factor (float, optional): the scale's factor after `growth_interval` clean steps.
        backoff_factor (float, optional): the scale's factor after a step with inf/NaN gradients.
        growth_interval (int, optional): the number of clean steps between growths.
        enabled (bool, optional): ``False`` makes every method a pass-through.

    Example::

        >>> w = torch.tensor([1.0], requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> scaler = torch.GradScaler("cpu", init_scale=1024.0)
        >>> scaler.scale((w * 2).sum()).backward()
        >>> w.grad
        tensor([2048.])
        >>> scaler.step(opt)
        >>> scaler.update()
        >>> w
        tensor([0.8000], requires_grad=True)
    """
    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None            # a float32 0-d tensor, made at the first scale()
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer = {}      # id(optimizer) -> {"stage": OptState, "found_inf": bool | None}

    def _opt(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": OptState.READY, "found_inf": None})

    def _lazy_init(self):
        if self._scale is None:
            self._scale = full((), self._init_scale, dtype=_dtype.float32)
            self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtype.int32)

    def scale(self, outputs):
        """`outputs` (a tensor, or lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        self._lazy_init()
        if isinstance(outputs, Tensor):
            return outputs * self._scale.to(outputs.dtype)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        """Divides `optimizer`'s gradients by the scale, in place, and notes whether any is inf/NaN."""
        if not self._enabled:
            return
        state = self._opt(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate your script "
                                 "did not use scaler.scale(loss or outputs) earlier in the iteration.")
        inv_scale = 1.0 / self._scale.double().item()
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    p.grad.mul_(inv_scale)
                    found_inf = found_inf or not bool(p.grad.isfinite().all())
        state["found_inf"] = found_inf
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``unscale_`` (if not done yet), then `optimizer.step()` unless a gradient is inf/NaN;
        returns what the step returned, or None when skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._opt(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Adjusts the scale for the next iteration (or sets it to `new_scale`)."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted update but _scale is None.  This may indicate your script "
                                 "did not use scaler.scale(loss or outputs) earlier in the iteration.")
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else float(new_scale)
            self._scale.fill_(value)
        else:
            checks = [s["found_inf"] for s in self._per_optimizer.values() if s["found_inf"] is not None]
            if not checks:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(checks):
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker.fill_(0)
            else:
                tracker = self._growth_tracker.item() + 1
                if tracker == self._growth_interval:
                    scaled = self._scale.item() * self._growth_factor
                    if math.isfinite(scaled):   # never grow the scale to inf
                        self._scale.fill_(scaled)
                    tracker = 0
                self._growth_tracker.fill_(tracker)
        self._per_optimizer.clear()

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

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
