"""Registry entries for nested tensors (see op_db/__init__.py for the format).

Inputs are dense component tensors; each call builds the nested tensor itself, so gradcheck and the
torch comparison differentiate with respect to the components. Nested outputs are compared and
gradchecked through `.to_padded_tensor(0.0)` (tests/test_ops.py)."""
from . import B, I, OpInfo, S


def _nt(T, *ts, layout=None):
    return T.nested.as_nested_tensor(list(ts), layout=layout)


def _njt(T, values, offsets):
    return T.nested.nested_tensor_from_jagged(values, offsets)


def _linear_double_backward(T, a, b, w, g1, g2):
    x = _nt(T, a, b)
    y = T.nn.functional.linear(x, w)
    g, = T.autograd.grad(y, x, _nt(T, g1, g2), create_graph=True)
    return g


OFFSETS = I(values=[0, 2, 3])

OPS = [
    # constructors
    OpInfo("nested_as_nested_tensor_list", lambda T, a, b: _nt(T, a, b), [S(2, 2), S(1, 2)],
           grad_fn="NestedTensorFromTensorListBackward0"),
    OpInfo("nested_as_nested_tensor_list_3d", lambda T, a, b: _nt(T, a, b), [S(2, 1, 3), S(1, 2, 3)],
           grad_fn="NestedTensorFromTensorListBackward0"),
    OpInfo("nested_from_mask", lambda T, x, m: T._nested_tensor_from_mask(x, m),
           [S(2, 3, 2), B(values=[[True, True, False], [True, False, False]])],
           grad_fn="NestedTensorFromMaskBackward0"),
    OpInfo("nested_from_padded", lambda T, x, s: T._nested_from_padded(x, s), [S(2, 2, 3), I(values=[[2, 3], [1, 2]])],
           grad_fn="NestedFromPaddedBackward0"),
    OpInfo("nested_view_from_buffer", lambda T, x: T.nested.as_nested_tensor(x), [S(2, 2, 3)],
           grad_fn="NestedViewFromBufferBackward0"),
    OpInfo("nested_from_jagged", lambda T, v, o: T.nested.nested_tensor_from_jagged(v, o), [S(3, 2), OFFSETS],
           grad_fn="NestedViewFromJaggedBackward0"),
    OpInfo("nested_jagged_from_list", lambda T, a, b: _nt(T, a, b, layout=T.jagged), [S(2, 2), S(1, 2)],
           grad_fn="NestedViewFromJaggedBackward0"),
    OpInfo("nested_jagged_from_dense", lambda T, x: T.nested.as_nested_tensor(x, layout=T.jagged), [S(2, 3, 2)],
           grad_fn="NestedViewFromJaggedBackward0"),
    # conversions and accessors
    OpInfo("nested_to_padded_tensor", lambda T, a, b: T.nested.to_padded_tensor(_nt(T, a, b), 0.5),
           [S(2, 3), S(1, 2)], grad_fn="ToPaddedTensorBackward0"),
    OpInfo("nested_to_padded_tensor_output_size", lambda T, a, b: _nt(T, a, b).to_padded_tensor(0.0, (2, 3, 4)),
           [S(2, 3), S(1, 2)], grad_fn="ToPaddedTensorBackward0"),
    OpInfo("nested_to_padded_tensor_jagged", lambda T, v, o: _njt(T, v, o).to_padded_tensor(0.0),
           [S(3, 2), OFFSETS], grad_fn="ToPaddedTensorBackward0"),
    OpInfo("nested_get_values", lambda T, v, o: T.nested.nested_tensor_from_jagged(v, o).values(), [S(3, 2), OFFSETS],
           grad_fn="NestedGetValuesBackward0"),
    OpInfo("nested_values_strided", lambda T, a, b: _nt(T, a, b).values(), [S(2, 2), S(1, 2)],
           grad_fn="ValuesBackwardAutogradNestedTensor0"),
    OpInfo("nested_unbind", lambda T, a, b: _nt(T, a, b).unbind(), [S(2, 2), S(1, 2)],
           grad_fn="UnbindBackwardAutogradNestedTensor0"),
    OpInfo("nested_unbind_jagged", lambda T, v, o: T.nested.nested_tensor_from_jagged(v, o).unbind(),
           [S(3, 2), OFFSETS], grad_fn="UnbindBackwardAutogradNestedTensor0"),
    # arithmetic on nested tensors (the generic pointwise ops)
    # (forward_ad=False: the nested constructors have no forward-mode formula in ndgrad)
    OpInfo("nested_mul", lambda T, a, b, c, d: _nt(T, a, b) * _nt(T, c, d), [S(2, 2), S(1, 2), S(2, 2), S(1, 2)],
           grad_fn="MulBackward0", forward_ad=False),
    OpInfo("nested_add_scalar", lambda T, v, o: T.nested.nested_tensor_from_jagged(v, o) + 2.0, [S(3, 2), OFFSETS],
           grad_fn="AddBackward0", forward_ad=False),
    # torch_parity=False: torch's transpose of a strided nested tensor is a non-contiguous view, which its
    # to_padded_tensor refuses; ndgrad's transpose copies the components
    OpInfo("nested_transpose", lambda T, a, b: _nt(T, a, b).transpose(1, 2), [S(2, 3), S(1, 3)],
           grad_fn="TransposeBackward0", forward_ad=False, torch_parity=False),
    # matmul and linear
    OpInfo("nested_matmul", lambda T, a, b, c, d: T.matmul(_nt(T, a, b), _nt(T, c, d)),
           [S(2, 3), S(1, 3), S(3, 2), S(3, 4)], grad_fn="MatmulBackward0"),
    OpInfo("nested_linear", lambda T, a, b, w: T.nn.functional.linear(_nt(T, a, b), w), [S(2, 3), S(1, 3), S(2, 3)],
           grad_fn="LinearBackward0"),
    OpInfo("nested_linear_bias", lambda T, a, b, w, c: T.nn.functional.linear(_nt(T, a, b), w, c),
           [S(2, 3), S(1, 3), S(2, 3), S(2)], grad_fn="LinearBackward0"),
    OpInfo("nested_linear_jagged", lambda T, v, o, w, c: T.nn.functional.linear(_njt(T, v, o), w, c),
           [S(3, 2), OFFSETS, S(4, 2), S(4)], grad_fn="LinearBackward0"),
    OpInfo("nested_linear_double_backward", _linear_double_backward, [S(2, 3), S(1, 3), S(2, 3), S(2, 2), S(1, 2)],
           grad_fn="LinearBackwardBackward0", torch_parity=False),   # torch cannot differentiate it (nested @ dense)
    # torch's test op of per-dispatch-key formulas: deliberately not derivatives (no gradcheck; torch parity
    # checks them)
    OpInfo("nested_test_autograd_multiple_dispatch", lambda T, a, b: T._test_autograd_multiple_dispatch(_nt(T, a, b)),
           [S(2, 2), S(1, 2)], grad_fn="TestAutogradMultipleDispatchBackwardAutogradNestedTensor0", check_grad=False,
           forward_ad=False),
    OpInfo("nested_test_autograd_multiple_dispatch_ntonly",
           lambda T, a, b: T._test_autograd_multiple_dispatch(_nt(T, a, b), True), [S(2, 2), S(1, 2)],
           grad_fn="TestAutogradMultipleDispatchBackwardAutogradNestedTensor1", check_grad=False, forward_ad=False),
]
