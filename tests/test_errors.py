"""Errors: torch's exception types, and messages that name the problem and the fix."""
import numpy as np
import pytest

import ndgrad
from parity import both, same_error, torch


def leaf(*values):
    return ndgrad.tensor(list(values) or [1.0, 2.0, 3.0], dtype=ndgrad.float64, requires_grad=True)


def test_backward_of_non_scalar_without_gradient():
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (leaf() * 2).backward()


def test_backward_of_tensor_without_grad():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        ndgrad.ones(3).sum().backward()


def test_requires_grad_on_integer_tensor():
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients"):
        ndgrad.zeros(3, dtype=ndgrad.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require"):
        ndgrad.zeros(3, dtype=ndgrad.int64).requires_grad = True
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require"):
        ndgrad.tensor([1, 2], requires_grad=True)


def test_requires_grad_false_on_non_leaf():
    y = leaf() * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False


def test_gradient_of_wrong_shape():
    y = leaf() * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[2\]\) "
                                           r"and output\[0\] has a shape of torch.Size\(\[3\]\)"):
        y.backward(ndgrad.ones(2, dtype=ndgrad.float64))


def test_hook_returning_wrong_shape_is_refused():
    # torch checks what a node hook returns against the gradient it replaces, naming the hook
    x = leaf()
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (ndgrad.ones(5, dtype=ndgrad.float64), gi[1]))
    with pytest.raises(RuntimeError, match=r"^hook '<lambda>' has changed the size of value$"):
        y.sum().backward()


def test_unused_input_without_allow_unused():
    x, z = leaf(), leaf()
    with pytest.raises(RuntimeError, match="Set allow_unused=True"):
        ndgrad.autograd.grad((x * 2).sum(), [x, z])


def test_grad_of_input_not_requiring_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        ndgrad.autograd.grad((leaf() * 2).sum(), [ndgrad.ones(3)])


def test_shape_mismatch_names_sizes():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) "
                                           r"at non-singleton dimension 0"):
        leaf() * ndgrad.ones(2, dtype=ndgrad.float64)


def test_failed_inplace_leaves_tensor_unchanged():
    x = ndgrad.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        x.mul_(1.5)
    assert x.tolist() == [1, 2, 3] and x._version == 0
    y = ndgrad.zeros(3)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        y.add_(ndgrad.ones(2, 3))
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 0.0])


def test_numpy_of_tensor_requiring_grad():
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\) instead"):
        leaf().numpy()


def test_numpy_of_tensor_requiring_grad_is_allowed_without_grad_mode():
    x = leaf(1.0, 2.0)
    for mode in (ndgrad.no_grad, ndgrad.inference_mode):
        with mode():   # as torch: the refusal only guards against losing a recorded graph
            np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
            np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\) instead"):
        np.asarray(x)


def test_item_of_many_elements():
    with pytest.raises(RuntimeError, match="a Tensor with 3 elements cannot be converted to Scalar"):
        leaf().item()


def test_assigning_grad_of_wrong_shape():
    x = leaf()
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[2\]' to a tensor of size "
                                           r"'\[3\]'\. Please ensure that the gradient and the tensor are the same size$"):
        x.grad = ndgrad.ones(2, dtype=ndgrad.float64)


def test_assigning_a_tensor_as_its_own_grad():
    x = leaf()
    with pytest.raises(RuntimeError, match="^can't assign Variable as its own grad$"):
        x.grad = x


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_mean_refuses_an_integer_dtype_argument(dtype):
    message = same_error(lambda T: T.ones(3).mean(dtype=getattr(T, dtype)))
    assert "Optional dtype must be either a floating point or complex dtype. Got: " in message
    same_error(lambda T: T.mean(T.ones(2, 3), 0, dtype=getattr(T, dtype)))


def test_embedding_names_the_index_tensor_type():
    message = same_error(lambda T: T.nn.functional.embedding(T.ones(2, dtype=T.int16), T.ones(3, 2)))
    assert "but got torch.ShortTensor instead" in message


def test_tensor_of_a_tensor_warns_in_torchs_words():
    # programs silence it by its text (warnings.filterwarnings(message="To copy construct..."))
    for T in [ndgrad] + ([torch] if torch is not None else []):
        with pytest.warns(UserWarning, match=r"^To copy construct from a tensor, it is recommended to use "
                                             r"sourceTensor\.detach\(\)\.clone\(\)"):
            T.tensor(T.ones(2))


@pytest.mark.parametrize("name", ["std", "var", "std_mean", "var_mean"])
def test_moments_of_integers_name_the_op_as_torch(name):
    same_error(lambda T: getattr(T, name)(T.ones(3, dtype=T.int64)))
    same_error(lambda T: T.nn.functional.nll_loss(T.ones(2, 3), T.ones(2, dtype=T.int32)))


def test_histc_records_nothing_and_bincount_weights_record_not_implemented():
    def run(T):
        x = T.tensor([0.1, 0.5, 0.9, 0.5], requires_grad=True)
        h = T.histc(x, bins=4, min=0, max=1)
        b = T.bincount(T.tensor([0, 1, 1]), weights=x[:3])
        return h, h.requires_grad, b, b.grad_fn.name()
    hist, hist_grad, counts, name = both(run)
    assert (hist.tolist(), hist_grad, name) == ([1.0, 0.0, 2.0, 1.0], False, "torch::autograd::NotImplemented")
    message = same_error(lambda T: T.bincount(T.tensor([0, 1]), weights=T.ones(2, requires_grad=True)).sum().backward())
    assert message == "derivative for aten::bincount is not implemented"


def test_bernoulli_with_a_float_p_records_not_implemented():
    def run(T):
        y = T.bernoulli(T.rand(3, requires_grad=True), 0.5)
        return y.requires_grad, y.grad_fn.name()
    assert both(run) == [True, "torch::autograd::NotImplemented"]
    message = same_error(lambda T: T.bernoulli(T.rand(3, requires_grad=True), 0.5).sum().backward())
    assert message == "derivative for aten::bernoulli is not implemented"


@pytest.mark.parametrize("p", [1.5, -0.25, float("nan")])
def test_bernoulli_refuses_a_float_p_outside_zero_one_with_torchs_message(p):
    for call in (lambda T: T.bernoulli(T.ones(3), p), lambda T: T.ones(3).bernoulli_(p)):
        assert same_error(call) == f"bernoulli_ expects p to be in [0, 1], but got p={p}"
