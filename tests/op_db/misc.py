"""Registry entries for the misc family (ndgrad/ops/misc.py): triangular parts, rot90, block_diag,
diag_embed, the unique ops, aliases and copies with their own nodes, _masked_softmax and torch's
private autograd test ops. See op_db/__init__.py for the format.

The unique ops have no derivative (in torch either): their entries check the node name only;
tests/test_misc.py compares their values and backward errors with torch.
"""
from . import B, OpInfo, S

# masks with at least one kept entry per softmax row (a fully masked row is NaN, as in torch)
_MASK = B(2, 3, values=[[False, True, False], [True, False, False]])
_NO_GRAD = dict(check_grad=False, torch_parity=False)

OPS = [
    # triangular parts (in place: on a non-leaf copy, as leaves refuse in-place ops)
    OpInfo("tril", lambda T, x: T.tril(x), [S(3, 4)], grad_fn="TrilBackward0"),
    OpInfo("tril_diagonal_batched", lambda T, x: x.tril(-1), [S(2, 3, 3)], grad_fn="TrilBackward0"),
    OpInfo("triu", lambda T, x: T.triu(x), [S(4, 3)], grad_fn="TriuBackward0"),
    OpInfo("triu_diagonal", lambda T, x: x.triu(diagonal=1), [S(3, 3)], grad_fn="TriuBackward0"),
    OpInfo("tril_", lambda T, x: (x * 1).tril_(1), [S(3, 3)], grad_fn="TrilBackward0"),
    OpInfo("triu_", lambda T, x: (x * 1).triu_(), [S(2, 3, 3)], grad_fn="TriuBackward0"),
    # rot90
    OpInfo("rot90", lambda T, x: T.rot90(x), [S(2, 3)], grad_fn="Rot90Backward0"),
    OpInfo("rot90_k_dims", lambda T, x: x.rot90(-1, [2, 0]), [S(2, 3, 4)], grad_fn="Rot90Backward0"),
    OpInfo("rot90_half_turn", lambda T, x: T.rot90(x, 2, (-1, -2)), [S(2, 3)], grad_fn="Rot90Backward0"),
    OpInfo("rot90_full_turn", lambda T, x: T.rot90(x, 4), [S(2, 3)], grad_fn="Rot90Backward0"),
    # block_diag, diag_embed
    OpInfo("block_diag", lambda T, a, b: T.block_diag(a, b), [S(2, 2), S(1, 1)], grad_fn="BlockDiagBackward0"),
    OpInfo("block_diag_0d_1d_2d", lambda T, a, b, c: T.block_diag(a, b, c), [S(), S(3), S(2, 1)],
           grad_fn="BlockDiagBackward0"),
    OpInfo("block_diag_constant_block", lambda T, a, b: T.block_diag(a, b),
           [S(2, 3), S(2, 2, requires_grad=False)], grad_fn="BlockDiagBackward0"),
    OpInfo("diag_embed", lambda T, x: T.diag_embed(x), [S(3)], grad_fn="DiagEmbedBackward0"),
    OpInfo("diag_embed_offset", lambda T, x: x.diag_embed(1), [S(2, 3)], grad_fn="DiagEmbedBackward0"),
    OpInfo("diag_embed_dims", lambda T, x: T.diag_embed(x, -1, 0, 2), [S(2, 3)], grad_fn="DiagEmbedBackward0"),
    # unique (no derivative: node names only)
    OpInfo("_unique", lambda T, x: T._unique(x, return_inverse=True), [S(5)], grad_fn="UniqueBackward0", **_NO_GRAD),
    OpInfo("unique", lambda T, x: T.unique(x), [S(5)], grad_fn="Unique2Backward0", **_NO_GRAD),
    OpInfo("unique_dim", lambda T, x: x.unique(dim=1, return_counts=True), [S(2, 3)],
           grad_fn="UniqueDimBackward0", **_NO_GRAD),
    OpInfo("unique_consecutive", lambda T, x: T.unique_consecutive(x), [S(4)],
           grad_fn="UniqueConsecutiveBackward0", **_NO_GRAD),
    OpInfo("unique_consecutive_dim", lambda T, x: x.unique_consecutive(dim=0), [S(2, 3)],
           grad_fn="UniqueConsecutiveBackward0", **_NO_GRAD),
    OpInfo("unique_dim_consecutive", lambda T, x: T.ops.aten.unique_dim_consecutive(x, 0), [S(2, 3)],
           grad_fn="UniqueDimConsecutiveBackward0", **_NO_GRAD),
    # aliases and copies with their own nodes
    OpInfo("lift", lambda T, x: T.ops.aten.lift(x), [S(2, 3)], grad_fn="LiftBackward0"),
    OpInfo("lift_fresh", lambda T, x: T.ops.aten.lift_fresh(x), [S(2, 3)], grad_fn="LiftFreshBackward0"),
    OpInfo("_lazy_clone", lambda T, x: x._lazy_clone(), [S(2, 3)], grad_fn="LazyCloneBackward0"),
    OpInfo("_lazy_clone_fn", lambda T, x: T._lazy_clone(x), [S(3)], grad_fn="LazyCloneBackward0"),
    OpInfo("_reshape_copy", lambda T, x: T.ops.aten._reshape_copy(x, [3, -1]), [S(2, 3)],
           grad_fn="ReshapeCopyBackward0"),
    OpInfo("_reshape_alias_aten", lambda T, x: T.ops.aten._reshape_alias(x, [3, 1], [1, 1]), [S(3)],
           grad_fn="ReshapeAliasBackward0"),
    OpInfo("slice_inverse", lambda T, a: T.slice_inverse(a[0:1], a, 0, 0, 1), [S(2, 3)],
           grad_fn="SliceInverseBackward0"),
    OpInfo("slice_inverse_step", lambda T, a: (lambda b: T.slice_inverse(b[:, 1::2], b, 1, 1, None, 2))(a * 2),
           [S(2, 5)], grad_fn="SliceInverseBackward0"),
    # masked softmax (torch has no double backward for it)
    OpInfo("_masked_softmax", lambda T, x, m: T._masked_softmax(x, m), [S(2, 3), _MASK],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False),
    OpInfo("_masked_softmax_dim0", lambda T, x, m: T._masked_softmax(x, m, 0), [S(2, 3), _MASK],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False),
    # torch's backward refuses the broadcast masks of mask_type 0 and 1 ("Mask shape should match grad
    # shape"): ndgrad differentiates them (gradcheck); tests/test_misc.py compares the values with torch
    OpInfo("_masked_softmax_key_padding", lambda T, x, m: T._masked_softmax(x, m, 3, 1),
           [S(2, 1, 3, 3), B(2, 3, values=[[False, True, False], [False, False, True]])],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False, torch_parity=False),
    OpInfo("_masked_softmax_src_mask", lambda T, x, m: T._masked_softmax(x, m, 3, 0),
           [S(1, 2, 3, 3), B(3, 3, values=[[False, True, True], [False, False, True], [False, False, False]])],
           grad_fn="MaskedSoftmaxBackward0", gradgrad=False, torch_parity=False),
    # torch's private autograd test ops
    OpInfo("_test_warn_in_autograd", lambda T, x: T.ops.aten._test_warn_in_autograd(x), [S(3)],
           grad_fn="TestWarnInAutogradBackward0"),
    # its backward adds 1 to the gradient on purpose (no gradcheck; torch parity checks it)
    OpInfo("_test_autograd_multiple_dispatch", lambda T, x: T._test_autograd_multiple_dispatch(x), [S(2, 3)],
           grad_fn="TestAutogradMultipleDispatchBackward0", check_grad=False),
    OpInfo("_test_autograd_multiple_dispatch_ntonly", lambda T, x: T._test_autograd_multiple_dispatch(x, True),
           [S(3)], grad_fn="CloneBackward0"),
    OpInfo("_test_autograd_multiple_dispatch_view", lambda T, x: T._test_autograd_multiple_dispatch_view(x),
           [S(2, 3)], grad_fn="TestAutogradMultipleDispatchViewBackward0"),
]
