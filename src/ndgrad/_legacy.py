"""The legacy tensor types: torch.FloatTensor, torch.LongTensor, ... Calling one builds a tensor of
its dtype (`FloatTensor(2, 3)`, `LongTensor([1, 2])`); `isinstance(x, torch.FloatTensor)` asks
whether x is a float32 tensor. As in torch, they are not Tensor subclasses and what they build is
a plain Tensor."""
import warnings

from . import _dtype
from ._sparse_array import strided
from ._tensor import Tensor, TypedStorage, UntypedStorage, _tensor_options, legacy_array


class tensortype(type):
    """The metaclass of the legacy tensor types (``torch.FloatTensor``, ``torch.LongTensor``...): an
    instance check against one of those types tests a tensor's dtype. torch names its metaclass
    ``torch.tensortype`` too, but does not export it.

    Example::

        >>> type(torch.FloatTensor).__name__
        'tensortype'
        >>> isinstance(torch.zeros(2), torch.FloatTensor), isinstance(torch.zeros(2), torch.LongTensor)
        (True, False)
    """

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


# ---- api: the legacy storage types (torch.FloatStorage, ...): calling one builds a TypedStorage of
# its dtype over new memory (`FloatStorage(3)`: zeros, `FloatStorage([1, 2])`: those values);
# isinstance asks whether a TypedStorage holds that dtype
class _LegacyStorageMeta(type):

    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype is cls._legacy_dtype

    def __call__(cls, *args):
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=2)
        return TypedStorage(legacy_array(args, cls._legacy_dtype), cls._legacy_dtype.np)

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"

    @property
    def dtype(cls):
        return cls._legacy_dtype


def _legacy_storage(d):
    return _LegacyStorageMeta(f"{d.title}Storage", (), {"_legacy_dtype": d, "__module__": "torch"})


DoubleStorage = _legacy_storage(_dtype.float64)
FloatStorage = _legacy_storage(_dtype.float32)
HalfStorage = _legacy_storage(_dtype.float16)
BFloat16Storage = _legacy_storage(_dtype.bfloat16)
LongStorage = _legacy_storage(_dtype.int64)
IntStorage = _legacy_storage(_dtype.int32)
ShortStorage = _legacy_storage(_dtype.int16)
CharStorage = _legacy_storage(_dtype.int8)
ByteStorage = _legacy_storage(_dtype.uint8)
BoolStorage = _legacy_storage(_dtype.bool_)
ComplexFloatStorage = _legacy_storage(_dtype.complex64)
ComplexDoubleStorage = _legacy_storage(_dtype.complex128)
Storage = FloatStorage          # torch's alias of the default storage type
StorageBase = UntypedStorage    # the base of every storage


def is_storage(obj):
    """Whether `obj` is a storage (an ``UntypedStorage`` or a typed legacy storage such as ``FloatStorage``).

    Args:
        obj (object): anything.

    Returns:
        bool: ``True`` for a storage.

    Example::

        >>> x = torch.zeros(2)
        >>> torch.is_storage(x.untyped_storage()), torch.is_storage(x)
        (True, False)
    """
    return isinstance(obj, UntypedStorage)
