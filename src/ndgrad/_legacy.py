"""The legacy tensor types: torch.FloatTensor, torch.LongTensor, ... Calling one builds a tensor of
its dtype (`FloatTensor(2, 3)`, `LongTensor([1, 2])`); `isinstance(x, torch.FloatTensor)` asks
whether x is a float32 tensor. As in torch, they are not Tensor subclasses and what they build is
a plain Tensor."""
from . import _dtype
from ._sparse_array import strided
from ._tensor import Tensor, _tensor_options, legacy_array


class tensortype(type):
    """The metaclass of the legacy types (torch's is torch.tensortype)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.layout is strided and obj.dtype is cls._legacy_dtype

    def __call__(cls, *args, device=None):
        if len(args) == 1 and isinstance(args[0], Tensor):   # an alias, of this dtype only
            if args[0].dtype is not cls._legacy_dtype:
                raise TypeError(f"expected {_tensor_options(cls._legacy_dtype)} (got {_tensor_options(args[0].dtype)})")
            return Tensor(args[0])
        return Tensor._make(legacy_array(args, cls._legacy_dtype, device), False, None, 0)

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"

    @property
    def dtype(cls):
        return cls._legacy_dtype


def _legacy_type(d):
    return tensortype(f"{d.title}Tensor", (), {"_legacy_dtype": d, "is_cuda": False, "is_sparse": False,
                                               "layout": strided, "__module__": "torch"})


DoubleTensor = _legacy_type(_dtype.float64)
FloatTensor = _legacy_type(_dtype.float32)
HalfTensor = _legacy_type(_dtype.float16)
BFloat16Tensor = _legacy_type(_dtype.bfloat16)
LongTensor = _legacy_type(_dtype.int64)
IntTensor = _legacy_type(_dtype.int32)
ShortTensor = _legacy_type(_dtype.int16)
CharTensor = _legacy_type(_dtype.int8)
ByteTensor = _legacy_type(_dtype.uint8)
BoolTensor = _legacy_type(_dtype.bool_)
