"""Tensor: an array plus autograd metadata.

Hot fields are slots; rarely set ones (hooks, .grad, view bookkeeping) fall back to class-level
defaults and live in the instance dict once set, so creating a tensor costs a few assignments.
Operators and most methods are the public op functions (see `ops/_registry.py`'s METHODS),
attached when `ndgrad` is imported; the autograd methods (`backward`, `register_hook`, `retain_grad`...) are attached by the autograd
core (autograd/tensor_methods.py). This file holds
what is about the tensor itself, and imports only the layer below (the array backends, dtypes).
"""
import math
import warnings

import numpy as np

from . import _dtype
from .backends import current as current_backend, is_array, namespace
from ._sparse_array import sparse_coo, sparse_csr, strided
from ._nested_array import NestedArray
from ._repr import nested_repr, sparse_repr, tensor_repr


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        if ":" in type:
            type, idx = type.split(":")
            index = int(idx)
        if type not in ("cpu", "cuda", "meta"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {type}")
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type + (f":{self.index}" if self.index is not None else "")

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


CPU = device("cpu")


class Size(tuple):
    """torch.Size: a tuple of ints with torch's repr."""
    __slots__ = ()

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"

    def __getitem__(self, key):   # a slice of a Size is a Size, as in torch
        item = tuple.__getitem__(self, key)
        return Size(item) if type(key) is slice else item

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        return Size(tuple.__add__(tuple(other), self))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


class Tensor:
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_vc", "_base", "__dict__", "__weakref__")
    # rarely set state: class defaults, instance dict once set
    _grad = None
    _hooks = None              # HookDict of tensor hooks (leaves; non-leaves register on grad_fn)
    _post_acc_hooks = None
    _acc = None                # weakref to the AccumulateGrad node of a leaf
    _view_fn = None            # replays the view ops from the base (views only)
    _view_version = 0
    _creation = None           # views: "no_grad" or "multi" when torch forbids in-place ops on them
    _retains_grad = False
    _is_param = False
    _inference = False         # created under inference_mode
    _fw = None                 # forward AD: (dual level, tangent); see autograd/forward_ad.py
    __array_priority__ = 1000  # NumPy scalars defer to our reflected operators

    def __init__(self, data=None, *, requires_grad=False):
        if isinstance(data, Tensor):
            data = data._data
        backend = namespace(data) if is_array(data) else current_backend()   # an array keeps its backend
        self._data = backend.asarray(data if data is not None else [], dtype=_dtype.defaults.float.np)
        self._requires_grad = False
        self._grad_fn = None
        self._output_nr = 0
        self._vc = [0]
        self._base = None
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _make(cls, data, requires_grad, grad_fn, output_nr):
        t = object.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = [0]
        t._base = None
        return t

    # --- metadata -------------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return CPU

    @property
    def is_cuda(self):
        return False

    @property
    def layout(self):
        return strided if is_array(self._data) else self._data.layout

    @property
    def is_sparse(self):
        return self.layout is sparse_coo

    @property
    def is_sparse_csr(self):
        return self.layout is sparse_csr

    @property
    def is_nested(self):
        return type(self._data) is NestedArray

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    ndimension = dim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def stride(self, dim=None):
        if self._data.size:
            st = tuple(s // self._data.itemsize for s in self._data.strides)
        else:   # NumPy gives empty arrays zero strides; torch keeps the contiguous ones
            st = tuple(math.prod(max(n, 1) for n in self._data.shape[k + 1:]) for k in range(self._data.ndim))
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def storage_offset(self):
        if self._base is None:
            return 0
        return (self._data.__array_interface__["data"][0]
                - self._base._data.__array_interface__["data"][0]) // self._data.itemsize

    def is_contiguous(self, memory_format=None):
        return self._data.flags.c_contiguous

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def is_inference(self):
        return self._inference

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __hash__(self):
        return id(self)

    # --- autograd metadata ----------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad=True):
        return self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")

    def _set_requires_grad(self, requires_grad, dtype_message):  # torch words it per entry point
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError(dtype_message)
        if requires_grad and self.is_inference():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._view_version != self._vc[0] and self._view_fn is not None \
                and self._base._requires_grad:
            self._regenerate_view_grad_fn()
        return self._grad_fn

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def _is_view(self):
        return self._base is not None

    @property
    def grad(self):
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                "Tensor by mistake, make sure you access the leaf Tensor instead.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor "
                                   f"of size '{list(self._data.shape)}'. Please ensure that the gradient and the "
                                   "tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: expected {self.dtype}, "
                                   f"got {value.dtype}")
        self._grad = value

    @property
    def _version(self):
        return self._vc[0]

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def data(self):
        return self.detach()

    @data.setter
    def data(self, value):
        self._data = value._data

    def detach(self):
        t = Tensor._make(self._data, False, None, 0)
        t._vc = self._vc   # shares memory and version counter, but (as in torch) is no view: _base is None
        return t

    def detach_(self):
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    # --- conversion -----------------------------------------------------------------------
    def numpy(self, *, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        data = self._data
        return namespace(data).to_host(data) if is_array(data) else np.asarray(data)   # sparse: torch's TypeError

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        data = namespace(self._data).to_host(self._data) if is_array(self._data) else self._data
        return data if dtype is None else data.astype(dtype)

    # DLPack: how NumPy, CuPy, JAX and torch exchange arrays without copying (ndgrad.from_dlpack reads one)
    def __dlpack__(self, *args, **kwargs):
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "biu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return repr(self)

    def __repr__(self):
        if type(self._data) is NestedArray:
            return nested_repr(self)
        return tensor_repr(self) if is_array(self._data) else sparse_repr(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        return iter(self.flip(0).unbind(0)) if self._data.ndim else self

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        t = type(self)._make(self._data.copy(), self._requires_grad, None, 0)   # keeps the dtype
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = t
        return t

    # --- dtype and device conversions (all through the differentiable `to`) -------------------
    def float(self):
        return self.to(_dtype.float32)

    def double(self):
        return self.to(_dtype.float64)

    def half(self):
        return self.to(_dtype.float16)

    def long(self):
        return self.to(_dtype.int64)

    def int(self):
        return self.to(_dtype.int32)

    def short(self):
        return self.to(_dtype.int16)

    def char(self):
        return self.to(_dtype.int8)

    def byte(self):
        return self.to(_dtype.uint8)

    def bool(self):
        return self.to(_dtype.bool_)

    def cfloat(self):
        return self.to(_dtype.complex64)

    def cdouble(self):
        return self.to(_dtype.complex128)

    def type_as(self, other):
        return self.to(other.dtype)

    def type(self, dtype=None):
        if dtype is None:
            return f"torch.{self.dtype.title}Tensor"
        return self.to(dtype)

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        raise NotImplementedError("ndgrad's CUDA backend (CuPy) is not wired to ops yet; tensors live on the CPU")

    def _cast(self, np_dtype):
        """This tensor in another NumPy dtype, through the differentiable `to`."""
        return self.to(_dtype.from_numpy_dtype(np_dtype))


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n
