"""Registry entries for pointwise ops (see op_db/__init__.py for the format)."""
from . import OpInfo, S

OPS = [
    OpInfo("add", lambda T, x, y: T.add(x, y), [S(2, 3), S(3)], grad_fn="AddBackward0"),
    OpInfo("mul", lambda T, x, y: T.mul(x, y), [S(2, 3), S(2, 3)], grad_fn="MulBackward0"),
    OpInfo("mul_scalar", lambda T, x: x * 2.5, [S(3)], grad_fn="MulBackward0"),
    OpInfo("exp", lambda T, x: T.exp(x), [S(2, 3)], grad_fn="ExpBackward0"),
]
