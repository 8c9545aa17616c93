"""The two views behind forward AD's dual tensors (see ndgrad/autograd/forward_ad.py):
`_make_dual` (the dual tensor: a view of the primal) and `_fw_primal` (a view without tangent)."""
from ._registry import METHODS, op
from .creation import aten, zeros_like
from ..backends import is_array
from ..autograd import forward_ad


# forward_ad (below the ops layer) reaches the two views as Tensor methods
@op("_make_dual", public=False, method="_dual_view", view=True)
def _make_dual(primal, tangent, level):
    return primal.view()


@op("_fw_primal", public=False, method="_primal_view", view=True)
def _fw_primal(self, level):
    return self.view()


METHODS["_fw_primal"] = forward_ad.fw_primal


def _zeros_in_layout(tangent, primal, batch_dims=0):
    if not is_array(primal._array):   # no strided memory to follow (sparse, nested, meta)
        return zeros_like(primal)
    out = aten._new_zeros_with_same_feature_meta(tangent, primal, self_num_batch_dims=batch_dims)
    if primal._math_bits:   # as torch: stored with the primal's lazy conj/neg bits too (copy_ writes through them)
        out._math_bits = primal._math_bits
    return out


def _to_layout_of(tangent, primal):
    return forward_ad.zeros_in_layout(tangent, primal).copy_(tangent)


forward_ad.zeros_in_layout = _zeros_in_layout
forward_ad.to_layout_of = _to_layout_of
