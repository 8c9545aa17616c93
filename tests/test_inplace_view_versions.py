"""In-place view ops (t_, squeeze_, unsqueeze_, transpose_, swapdims_, swapaxes_, as_strided_) change
only a tensor's geometry, but they are in-place ops: each bumps the version counter exactly once, so a
tensor saved for backward and then reshaped in place makes backward raise torch's error instead of
giving a silently wrong gradient (issue 18: removing that bump passed the whole suite)."""
import pytest

from parity import both, err, same_error

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
        except RuntimeError as e:   # the whole message: tensor type and shape, the short node name, versions
            return str(e)
        return "no error"
    assert both(scenario).startswith("one of the variables needed for gradient computation has been modified "
                                     "by an inplace operation")


# in-place ops whose nodes are not the out-of-place op's (torch's short name keeps the number: Acosh1)
OVERWRITES = {
    "acosh_": (lambda T, x: x.add_(1.5).acosh_(), "Acosh1"),
    "fill_tensor": (lambda T, x: x.fill_(T.tensor(2.0)), "Fill3"),
    "div_floor": (lambda T, x: x.div_(2.0, rounding_mode="floor"), "Div2"),
    "elu_inplace": (lambda T, x: T.nn.functional.elu(x, inplace=True), "Elu1"),
    "clamp_max_tensor": (lambda T, x: x.clamp_max_(T.tensor(0.5)), "ClampMax1"),
    "mul_": (lambda T, x: x.mul_(2.0), "Mul"),
}


@pytest.mark.parametrize("name", sorted(OVERWRITES))
def test_modified_message_names_the_in_place_node_as_torch(name):
    call, short = OVERWRITES[name]

    def scenario(T):
        a = T.ones(3, requires_grad=True).clone()
        y = a.sin()                        # saves a
        call(T, a)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return str(e)
        return "no error"
    assert f"which is output 0 of {short}, is at version" in both(scenario)


def test_conj_physical_in_place_writes_real_tensors_too():
    def scenario(T):
        x = T.zeros(3, requires_grad=True)
        y = x.clone()
        before = y._version
        y.conj_physical_()
        z = T.tensor([1 + 2j], requires_grad=True)
        w = z.clone()
        w.conj_physical_()
        w.abs().sum().backward()
        return [y.grad_fn.name(), y._version - before, err(lambda: x.conj_physical_()), w.detach(), z.grad]
    name, bumps, leaf, w, g = both(scenario)
    assert name == "ConjPhysicalBackward1" and bumps == 1 and "leaf Variable" in leaf[1]
    assert complex(w[0]) == 1 - 2j and abs(complex(g[0]) - (1 + 2j) / 5 ** 0.5) < 1e-6


def test_leaf_refusal_comes_before_a_missing_derivative():
    # scatter_ with reduce= has no derivative (in torch either), but a leaf is refused first
    same_error(lambda T: T.zeros(3, requires_grad=True).scatter_(0, T.tensor([0]), 1.0, reduce="add"))
