"""Registry entries for dropout (ndgrad/ops/dropout.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def F(T):
    return T.nn.functional


DROPOUT = [
    OpInfo("native_dropout_eval", lambda T, x: T.native_dropout(x, 0.5, False), [S(5)],
           grad_fn="NativeDropoutBackward0"),
    OpInfo("native_dropout_train", lambda T, x: (T.manual_seed(0), T.native_dropout(x, 0.4, True)[0])[1], [S(5)],
           grad_fn="NativeDropoutBackward0", torch_parity=False),
    OpInfo("dropout_train", lambda T, x: (T.manual_seed(0), F(T).dropout(x, 0.5))[1], [S(6)], grad_fn="MulBackward0", torch_parity=False),
    OpInfo("dropout_p1", lambda T, x: F(T).dropout(x, 1.0), [S(6)], grad_fn="MulBackward0"),
    OpInfo("dropout_eval", lambda T, x: F(T).dropout(x, 0.5, training=False) * 1, [S(6)], grad_fn="MulBackward0"),
    OpInfo("dropout2d_train", lambda T, x: (T.manual_seed(0), F(T).dropout2d(x, 0.5))[1], [S(2, 3, 2)], grad_fn="MulBackward0",
           torch_parity=False),
    OpInfo("alpha_dropout_train", lambda T, x: (T.manual_seed(0), F(T).alpha_dropout(x, 0.5, training=True))[1], [S(6)],
           grad_fn="AddBackward0", torch_parity=False),
    OpInfo("feature_alpha_dropout_train", lambda T, x: (T.manual_seed(0), F(T).feature_alpha_dropout(x, 0.5, training=True))[1],
           [S(2, 3, 2)], grad_fn="AddBackward0", torch_parity=False),
]

OPS = DROPOUT
