"""torch.func's smaller helpers: linearize, replace_all_batch_norm_modules_ (for vmap over
ensembles), debug_unwrap, functionalize."""
import functools

from ..nn.modules.normalization import _BatchNorm
from ._forward import jvp


def linearize(func, *primals):
    """``func(*primals)`` and a function giving Jacobian-vector products at `primals`.

    Useful when many JVPs are needed at one point. torch traces `func` once and replays the
    linearized program; ndgrad calls :func:`jvp` again for each call of ``jvp_fn``, with the same
    results.

    Args:
        func (callable): a function of tensors returning a tensor or a pytree of tensors.
        primals (Tensor): the point of evaluation, as positional arguments of `func`.

    Returns:
        tuple: ``(output, jvp_fn)``; ``jvp_fn(*tangents)`` takes one tangent per primal and returns
        the JVP, shaped like the output.

    Example::

        >>> out, jvp_fn = torch.func.linearize(torch.sin, torch.tensor([0.0, 1.0]))
        >>> out
        tensor([0.0000, 0.8415])
        >>> jvp_fn(torch.ones(2))
        tensor([1.0000, 0.5403])
    """
    out = func(*primals)
    return out, lambda *tangents: jvp(func, primals, tangents)[1]


def replace_all_batch_norm_modules_(root):
    """Make every batch norm module in `root` use the statistics of its batch only, in place.

    Their running statistics are removed (``running_mean``, ``running_var`` and
    ``num_batches_tracked`` become None, ``track_running_stats`` False), as :func:`vmap` over a
    batch of models (or of inputs) needs: an update of shared running statistics cannot be batched.

    Args:
        root (Module): the module whose submodules (and itself) are changed.

    Returns:
        Module: `root`.

    Example::

        >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
        >>> net = torch.func.replace_all_batch_norm_modules_(net)
        >>> net[1].running_mean is None, net[1].track_running_stats
        (True, False)
    """
    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under the wrappers that function transforms put around it.

    In torch, tensors seen inside :func:`grad` or :func:`vmap` are wrapped (the printed value
    shows the wrapper); this gives the plain tensor, for debugging. ndgrad's transforms do not wrap
    tensors, so it returns `tensor` itself.

    Args:
        tensor (Tensor): a tensor, possibly seen inside a transform.
        recurse (bool, optional): unwrap every level (torch); ignored here. Default: True.

    Returns:
        Tensor: the unwrapped tensor.

    Example::

        >>> x = torch.tensor([1.0, 2.0])
        >>> torch.func.debug_unwrap(x)
        tensor([1., 2.])
    """
    return tensor


def functionalize(func, *, remove="mutations"):
    """`func`, run as its program with the mutations removed would run.

    torch traces `func` and rewrites in-place and ``out=`` operations (and with
    ``remove="mutations_and_views"`` views too) into out-of-place ones, copying the final values
    back into mutated inputs. ndgrad runs eagerly: the rewritten program's results and input updates
    are those of `func` itself, so the returned function calls `func`.

    Args:
        func (callable): a function of tensors.
        remove (str, optional): ``"mutations"`` or ``"mutations_and_views"``. Default:
            ``"mutations"``.

    Returns:
        callable: a function with `func`'s signature and results.

    Example::

        >>> def f(a):
        ...     b = a.clone()
        ...     b.add_(1)
        ...     return b * 2
        >>> torch.func.functionalize(f)(torch.tensor([1.0, 2.0]))
        tensor([4., 6.])
    """
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
