"""In-place view ops (t_, squeeze_, unsqueeze_, transpose_, swapdims_, swapaxes_, as_strided_) change
only a tensor's geometry, but they are in-place ops: each bumps the version counter exactly once, so a
tensor saved for backward and then reshaped in place makes backward raise torch's error instead of
giving a silently wrong gradient (issue 18: removing that bump passed the whole suite)."""
import pytest

from parity import both

CALLS = {
    "t_": lambda x: x.t_(),
    "squeeze_": lambda x: x.squeeze_(),
    "squeeze_dim": lambda x: x.squeeze_(1),
    "unsqueeze_": lambda x: x.unsqueeze_(0),
    "transpose_": lambda x: x.transpose_(0, 1),
    "swapdims_": lambda x: x.swapdims_(0, 1),
    "swapaxes_": lambda x: x.swapaxes_(0, 1),
    "as_strided_": lambda x: x.as_strided_((3, 2), (1, 3)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bumps_the_version_once(name):
    def scenario(T):
        x = T.zeros(2, 1, 3) if name.startswith("squeeze") else T.zeros(2, 3)
        before = x._version
        CALLS[name](x)
        return x._version - before
    assert both(scenario) == 1


@pytest.mark.parametrize("name", sorted(CALLS))
def test_on_a_saved_tensor_backward_raises(name):
    def scenario(T):
        a = T.ones(2, 1, 3, requires_grad=True) if name.startswith("squeeze") else T.ones(2, 3, requires_grad=True)
        b = a * 1
        c = b * b                          # saves b
        CALLS[name](b)
        try:
            c.sum().backward()
        except RuntimeError as e:   # the node named after "output 0 of" differs from torch's for some
            return str(e).split(", which is output")[0]
        return "no error"
    assert both(scenario).startswith("one of the variables needed for gradient computation has been modified "
                                     "by an inplace operation")
