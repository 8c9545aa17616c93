"""The storage of a tensor on the meta device: a shape and a dtype, no data.

Ops run on meta tensors as on any other: their NumPy forwards receive a MetaArray, which answers
NumPy's protocols (__array_ufunc__, __array_function__, methods, operators, indexing) by running the
same call on a zero-strided stand-in of its shape and dtype (no input memory) and keeping only the
shape and dtype of what comes out. So a meta result has exactly the shape and dtype the op gives on
real data. Reading values (printing them, item, tolist, numpy, copying to the CPU) raises, as torch.
"""
import operator

import numpy as np

from ._sparse_array import strided

NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaArray:
    __slots__ = ("shape", "dtype")
    layout = strided
    __array_priority__ = 10000   # NumPy arrays defer to our reflected operators

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    @property
    def strides(self):   # contiguous, in bytes, as a fresh array's
        out, step = [], self.dtype.itemsize
        for s in reversed(self.shape):
            out.append(step)
            step *= max(s, 1)
        return tuple(reversed(out))

    def standin(self):
        return np.broadcast_to(np.zeros((), self.dtype), self.shape)

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(NO_DATA)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if kwargs.get("out") is not None:
            raise NotImplementedError("ndgrad: an in-place op on a meta tensor has no data to write")
        return meta_call(getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return meta_call(func, args, kwargs)

    def __getitem__(self, key):
        return meta_call(operator.getitem, (self, key), {})

    def __setitem__(self, key, value):
        raise NotImplementedError("ndgrad: an in-place op on a meta tensor has no data to write")

    def __len__(self):
        return self.shape[0]

    def __getattr__(self, name):
        if name in _DATA_READS:
            raise NotImplementedError(NO_DATA)
        attr = getattr(self.standin(), name)
        if callable(attr):
            return lambda *args, **kwargs: meta_call(getattr(np.ndarray, name), (self,) + args, kwargs)
        return _to_meta(attr)

    def __repr__(self):
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"


_DATA_READS = frozenset(("item", "tolist", "tobytes", "tofile", "dump", "dumps", "data", "ctypes", "flat"))


def _operator(fn, reflected=False):
    if reflected:
        return lambda self, other: meta_call(fn, (other, self), {})
    return lambda self, *other: meta_call(fn, (self,) + other, {})


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
              "rshift"):
    _fn = getattr(operator, _name if _name not in ("and", "or") else _name + "_")
    setattr(MetaArray, f"__{_name}__", _operator(_fn))
    setattr(MetaArray, f"__r{_name}__", _operator(_fn, reflected=True))
for _name in ("neg", "pos", "abs", "invert", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(MetaArray, f"__{_name}__", _operator(getattr(operator, _name)))
for _name in ("__bool__", "__float__", "__int__", "__index__", "__complex__", "__iter__"):
    setattr(MetaArray, _name, lambda self, *a: (_ for _ in ()).throw(NotImplementedError(NO_DATA)))


def _standins(x):
    if isinstance(x, MetaArray):   # (a WrapperArray's refuses)
        return x.standin()
    if type(x) in (list, tuple):
        return type(x)(_standins(v) for v in x)
    if isinstance(x, np.ndarray) and x.ndim:   # torch refuses to mix a CPU tensor into a meta op
        raise RuntimeError("Tensor on device cpu is not on the expected device meta!")
    return x


def _to_meta(x):
    if isinstance(x, (np.ndarray, np.generic)):
        return MetaArray(np.shape(x), x.dtype)
    if type(x) in (list, tuple):
        return type(x)(_to_meta(v) for v in x)
    return x


def meta_call(fn, args, kwargs):
    """fn run on the stand-ins of the meta arrays in args, its array results made meta again."""
    with np.errstate(all="ignore"):
        return _to_meta(fn(*_standins(args), **{k: _standins(v) for k, v in kwargs.items()}))


# torch's error for reading a tensor's unallocated memory (a wrapper subclass's instance has none)
NOT_ALLOCATED = ("The tensor has a non-zero number of elements, but its data is not allocated yet.\n"
                 "If you're using torch.compile/export/fx, it is likely that we are erroneously tracing into a custom "
                 "kernel. To fix this, please wrap the custom kernel into an opaque custom op. Please see the "
                 "following for details: https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html\n"
                 "If you're using Caffe2, Caffe2 uses a lazy allocation, so you will need to call mutable_data() or "
                 "raw_mutable_data() to actually allocate memory.")


class WrapperArray(MetaArray):
    """The storage of an instance of a wrapper subclass (`Tensor._make_wrapper_subclass`): the metadata
    it was made with (shape, dtype, strides, storage offset, layout, device; `policy`: its
    dispatch_sizes_strides_policy, None, "strides" or "sizes"), no data. Its subclass's
    __torch_dispatch__ handles the ops on it (they never reach this storage); what reads the data itself
    (`numpy()`, `tolist()`, an op run under no_dispatch()) raises torch's errors."""
    __slots__ = ("strides", "offset", "layout", "device", "cls_name", "policy")
    base = None   # (owns no memory)

    def __init__(self, shape, dtype, strides, offset, layout, device, cls_name, policy=None):
        super().__init__(shape, dtype)
        # (strides in bytes, as an array's: Tensor.stride() reads them the same way)
        self.strides = tuple(int(s) * self.dtype.itemsize for s in strides) if strides is not None else \
            MetaArray.strides.fget(self)
        self.offset, self.layout, self.device, self.cls_name, self.policy = offset, layout, device, cls_name, policy

    @property
    def flags(self):   # (Tensor.is_contiguous reads flags.c_contiguous)
        return _Flags(self._contiguous(reversed(range(len(self.shape)))), self._contiguous(range(len(self.shape))))

    def _contiguous(self, dims):
        step = self.dtype.itemsize
        for d in dims:
            if self.shape[d] != 1 and self.strides[d] != step:
                return False
            step *= self.shape[d]
        return True

    def standin(self):
        raise RuntimeError(NOT_ALLOCATED)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(".numpy() is not supported for tensor subclasses.")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise RuntimeError(NOT_ALLOCATED)

    def __array_function__(self, func, types, args, kwargs):
        if func is np.may_share_memory or func is np.shares_memory:
            return True   # what a view op's handler returns is a view of the wrapper (as torch's autograd makes it)
        raise RuntimeError(NOT_ALLOCATED)

    def __getitem__(self, key):
        raise RuntimeError(NOT_ALLOCATED)

    def __getattr__(self, name):
        if name == "tolist":
            raise RuntimeError(f".tolist() is not supported for tensor subclasses, got {self.cls_name}")
        raise RuntimeError(NOT_ALLOCATED) if not name.startswith("__") else AttributeError(name)

    def __repr__(self):
        return f"WrapperArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides})"


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous")

    def __init__(self, c, f):
        self.c_contiguous, self.f_contiguous = c, f
