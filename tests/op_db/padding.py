"""Registry entries for padding (ndgrad/ops/padding.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def F(T):
    return T.nn.functional


PADDING = [
    OpInfo("pad_constant", lambda T, x: F(T).pad(x, (1, 2)), [S(2, 3)], grad_fn="ConstantPadNdBackward0"),
    OpInfo("pad_constant_value_2d", lambda T, x: F(T).pad(x, (1, 0, 0, 2), value=0.5), [S(2, 2, 3)],
           grad_fn="ConstantPadNdBackward0"),
    OpInfo("pad_constant_negative", lambda T, x: F(T).pad(x, (-1, 1)), [S(2, 4)], grad_fn="ConstantPadNdBackward0"),
    OpInfo("constant_pad_nd", lambda T, x: T.constant_pad_nd(x, (0, 1, 1, 1)), [S(2, 3)],
           grad_fn="ConstantPadNdBackward0"),
    OpInfo("pad_reflect_1d", lambda T, x: F(T).pad(x, (2, 1), mode="reflect"), [S(1, 2, 4)],
           grad_fn="ReflectionPad1DBackward0"),
    OpInfo("pad_reflect_2d", lambda T, x: F(T).pad(x, (1, 1, 2, 0), mode="reflect"), [S(1, 3, 3)],
           grad_fn="ReflectionPad2DBackward0"),
    OpInfo("pad_reflect_3d", lambda T, x: F(T).pad(x, (1, 0, 0, 1, 1, 1), mode="reflect"), [S(1, 1, 2, 2, 2)],
           grad_fn="ReflectionPad3DBackward0"),
    OpInfo("pad_replicate_1d", lambda T, x: F(T).pad(x, (2, 1), mode="replicate"), [S(2, 3)],
           grad_fn="ReplicationPad1DBackward0"),
    OpInfo("pad_replicate_2d", lambda T, x: F(T).pad(x, (1, 2, 0, 1), mode="replicate"), [S(1, 1, 2, 3)],
           grad_fn="ReplicationPad2DBackward0"),
    OpInfo("pad_replicate_3d", lambda T, x: F(T).pad(x, (1, 0, 1, 0, 0, 1), mode="replicate"), [S(1, 2, 2, 2)],
           grad_fn="ReplicationPad3DBackward0"),
    OpInfo("pad_circular", lambda T, x: F(T).pad(x, (1, 2), mode="circular"), [S(1, 2, 3)],
           grad_fn="torch::autograd::CopySlices"),
    # negative pads crop before the wrap; an empty batch writes nothing (no overlap refusal)
    OpInfo("pad_circular_negative", lambda T, x: F(T).pad(x, (-1, 2, 2, -2), mode="circular"), [S(1, 2, 5, 6)],
           grad_fn="torch::autograd::CopySlices"),
    OpInfo("pad_circular_empty_batch", lambda T, x: F(T).pad(x, (1, 2), mode="circular"), [S(0, 2, 3)],
           grad_fn="torch::autograd::CopySlices"),
    OpInfo("pad_circular_2d", lambda T, x: F(T).pad(x, (1, 1, 1, 0), mode="circular"), [S(1, 1, 2, 3)],
           grad_fn="torch::autograd::CopySlices"),
]

OPS = PADDING
