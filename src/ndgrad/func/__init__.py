"""ndgrad.func: torch.func's composable function transforms on ndgrad's autograd.

- grad / grad_and_value / vjp / jacrev: reverse mode, one level per call (see _levels.py), so
  transforms nest: grad(grad(f)), jacrev(jacrev(f)), vmap(grad(f)), grad(vmap(f)) ...
- jvp / jacfwd: forward mode on ndgrad.autograd.forward_ad dual tensors; hessian = jacfwd(jacrev).
- vmap: maps a function over a batch dimension. The path that runs is a loop over the batch
  (the function is called once per sample, the results are stacked), correct for every op and
  with torch's randomness modes; see _vmap.py.
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
