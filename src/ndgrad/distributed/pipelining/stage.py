"""Pipeline stages: one piece of a model, run microbatch by microbatch, and how a model is cut.

A PipelineStage runs its module's forward for one microbatch at a time, keeps what the
backward needs, and runs the backward whole (B) or split (I now, W later; see _backward.py).
It does no communication itself: the schedule (schedules.py) hands it its inputs and sends its
results through a transport (_transport.py).
"""
import contextlib
import enum

from ...autograd.grad_mode import no_grad
from ...nn import Module, Sequential
from ...ops.creation import zeros_like
from ._backward import stage_backward, stage_backward_input, stage_backward_weight

__all__ = ["PipelineStage", "SplitPoint", "pipeline", "Pipe"]


class PipelineStage:
    """Stage `stage_index` of `num_stages`: runs `submodule` on the microbatches of each step."""

    def __init__(self, submodule, stage_index, num_stages, device=None, group=None):
        if not 0 <= stage_index < num_stages:
            raise ValueError(f"PipelineStage: stage_index {stage_index} is out of range for {num_stages} stages")
        self.submod = submodule
        self.stage_index = stage_index
        self.num_stages = num_stages
        self.group = group
        self.fwd_cache = {}      # microbatch -> (inputs, outputs) until its backward
        self.bwd_cache = {}      # microbatch -> param groups until its weight pass

    is_first = property(lambda self: self.stage_index == 0)
    is_last = property(lambda self: self.stage_index == self.num_stages - 1)

    def __repr__(self):
        return f"PipelineStage(stage_index={self.stage_index}, num_stages={self.num_stages})"

    def parameters(self):
        return [p for p in self.submod.parameters() if p.requires_grad]

    def forward_one_chunk(self, mb, args, kwargs=None):
        """Run the module on microbatch `mb`; returns its outputs as a tuple."""
        if not self.is_first:   # received activations become leaves whose gradient goes back
            args = tuple(a.detach().requires_grad_(a.is_floating_point() or a.is_complex()) for a in args)
        out = self.submod(*args, **(kwargs or {}))
        outputs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        self.fwd_cache[mb] = (args, outputs)
        return outputs

    def _backward_target(self, mb, output_grads, loss):
        inputs, outputs = self.fwd_cache.pop(mb)
        if self.is_last:
            if loss is None:
                raise RuntimeError(f"stage {self.stage_index}: the last stage needs a loss to run backward "
                                   "(give the schedule a loss_fn)")
            return inputs, [loss], None
        return inputs, list(outputs), list(output_grads)

    def _maybe_no_sync(self, last_backward):
        """A data-parallel stage module reduces its gradients only in the step's last weight backward."""
        no_sync = getattr(self.submod, "no_sync", None)
        return no_sync() if no_sync is not None and not last_backward else contextlib.nullcontext()

    def backward_one_chunk(self, mb, output_grads=None, loss=None, full_backward=True, last_backward=False):
        """Backward of microbatch `mb` (all of it, or the input half); returns the input gradients."""
        inputs, outputs, grads = self._backward_target(mb, output_grads, loss)
        if full_backward:
            with self._maybe_no_sync(last_backward):
                dinputs = stage_backward(outputs, grads, inputs)
        else:
            dinputs, self.bwd_cache[mb] = stage_backward_input(outputs, grads, inputs, self.parameters())
        # an input that gets no gradient (unused, or not differentiable) is sent back as zeros
        return tuple(zeros_like(x) if g is None else g for g, x in zip(dinputs, inputs))

    def backward_weight_one_chunk(self, mb, last_backward=False):
        """The weight half of microbatch `mb`'s backward (after backward_one_chunk(full_backward=False))."""
        if mb not in self.bwd_cache:
            raise RuntimeError(f"stage {self.stage_index}: weight backward of microbatch {mb} before its input "
                               "backward")
        with self._maybe_no_sync(last_backward):
            stage_backward_weight(self.parameters(), self.bwd_cache.pop(mb))

    def scale_grads(self, grad_scale_factor):
        with no_grad():
            for p in self.parameters():
                if p.grad is not None:
                    p.grad.div_(grad_scale_factor)

    def clear_runtime_states(self):
        self.fwd_cache.clear()
        self.bwd_cache.clear()


class SplitPoint(enum.Enum):
    BEGINNING = 1   # a new stage starts at the named module
    END = 2         # a new stage starts after it


def _flatten(module, prefix=""):
    """(qualified name, module) of the modules a Sequential calls in order, nested ones expanded."""
    if type(module) is Sequential:
        return [item for name, child in module.named_children()
                for item in _flatten(child, f"{prefix}{name}.")]
    return [(prefix[:-1], module)]


class Pipe:
    """A model cut into stage modules (`pipeline(...)`); `build_stage` wraps one in a PipelineStage."""

    def __init__(self, stage_modules):
        self.stage_modules = stage_modules
        self.num_stages = len(stage_modules)

    def get_stage_module(self, stage_index):
        return self.stage_modules[stage_index]

    def build_stage(self, stage_index, device=None, group=None):
        return PipelineStage(self.stage_modules[stage_index], stage_index, self.num_stages, device, group)


def pipeline(module, split_spec=None, num_stages=None):
    """Cut a model that runs its modules in order (nn.Sequential, nested ones too, or a list).

    split_spec: {qualified module name: SplitPoint}, e.g. {"layers.2": SplitPoint.BEGINNING};
    or num_stages: cut into that many stages of as equal a number of modules as possible.
    The stage modules share the model's modules (and so its parameters)."""
    items = (_flatten(module) if isinstance(module, Module) else
             [(str(i), m) for i, m in enumerate(module)])
    if len(items) == 1 and not isinstance(module, (list, tuple)):
        raise ValueError(f"pipeline: cannot cut a {type(module).__name__}: only nn.Sequential models (or a list "
                         "of modules run in order) can be split into stages")
    names = [n for n, _ in items]
    if (split_spec is None) == (num_stages is None):
        raise ValueError("pipeline: give either split_spec or num_stages")
    if num_stages is not None:
        if not 1 <= num_stages <= len(items):
            raise ValueError(f"pipeline: cannot cut {len(items)} modules into {num_stages} stages")
        starts = [len(items) * k // num_stages for k in range(num_stages)]
    else:
        starts = {0}
        for name, point in split_spec.items():
            if name not in names:
                raise ValueError(f"pipeline: no module named {name!r} to split at; the modules run in order are "
                                 f"{names}")
            starts.add(names.index(name) + (point is SplitPoint.END))
        starts = sorted(s for s in starts if s < len(items))
    bounds = list(starts) + [len(items)]
    return Pipe([Sequential(*(m for _, m in items[a:b])) for a, b in zip(bounds, bounds[1:])])
