"""Typed pointers from integer addresses, for numba-compiled code that receives arrays as (address, sizes)
(the native pool's jobs: _pool_kernels.py, ops/_numba_kernels.py). Imports numba: loaded on first use only."""
from numba import types
from numba.extending import intrinsic


def _pointer_to(dtype):
    @intrinsic
    def at(typingctx, address):
        def codegen(context, builder, sig, args):
            return builder.inttoptr(args[0], context.get_value_type(sig.return_type))
        return types.CPointer(dtype)(address), codegen
    return at


f32_at, f64_at, i64_at = _pointer_to(types.float32), _pointer_to(types.float64), _pointer_to(types.int64)
bool_at = _pointer_to(types.boolean)
