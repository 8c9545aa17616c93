"""torch.types: the type aliases torch's signatures are annotated with.

ndgrad has no symbolic shapes (SymInt, SymFloat, SymBool: deliberately absent, see ``python -m ndgrad
api``), so the ``*LikeType`` aliases are the plain Python types and ``py_sym_types`` is empty.
"""
import os
from collections.abc import Sequence
from typing import IO, Any, TypeAlias, Union  # noqa: F401  (re-exported, as torch.types does)

from ._dtype import dtype as _dtype
from ._sparse_array import layout as _layout
from ._tensor import Size, Tensor, UntypedStorage, device as _device

__all__ = ["Number", "Device", "FileLike", "Storage"]

# the builtins under private names, for annotations inside classes that define a method of the same name
_bool = bool
_bytes = bytes
_complex = complex
_float = float
_int = int
_str = str

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_TensorOrTensorsOrGradEdge: TypeAlias = Union[Tensor, Sequence[Tensor], "GradientEdge", Sequence["GradientEdge"]]

_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int]
_dispatchkey: TypeAlias = str

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
py_sym_types = ()

_Number = (int, float, bool)
Number: TypeAlias = int | float | bool
Device: TypeAlias = _device | str | int | None
FileLike: TypeAlias = Union[str, os.PathLike[str], IO[bytes]]

# torch's Storage is a protocol class for annotations; ndgrad's one storage class is what it stands for
Storage = UntypedStorage
