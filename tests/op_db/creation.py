"""Registry entries for creation (ndgrad/ops/creation.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


LAZY_CLONE = [
    OpInfo("_lazy_clone", lambda T, x: x._lazy_clone(), [S(2, 3)], grad_fn="LazyCloneBackward0"),
    OpInfo("_lazy_clone_fn", lambda T, x: T._lazy_clone(x), [S(3)], grad_fn="LazyCloneBackward0"),
]


AUTOGRAD_TEST_OPS = [
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
    OpInfo("_test_autograd_multiple_dispatch_view_copy", lambda T, x: T._test_autograd_multiple_dispatch_view_copy(x),
           [S(2, 3)], grad_fn="TestAutogradMultipleDispatchViewBackward0_copy"),
]

OPS = LAZY_CLONE + AUTOGRAD_TEST_OPS
