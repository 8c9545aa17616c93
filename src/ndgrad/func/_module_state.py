"""torch.func's smaller helpers: linearize, replace_all_batch_norm_modules_ (for vmap over
ensembles), debug_unwrap, functionalize."""
import functools

from ..nn.modules.normalization import _BatchNorm
from ._forward import jvp


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
