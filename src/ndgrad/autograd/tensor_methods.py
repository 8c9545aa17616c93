"""The hook methods of Tensor: register_hook, register_post_accumulate_grad_hook, retain_grad.
Tensor sits below the autograd core, so the core attaches them to the class (and the autograd
package attaches `backward`)."""
import weakref

from .._hooks import HookDict
from .._tensor import Tensor
from .grad_mode import state


def register_hook(self, hook):
    """Register a backward hook on this tensor: ``hook(grad) -> Tensor or None``.

    The hook is called with the gradient of this tensor each time one is computed, before it is
    used (accumulated into :attr:`grad` for a leaf, passed on to the inputs otherwise); a tensor it
    returns replaces that gradient. It must not modify `grad` in place.

    Args:
        hook (Callable): the hook.

    Returns:
        A handle whose ``remove()`` unregisters the hook.

    Raises:
        RuntimeError: if this tensor does not require grad.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> handle = x.register_hook(lambda grad: grad * 10)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([20., 40.])
        >>> handle.remove()
    """
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    fn = self.grad_fn
    if fn is not None:
        return fn._register_tensor_pre_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = HookDict()
    return self._hooks.add(hook)

def register_post_accumulate_grad_hook(self, hook):
    """Registers ``hook(tensor) -> None``, called on this leaf after its gradient has been
    accumulated into :attr:`grad` in a backward pass (an optimizer step can run there).

    Args:
        hook (Callable): called with this tensor; it can read and change ``tensor.grad``.

    Returns:
        A handle whose ``remove()`` unregisters the hook.

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> h = x.register_post_accumulate_grad_hook(lambda t: print("grad:", t.grad))
        >>> (x * 3).sum().backward()
        grad: tensor([3., 3.])
        >>> h.remove()
    """
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if self._post_acc_hooks is None:
        self._post_acc_hooks = HookDict()
    return self._post_acc_hooks.add(hook)

def retain_grad(self):
    """Makes this non-leaf tensor keep its gradient in :attr:`grad` during backward passes (a leaf
    keeps it already: nothing changes).

    Example::

        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 2
        >>> y.retain_grad()
        >>> y.sum().backward()
        >>> y.grad
        tensor([1., 1.])
    """
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    fn = self.grad_fn
    if fn is None or self._retains_grad:
        return
    ref = weakref.ref(self)

    def retain(grad):
        t = ref()
        if t is None:
            return
        if t._grad is None:
            t._grad = grad.detach().clone() if not state.enabled else grad.clone()
        else:
            t._grad = t._grad + grad
    fn._get_extra().retains_grad_hooks[self._output_nr] = retain
    self._retains_grad = True


for _method in (register_hook, register_post_accumulate_grad_hook, retain_grad):
    setattr(Tensor, _method.__name__, _method)
Tensor._grad_modes = state
