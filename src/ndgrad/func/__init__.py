"""ndgrad.func: torch.func's composable function transforms on ndgrad's autograd.

- grad / grad_and_value / vjp / jacrev: reverse mode, one level per call (see _levels.py), so
  transforms nest: grad(grad(f)), jacrev(jacrev(f)), vmap(grad(f)), grad(vmap(f)) ...
- jvp: forward mode on ndgrad.autograd.forward_ad dual tensors; jacfwd = vmap of jvp over the
  basis (inside a batched run, or a dual level, the jvp is a double vjp); hessian = jacfwd(jacrev).
- jacrev = vmap of vjp over the rows of an identity: one batched backward pass.
- vmap: maps a function over a batch dimension by running it once on batched tensors, one array
  call per op by batching rules (_batching.py); nested vmaps, and autograd through them, stay
  batched. What cannot be batched falls back to a loop over the samples; see _vmap.py.
- functional_call: runs a module with parameters and buffers swapped for given tensors.
Inputs and outputs may be pytrees of tensors (tuples, lists, dicts: ndgrad.utils._pytree).
"""
from ._forward import hessian, jacfwd, jvp
from ._functional_call import functional_call, stack_module_state
from ._reverse import grad, grad_and_value, jacrev, vjp
from ._vmap import vmap
from ._module_state import debug_unwrap, functionalize, linearize, replace_all_batch_norm_modules_
from ._rearrange import rearrange

__all__ = ["debug_unwrap", "functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev",
           "jvp", "linearize", "rearrange", "replace_all_batch_norm_modules_", "stack_module_state", "vjp", "vmap"]
