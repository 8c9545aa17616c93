"""torch.func's helpers for ensembles and for functionalized programs: stack_module_state (the
parameters and buffers of several copies of a model, stacked for vmap), linearize,
replace_all_batch_norm_modules_, debug_unwrap, functionalize."""
import functools

from ..autograd.grad_mode import no_grad
from ..nn.modules.normalization import _BatchNorm
from ..ops.shape import stack
from ._forward import jvp


def _stacked(name, tensors):
    grads = {t.requires_grad for t in tensors}
    if len(grads) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    with no_grad():
        out = stack([t.detach() for t in tensors])
    return out.requires_grad_(grads.pop())


def stack_module_state(models):
    """(params, buffers): for each name, the models' tensors stacked along a new first dim (new
    leaves, requiring grad where the originals do), for functional_call under vmap."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {name: _stacked(name, [dict(m.named_parameters())[name] for m in models])
              for name, _ in models[0].named_parameters()}
    buffers = {name: _stacked(name, [dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is the Jacobian-vector product at primals."""
    out = func(*primals)
    return out, lambda *tangents: jvp(func, primals, tangents)[1]


def replace_all_batch_norm_modules_(root):
    """Make every batch norm in `root` use batch statistics only (no running stats), in place, as
    vmap over a batch of models needs; returns root."""
    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The plain tensor under transform wrappers: ndgrad's transforms do not wrap tensors, so the
    tensor itself."""
    return tensor


def functionalize(func, *, remove="mutations"):
    """func, as a program without mutations would compute it. torch rewrites the traced program;
    ndgrad runs eagerly, where the rewritten program's results and input updates are func's own."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators "
                           "{view} will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def functionalized(*args, **kwargs):
        return func(*args, **kwargs)
    return functionalized
