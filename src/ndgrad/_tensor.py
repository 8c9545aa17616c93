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
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _dtype
from .backends import current as current_backend, is_array, namespace
from ._sparse_array import sparse_coo, sparse_csr, strided
from ._nested_array import NestedArray
from ._meta_array import NOT_ALLOCATED, MetaArray, WrapperArray
from ._repr import nested_repr, sparse_repr, tensor_repr


# refusal of any in-place update of an inference tensor (here for resize_, raised by autograd/record for ops)
INFERENCE_INPLACE = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
                     "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
                     "for more details.")

# the device types torch's parser knows (ndgrad computes on "cpu" only; the others can be named)
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    """A device on which tensors live: a type (``"cpu"``, ``"cuda"``, ``"meta"``...) and an optional
    index, from a string (``"cuda:1"``) or from the two parts. ndgrad computes on the CPU (and has
    shape-only ``"meta"`` tensors): other devices can be named and compared, and creating tensors on
    them raises ``NotImplementedError``.

    Args:
        type (str or device): the type, optionally with ``:index``.
        index (int, optional): the device's index.

    Example::

        >>> torch.device("cpu")
        device(type='cpu')
        >>> d = torch.device("cuda:1")
        >>> d.type, d.index, str(d)
        ('cuda', 1, 'cuda:1')
    """
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):   # a bare index names the current accelerator, which ndgrad lacks
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit() or (len(idx) > 1 and idx[0] == "0"):
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in _DEVICE_TYPES:
            if type.strip() != type:
                raise RuntimeError(f"Invalid device string: '{type}'")
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                               f"string: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type + (f":{self.index}" if self.index is not None else "")

    def __eq__(self, other):   # a string is not equal to a device, as in torch
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
META = device("meta")   # tensors with a shape and dtype, no data (_meta_array.py)
_device_type = device   # (for functions with a `device` argument)

# The Tensor subclasses that define __torch_dispatch__ (Tensor.__init_subclass__ adds them): the op
# glue hands ops on their instances to it (ops/_registry.py's `dispatch_subclass`).
DISPATCH_TYPES = set()
# Tensor and the subclasses that ops treat exactly as a Tensor (nn.Parameter adds itself): the op glue's
# and the engine's array path's fast paths take their instances as they take a Tensor's
PLAIN_TYPES = set()
disabled_torch_function = None   # set by ops/_torch_function.py: its _disabled_torch_function_impl
# set by utils/_python_dispatch.py: (aten name, overload, tensor, *args) -> a metadata query of a wrapper
# subclass's instance made with a dispatch_sizes_strides_policy, answered by its __torch_dispatch__
dispatch_metadata = None
# set by utils/_python_dispatch.py: the `detach` (and `data`) of the __torch_dispatch__ subclasses, which hand
# the call to them as aten.detach.default (a wrapper subclass's detached instance is its handler's)
subclass_methods = {}


class Size(tuple):
    """The type of ``tensor.shape``: a tuple of ints.

    Args:
        iterable (iterable of int): the sizes. Default: ``()``.

    Example::

        >>> s = torch.zeros(2, 3).shape
        >>> s
        torch.Size([2, 3])
        >>> s[1], s.numel()
        (3, 6)
        >>> torch.Size([4, 5])
        torch.Size([4, 5])
    """
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
    """A multi-dimensional array of one dtype, on which autograd records the operations.

    ndgrad's tensors hold a NumPy array (CPU only; a ``meta`` tensor holds none) and carry torch's
    autograd state: :attr:`requires_grad`, :attr:`grad`, :attr:`grad_fn`, the version counter and
    view bookkeeping. Make them with :func:`ndgrad.tensor`, :func:`ndgrad.zeros` and the other
    creation functions rather than with the class.

    Example::

        >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> y = (x * x).sum()
        >>> y.backward()
        >>> x.grad
        tensor([[2., 4.],
                [6., 8.]])
    """
    # `_fn` is the slot behind the `_grad_fn` property (below the class), which refuses deletion as
    # torch does; the op glue, record and engine use the slot directly. `_vcs` holds the version counter
    # once it is shared, None (version 0) before: the `_vc` property (autograd/node.version_counter) makes it.
    __slots__ = ("_array", "_requires_grad", "_fn", "_output_nr", "_vcs", "_base", "__dict__", "__weakref__")
    if TYPE_CHECKING:   # for type checkers only: the methods the op registry attaches at import (x.sum(), ...)
        def __getattr__(self, name: str) -> Any: ...
    # rarely set state: class defaults, instance dict once set
    _grad = None
    _grad_dtype = False        # leaves: False = the tensor's dtype (torch's default), None = any, else a dtype
    _hooks = None              # HookDict of tensor hooks (leaves; non-leaves register on grad_fn)
    _post_acc_hooks = None
    _acc = None                # weakref to the AccumulateGrad node of a leaf
    _view_fn = None            # replays the view ops from the base (views only)
    _view_version = 0
    _dtype_view = None         # views through a dtype change: see autograd/record.dtype_view_fn
    _detached_from = None      # after detach_() of a non-leaf: a weakref to the history it had
    _creation = None           # views: "no_grad" or "multi" when torch forbids in-place ops on them
    _retains_grad = False
    _is_param = False
    _inference = False         # created under inference_mode
    _grad_modes = None         # the thread's grad-mode flags (autograd.grad_mode.state), set by autograd/tensor_methods
    _fw = None                 # forward AD: (dual level, tangent); see autograd/forward_ad.py
    _math_bits = 0             # torch's lazy conj()/_neg_view(): _array is the memory as stored, these bits
                               # (CONJ_BIT, NEG_BIT) say how to read it; see resolved_data
    __array_priority__ = 1000  # NumPy scalars defer to our reflected operators

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if getattr(cls, "__torch_dispatch__", None) is not None:
            DISPATCH_TYPES.add(cls)
            own = cls.__mro__[:cls.__mro__.index(Tensor)]   # (a subclass's own detach, or its base's, stays)
            for name, fn in subclass_methods.items():
                if not any(name in vars(k) for k in own):
                    setattr(cls, name, fn)
            # as torch: a subclass that defines __torch_dispatch__ and keeps Tensor's __torch_function__
            # opts out of the latter (its ops' results are the plain Tensors its handler returns)
            default = getattr(Tensor.__torch_function__, "__func__", None)   # (set by ops/_torch_function.py)
            if "__torch_dispatch__" in vars(cls) and default is not None and \
                    getattr(cls.__torch_function__, "__func__", None) is default:
                cls.__torch_function__ = disabled_torch_function

    def __new__(cls, *args, requires_grad=False, device=None):
        """The legacy constructor: `Tensor(data)` (a Tensor is aliased, other data read in the
        default float dtype), `Tensor(*sizes)` (zero-filled) or `Tensor()` (empty). As in torch the
        tensor is made here, so a subclass's `__init__` may take arguments of its own."""
        self = object.__new__(cls)
        alias = args[0] if len(args) == 1 and isinstance(args[0], Tensor) else None
        self._array = alias._array if alias is not None else legacy_array(args, _dtype.defaults.float, device)
        self._requires_grad = False
        self._fn = None
        self._output_nr = 0
        self._vcs = alias._vc if alias is not None else None   # an alias shares the version counter
        self._base = None
        if alias is not None and alias._math_bits:
            self._math_bits = alias._math_bits
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, *args, **kwargs):
        pass   # (made by __new__; a subclass's __init__ calling super().__init__() changes nothing, as torch)

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, dispatch_sizes_strides_policy=None, dispatch_device=False,
                       dispatch_layout=False, _extra_dispatch_keys=None, storage_size=None):
        """A new leaf of the Tensor subclass `cls` on `data`'s memory and version counter, requiring grad
        if asked: how a subclass's ``__new__`` makes its instances in torch (``cls.__new__`` is not called
        again). The dispatch arguments belong to torch's dispatcher and change nothing here."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                            "possible. Make sure your class inherits from Tensor.")
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
                            f"{type(data).__name__}")
        return Tensor.__new__(cls, data)._set_requires_grad(
            require_grad, "Only Tensors of floating point and complex dtype can require gradients")

    @staticmethod
    def _make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None, dtype=None,
                               layout=strided, device=None, pin_memory=False, requires_grad=False,
                               dispatch_sizes_strides_policy=None, dispatch_device=False, dispatch_layout=False,
                               _extra_dispatch_keys=None, storage_size=None):
        """A new leaf of the Tensor subclass `cls` (which defines ``__torch_dispatch__``) with the given
        metadata and no data of its own: how a subclass that wraps other tensors (or none) makes its
        instances in torch. Its ops go to ``cls.__torch_dispatch__``; what reads its data raises. The
        `dispatch_sizes_strides_policy` ("strides" or "sizes") sends the queries of its strides (and sizes)
        to ``__torch_dispatch__`` too (as ``aten.sym_stride.default``, ``aten.sym_size.default``, ...);
        the other dispatch arguments belong to torch's dispatcher."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                            "possible. Make sure your class inherits from Tensor.")
        if cls not in DISPATCH_TYPES:
            raise TypeError(f"{cls.__name__} must define __torch_dispatch__")
        if type(size) not in (tuple, list, Size) or not all(isinstance(n, int) for n in size):
            raise TypeError(f"_make_wrapper_subclass(): argument 'size' (position 2) must be tuple of ints, not "
                            f"{type(size).__name__}")
        if strides is not None and len(strides) != len(size):
            raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                               f"({len(strides)})")
        if storage_offset is not None and strides is None:
            raise RuntimeError("setting storage offset without stride not supported")
        if dispatch_sizes_strides_policy not in (None, "strides", "sizes"):
            raise ValueError(f"Unknown sizes_strides_policy: {dispatch_sizes_strides_policy}; expected 'strides' "
                             f"or 'sizes'")
        dev = CPU if device is None else device if isinstance(device, _device_type) else _device_type(device)
        dt = (dtype if dtype is not None else _dtype.defaults.float).np
        if dispatch_sizes_strides_policy is not None and cls not in _POLICY_TYPES:
            _ask_metadata_by_dispatch(cls)
        t = object.__new__(cls)
        t._array = WrapperArray(size, dt, strides, storage_offset or 0, layout, dev, cls.__name__,
                                dispatch_sizes_strides_policy)
        t._requires_grad = False
        t._fn = None
        t._output_nr = 0
        t._vcs = None
        t._base = None
        return t._set_requires_grad(requires_grad, "Only Tensors of floating point and complex dtype can require "
                                                   "gradients")

    @classmethod
    def _make(cls, data, requires_grad, grad_fn, output_nr):
        # (spelled out again in ops/_registry.call's one-array path: a change here goes there too)
        t = object.__new__(cls)
        t._array = data
        t._requires_grad = requires_grad
        t._fn = grad_fn
        t._output_nr = output_nr
        t._vcs = None
        t._base = None
        return t

    # --- metadata -------------------------------------------------------------------------
    @property
    def shape(self):
        """The size of each dimension, as a :class:`ndgrad.Size` (a tuple); the same as :meth:`size`.

        Example::

            >>> torch.zeros(2, 3).shape
            torch.Size([2, 3])
        """
        return Size(self._array.shape)

    def size(self, dim=None):
        """The size of each dimension, or of dimension `dim` alone.

        Args:
            dim (int, optional): the dimension (negative counts from the end).

        Returns:
            Size or int: all the sizes (a tuple) or the one asked for.

        Example::

            >>> x = torch.zeros(2, 3)
            >>> x.size(), x.size(-1)
            (torch.Size([2, 3]), 3)
        """
        if dim is None:
            return Size(self._array.shape)
        return self._array.shape[_wrap_dim(dim, self._array.ndim)]

    @property
    def dtype(self):
        """The type of the elements (:class:`ndgrad.dtype`).

        Example::

            >>> torch.tensor([1, 2]).dtype, torch.tensor([1.0]).dtype
            (torch.int64, torch.float32)
        """
        return _dtype.from_numpy_dtype(self._array.dtype)

    @property
    def device(self):
        """Where the data lives, ``cpu`` (ndgrad has no accelerator devices), or ``meta`` for a tensor
        with a shape and a dtype but no data.

        Example::

            >>> torch.tensor([1.0]).device
            device(type='cpu')
        """
        a = self._array
        return META if type(a) is MetaArray else CPU if type(a) is not WrapperArray else a.device

    @property
    def is_meta(self):
        """Whether this tensor is on the ``meta`` device (shape and dtype only, no data).

        Example::

            >>> torch.empty(2, device="meta").is_meta
            True
        """
        return type(self._array) is MetaArray or type(self._array) is WrapperArray and self._array.device == META

    @property
    def is_cuda(self):
        """Whether this tensor lives on a CUDA GPU; always ``False`` in ndgrad.

        Example::

            >>> torch.tensor([1.0]).is_cuda
            False
        """
        return False

    @property
    def layout(self):
        """The memory layout, ``torch.strided`` (dense) or a sparse one (``torch.sparse_coo``,
        ``torch.sparse_csr``, ...).

        Example::

            >>> torch.tensor([1.0]).layout, torch.tensor([1.0]).to_sparse().layout
            (torch.strided, torch.sparse_coo)
        """
        return strided if is_array(self._array) else self._array.layout

    @property
    def is_sparse(self):
        """Whether this tensor has the sparse COO layout.

        Example::

            >>> x = torch.tensor([[0.0, 1.0]])
            >>> x.is_sparse, x.to_sparse().is_sparse
            (False, True)
        """
        return self.layout is sparse_coo

    @property
    def is_sparse_csr(self):
        """Whether this tensor has the sparse CSR layout.

        Example::

            >>> torch.tensor([[0.0, 1.0]]).to_sparse_csr().is_sparse_csr
            True
        """
        return self.layout is sparse_csr

    @property
    def is_nested(self):
        """Whether this is a nested tensor (components of different shapes, ``torch.nested``).

        Example::

            >>> torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]).is_nested
            True
        """
        return type(self._array) is NestedArray

    @property
    def ndim(self):
        """The number of dimensions (the same as :meth:`dim`).

        Example::

            >>> torch.zeros(2, 3).ndim
            2
        """
        return self._array.ndim

    def dim(self):
        """The number of dimensions.

        Example::

            >>> torch.zeros(2, 3).dim(), torch.tensor(1.0).dim()
            (2, 0)
        """
        return self._array.ndim

    ndimension = dim

    def numel(self):
        return self._array.size

    nelement = numel

    def element_size(self):
        """The size of one element in bytes.

        Example::

            >>> torch.tensor([1.0]).element_size(), torch.tensor([1]).element_size()
            (4, 8)
        """
        return self._array.itemsize

    @property
    def itemsize(self):
        """The size of one element in bytes (``element_size()``).

        Example::

            >>> torch.ones(2, dtype=torch.float16).itemsize
            2
        """
        return self.element_size()

    @property
    def nbytes(self):
        """The bytes of the elements the tensor shows, ``numel() * itemsize`` (an expanded tensor's
        repeated elements count each time, as in torch).

        Example::

            >>> torch.ones(3, 4, dtype=torch.float64).nbytes, torch.ones(1).expand(5).nbytes
            (96, 20)
        """
        return self.numel() * self.element_size()

    def stride(self, dim=None):
        """The strides: how many elements apart in memory two neighbours along each dimension are.

        Args:
            dim (int, optional): the one dimension whose stride to return.

        Returns:
            tuple or int: all the strides, or the one asked for.

        Example::

            >>> x = torch.zeros(2, 3)
            >>> x.stride(), x.t().stride()
            ((3, 1), (1, 3))
        """
        if self._array.size:
            st = tuple(s // self._array.itemsize for s in self._array.strides)
        else:   # NumPy gives empty arrays zero strides; torch keeps the contiguous ones
            st = tuple(math.prod(max(n, 1) for n in self._array.shape[k + 1:]) for k in range(self._array.ndim))
        return st if dim is None else st[_wrap_dim(dim, self._array.ndim)]

    def storage_offset(self):
        """The offset of this tensor's first element from the start of its storage, in elements.

        Example::

            >>> x = torch.arange(5)
            >>> x[2:].storage_offset()
            2
        """
        if self._base is None and (not is_array(self._array) or self._array.base is None):
            return 0 if type(self._array) is not WrapperArray else self._array.offset
        owner = _owner(self) if is_array(self._array) else self._base._array   # from the start of the memory
        return (self._array.__array_interface__["data"][0]
                - owner.__array_interface__["data"][0]) // self._array.itemsize

    def is_contiguous(self, memory_format=None):
        """Whether the elements lie in memory in the order `memory_format` gives (default: row-major, C order).

        Args:
            memory_format (memory_format, optional): the order to check (``torch.channels_last`` ...).

        Example::

            >>> x = torch.zeros(2, 3)
            >>> x.is_contiguous(), x.t().is_contiguous()
            (True, False)
        """
        if memory_format is None or memory_format is contiguous_format or not is_array(self._array):
            return self._array.flags.c_contiguous
        d = self._array
        return all(s == f for s, f, n in zip(d.strides, format_strides(d.shape, d.itemsize, memory_format), d.shape)
                   if n > 1)

    def is_floating_point(self):
        return self._array.dtype.kind in _dtype.FLOAT_KINDS

    def is_complex(self):
        return self._array.dtype.kind == "c"

    def data_ptr(self):
        """The memory address of this tensor's first element (an int).

        Example::

            >>> x = torch.arange(4)
            >>> x[1:].data_ptr() - x.data_ptr() == x.element_size()
            True
        """
        if type(self._array) is WrapperArray:   # no memory: torch's null pointer
            return 0
        return self._array.__array_interface__["data"][0]

    def is_inference(self):
        return self._inference

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __hash__(self):
        return id(self)

    # --- autograd metadata ----------------------------------------------------------------
    @property
    def requires_grad(self):
        """Whether autograd records the operations on this tensor, so that gradients flow to it.

        Set it on a leaf (a tensor made by the user) to have its gradient accumulated into :attr:`grad`;
        only floating-point and complex tensors can require gradients.

        Example::

            >>> x = torch.tensor([1.0, 2.0])
            >>> x.requires_grad
            False
            >>> x.requires_grad = True
            >>> (x * 2).requires_grad
            True
        """
        # a view requires grad once its base does, even if the base started to after the view was made
        return self._requires_grad or self._base is not None and self._base._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value and self._fn is not None:   # (requires_grad_(True) lets it pass, as torch)
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can require gradients")

    def requires_grad_(self, requires_grad=True):
        return self._set_requires_grad(requires_grad, "only Tensors of floating point dtype can require gradients")

    def _set_requires_grad(self, requires_grad, dtype_message):  # torch words it per entry point
        if self._fn is not None and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and self._array.dtype.kind not in _dtype.INEXACT_KINDS:
            raise RuntimeError(dtype_message)
        if requires_grad and self._inference and not self._grad_modes.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        """The autograd node that produced this tensor (its backward function), or ``None`` for a leaf.

        Example::

            >>> x = torch.tensor([1.0], requires_grad=True)
            >>> x.grad_fn is None, (x * 2).grad_fn.name()
            (True, 'MulBackward0')
        """
        if self._base is not None and self._view_version != self._vc[0] and self._view_fn is not None \
                and self._base._requires_grad:
            self._regenerate_view_grad_fn()
        fn = self._fn
        if fn is not None and fn._out_meta is None and self._output_nr == 0:
            # a node with one output records its metadata only when asked (Node._input_metadata)
            fn._out_meta = [(self._array.shape, self._array.dtype)]
        return fn

    @property
    def is_leaf(self):
        """Whether this tensor is a leaf of the autograd graph, made by the user rather than by an op
        that autograd recorded. Only leaves that require grad get :attr:`grad` filled by backward.

        Example::

            >>> x = torch.tensor([1.0], requires_grad=True)
            >>> x.is_leaf, (x * 2).is_leaf
            (True, False)
        """
        return self.grad_fn is None

    def _is_view(self):
        return self._base is not None

    @property
    def grad(self):
        """The gradient accumulated into this tensor by :meth:`backward` (``None`` until then).

        Only leaves get one, and non-leaves that called :meth:`retain_grad`; reading it on another
        non-leaf warns. It can be assigned (a tensor of the same shape and dtype) or deleted.

        Example::

            >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
            >>> (x * x).sum().backward()
            >>> x.grad
            tensor([2., 4.])
        """
        if self._grad is None and self._fn is not None and not self._retains_grad:
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
            if value._array.shape != self._array.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._array.shape)}' to a tensor "
                                   f"of size '{list(self._array.shape)}'. Please ensure that the gradient and the "
                                   "tensor are the same size")
            want = self._grad_dtype if self._grad_dtype is not False else self.dtype
            if want is not None and value._array.dtype != want.np:
                raise RuntimeError(f"attempting to assign a gradient with dtype '{_c_type(value.dtype)}' to a tensor "
                                   f"with grad_dtype '{want.title}'. The gradient must match the tensor's grad_dtype "
                                   "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute "
                                   "with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
                                   "Diverging the dtypes of a tensor and its gradient may break downstream systems "
                                   "that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def grad_dtype(self):
        """The dtype of this leaf's gradient.

        A gradient accumulated into :attr:`grad` is cast to it, and a tensor assigned to ``.grad`` must
        have it. It is the tensor's own dtype unless set; None lets a gradient of any dtype through.
        Only leaves have it (reading or setting it on another tensor raises RuntimeError), and it can be
        changed only while ``.grad`` is None or already of the new dtype.

        Example::

            >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
            >>> w.grad_dtype
            torch.float32
            >>> w.grad_dtype = torch.float64
            >>> (w * 2).sum().backward()
            >>> w.grad
            tensor([2., 2.], dtype=torch.float64)
        """
        if not self.is_leaf:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        return self.dtype if self._grad_dtype is False else self._grad_dtype

    @grad_dtype.setter
    def grad_dtype(self, value):
        if not self.is_leaf:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtype.dtype):
            raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
        grad = self._grad
        if value is not None and grad is not None and grad._array.dtype != value.np:
            raise RuntimeError(f"Cannot set grad_dtype to '{value.title}' because there is already a gradient with "
                               f"dtype '{_c_type(grad.dtype)}'. Please clear the gradient (.grad = None) before "
                               "changing grad_dtype, or ensure the new grad_dtype matches the existing gradient's "
                               "dtype.")
        self._grad_dtype = value

    @property
    def volatile(self):   # removed in torch 0.4: no_grad replaced it
        """Removed in torch 0.4: use :class:`ndgrad.no_grad` instead.

        Kept so that old code runs: it is always ``False``, reading it warns, and setting it warns and
        has no effect.

        Example::

            >>> import warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore")
            ...     torch.tensor([1.0]).volatile
            False
        """
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value):
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                      UserWarning, stacklevel=2)

    @volatile.deleter
    def volatile(self):
        warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                      UserWarning, stacklevel=2)

    @property
    def _version(self):
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    @property
    def output_nr(self):
        """Which output of its :attr:`grad_fn` this tensor is (0 for a leaf or a single output).

        Example::

            >>> a, b = torch.tensor([1.0, 2.0], requires_grad=True).unbind()
            >>> a.output_nr, b.output_nr
            (0, 1)
        """
        return self._output_nr

    @property
    def retains_grad(self):
        """Whether this non-leaf tensor keeps its gradient in :attr:`grad` (after :meth:`retain_grad`).

        Example::

            >>> y = torch.tensor([1.0], requires_grad=True) * 2
            >>> y.retain_grad()
            >>> y.retains_grad
            True
        """
        return self._retains_grad

    @property
    def data(self):
        """This tensor's values without its autograd history, as a tensor sharing its memory that
        requires no grad. Unlike :meth:`detach`, it has a version counter of its own: in-place changes
        made through it escape autograd's checks (a gradient computed afterwards silently uses the new
        values), which is why `detach` is the safer choice.

        Assigning a tensor to ``x.data`` swaps the values of `x` for its, keeping the autograd identity of `x`.

        Example::

            >>> x = torch.tensor([1.0], requires_grad=True)
            >>> x.data
            tensor([1.])
            >>> x.data = torch.tensor([5.0])
            >>> x
            tensor([5.], requires_grad=True)
        """
        t = Tensor._make(self._array, False, None, 0)   # (a fresh version counter: see above)
        if self._math_bits:
            t._math_bits = self._math_bits
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if is_array(self._array) != is_array(value._array) \
                or (type(self._array) is NestedArray) != (type(value._array) is NestedArray):
            raise RuntimeError("Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                               "incompatible tensor type.")
        if self._requires_grad and value._array.dtype.kind not in _dtype.INEXACT_KINDS:
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._vcs = self._vc   # made before the data changes: the counter stays the tensor's (see node.version_counter)
        self._array = value._array
        if self._math_bits or value._math_bits:
            self._math_bits = value._math_bits

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    def detach(self):
        """A new tensor that shares this one's data but is cut from the autograd graph: it does not require
        grad and has no ``grad_fn``. In-place changes to either are seen by both.

        Returns:
            Tensor: the detached tensor.

        Example::

            >>> x = torch.tensor([1., 2.], requires_grad=True)
            >>> y = (x * 2).detach()
            >>> y, y.requires_grad
            (tensor([2., 4.]), False)
        """
        t = Tensor._make(self._array, False, None, 0)
        t._vcs = self._vcs or self._vc   # shares memory and version counter, but (as in torch) is no view
        if self._math_bits:
            t._math_bits = self._math_bits
        return t

    def detach_(self):
        if self._base is not None:   # any view, as torch (whether or not its base requires grad)
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                               "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                               "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                               "function in torch/optim/optimizer.py as the solution.")
        if self._fn is not None:   # nodes that saved this tensor with its history refuse it (node.py)
            self._detached_from = weakref.ref(self._fn)
        self._fn = None
        self._requires_grad = False
        self._output_nr = 0
        if self._fw is not None:   # as detach(), it drops the forward-mode tangent too
            self._fw = None
        return self

    # --- memory -------------------------------------------------------------------------------
    def untyped_storage(self):
        """The storage under this tensor: its memory as bytes, shared with its views.

        Example::

            >>> x = torch.zeros(2, 3)
            >>> x.untyped_storage().nbytes()
            24
        """
        return UntypedStorage(_owner(self))

    def storage(self):
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=2)
        return TypedStorage(_owner(self), self._array.dtype)

    def resize_(self, *sizes, memory_format=None):
        """resize_(*sizes, memory_format=None) -> Tensor

        Gives this tensor a new shape in place, in row-major order: its memory is reused where it is large
        enough and grown otherwise (ndgrad fills the new elements with zeros; torch leaves them undefined).
        Not allowed on a tensor that requires grad.

        Args:
            sizes (int...): the new shape (ints, or one sequence).

        Example::

            >>> x = torch.tensor([1, 2, 3, 4])
            >>> x.resize_(2, 2)
            tensor([[1, 2],
                    [3, 4]])
        """
        modes = self._grad_modes
        if self._inference and not modes.inference:
            raise RuntimeError(INFERENCE_INPLACE)
        if self._requires_grad and not modes.inference:   # inference mode skips autograd's checks, as in torch
            raise RuntimeError("cannot resize variables that require grad")
        shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
        if shape == self._array.shape:
            return self   # nothing changes, and the version stays
        n = 1
        for d in shape:
            n *= d
        old = self._array
        self._vcs = self._vc   # made before the data changes (see node.version_counter)
        owner = _owner(self)
        offset = (old.__array_interface__["data"][0] - owner.__array_interface__["data"][0]) if old.size else 0
        if offset + n * old.itemsize <= owner.nbytes:   # the memory is large enough: a new geometry on it
            self._array = np.ndarray(shape, old.dtype, buffer=owner, offset=offset)
        else:   # grown: new memory holding the old values first (the rest uninitialized in torch; zeros here)
            data = namespace(old).zeros(n, dtype=old.dtype)
            flat = old.reshape(-1)
            data[:min(n, flat.size)] = flat[:n]
            self._array = data.reshape(shape)
        self._vc[0] += 1
        return self

    def resize_as_(self, other, memory_format=None):
        """Resizes this tensor in place to the shape of `other` (see ``Tensor.resize_``: new elements are
        uninitialized).

        Args:
            other (Tensor): gives the shape.
            memory_format (optional): the memory layout.

        Returns:
            Tensor: this tensor.

        Example::

            >>> torch.zeros(1).resize_as_(torch.ones(2, 3)).shape
            torch.Size([2, 3])
        """
        return self.resize_(other._array.shape)

    # --- conversion -----------------------------------------------------------------------
    def numpy(self, *, force=False):
        """This tensor's data as a NumPy array, sharing memory (no copy) on the CPU.

        Args:
            force (bool, optional): allow it on a tensor that requires grad (else a RuntimeError).

        Example::

            >>> x = torch.tensor([1.0, 2.0])
            >>> a = x.numpy()
            >>> a[0] = 5.0
            >>> x
            tensor([5., 2.])
        """
        if self._requires_grad and not force and self._grad_modes.enabled:   # allowed under no_grad, as torch
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        _refuse_math_bits(self)
        data = self._array
        return namespace(data).to_host(data) if is_array(data) else np.asarray(data)   # sparse: torch's TypeError

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and self._grad_modes.enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        _refuse_math_bits(self)
        data = namespace(self._array).to_host(self._array) if is_array(self._array) else self._array
        return data if dtype is None else data.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A NumPy ufunc applied to tensors returns a tensor (`np.exp(x)`); bool results come back as
        uint8, as torch's do."""
        array = np.asarray(array)
        return Tensor._make(array.astype(np.uint8) if array.dtype == np.bool_ else array, False, None, 0)

    # DLPack: how NumPy, CuPy, JAX and torch exchange arrays without copying (ndgrad.from_dlpack reads one)
    def __dlpack__(self, *args, **kwargs):
        if self._requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        if self._math_bits & CONJ_BIT:   # (torch exports a negative view's memory as it is)
            raise BufferError("Can't export tensors with the conjugate bit set")
        return self._array.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    def item(self):
        """The value of a one-element tensor, as a Python number.

        Example::

            >>> torch.tensor([2.5]).item(), torch.tensor(3).item()
            (2.5, 3)
        """
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted to Scalar")
        return resolved_data(self).reshape(()).item()

    def tolist(self):
        """This tensor's values as (nested) Python lists of Python numbers; a 0-d tensor gives a number.

        Example::

            >>> torch.tensor([[1, 2], [3, 4]]).tolist()
            [[1, 2], [3, 4]]
        """
        return resolved_data(self).tolist()

    def __bool__(self):
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(resolved_data(self).reshape(()))

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __complex__(self):
        return complex(self._scalar())

    def _scalar(self):
        """item() for Python's int()/float()/complex(), which refuse more elements with ValueError (torch)."""
        if self._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self):
        if self._array.dtype.kind not in "biu" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec):
        if self._array.ndim == 0:
            return self.item().__format__(spec)
        return repr(self)

    def __repr__(self):
        if type(self._array) is NestedArray:
            return nested_repr(self)
        return tensor_repr(self, resolved_data(self)) if is_array(self._array) or type(self._array) is MetaArray \
            else sparse_repr(self)

    def __iter__(self):
        if self._array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        return iter(self.flip(0).unbind(0)) if self._array.ndim else self

    def __deepcopy__(self, memo):
        if self._fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        t = type(self)._make(resolved_data(self).copy(), self._requires_grad, None, 0)   # keeps the dtype
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = t
        return t

    def __reduce_ex__(self, protocol):
        """Pickle (and copy.copy) as torch does: the values, dtype, requires_grad, the type
        (Parameter stays Parameter) and user attributes; never the graph, .grad or hooks, so a
        non-leaf comes back as a leaf."""
        state = {k: v for k, v in self.__dict__.items() if not hasattr(Tensor, k)}   # ours are class defaults
        if self._math_bits:   # as torch's pickle: the memory and its lazy conj/neg bits
            state["_math_bits"] = self._math_bits
        return _rebuild_tensor, (type(self), _pickled_array(self._array), self._requires_grad, state)

    # --- dtype and device conversions (all through the differentiable `to`) -------------------
    def float(self, memory_format=None):
        return self.to(_dtype.float32, memory_format=memory_format)

    def double(self, memory_format=None):
        return self.to(_dtype.float64, memory_format=memory_format)

    def half(self, memory_format=None):
        return self.to(_dtype.float16, memory_format=memory_format)

    def bfloat16(self, memory_format=None):
        return self.to(_dtype.bfloat16, memory_format=memory_format)

    def long(self, memory_format=None):
        return self.to(_dtype.int64, memory_format=memory_format)

    def int(self, memory_format=None):
        return self.to(_dtype.int32, memory_format=memory_format)

    def short(self, memory_format=None):
        return self.to(_dtype.int16, memory_format=memory_format)

    def char(self, memory_format=None):
        """This tensor cast to ``torch.int8`` (``self.to(torch.int8)``).

        Example::

            >>> torch.tensor([1.7, -2.2]).char()
            tensor([ 1, -2], dtype=torch.int8)
        """
        return self.to(_dtype.int8, memory_format=memory_format)

    def byte(self, memory_format=None):
        """This tensor cast to ``torch.uint8`` (``self.to(torch.uint8)``).

        Example::

            >>> torch.tensor([1.7, 2.2]).byte()
            tensor([1, 2], dtype=torch.uint8)
        """
        return self.to(_dtype.uint8, memory_format=memory_format)

    def bool(self, memory_format=None):
        return self.to(_dtype.bool_, memory_format=memory_format)

    def cfloat(self, memory_format=None):
        return self.to(_dtype.complex64, memory_format=memory_format)

    def cdouble(self, memory_format=None):
        return self.to(_dtype.complex128, memory_format=memory_format)

    def chalf(self, memory_format=None):
        """chalf(memory_format=torch.preserve_format) -> Tensor

        In torch, this tensor cast to ``torch.complex32`` (``self.to(torch.complex32)``). ndgrad has no
        such dtype (NumPy has no half-precision complex type to store it), so it raises
        NotImplementedError; use :meth:`cfloat` (complex64) instead.

        Args:
            memory_format (ndgrad.memory_format, optional): the memory format of the result.

        Raises:
            NotImplementedError: always.

        Example (torch only)::

            x = torch.tensor([1.0, 2.0])
            x.chalf()    # torch: tensor([1.+0.j, 2.+0.j], dtype=torch.complex32); ndgrad: NotImplementedError
            x.cfloat()   # both: tensor([1.+0.j, 2.+0.j])
        """
        # NumPy has no half-precision complex type to store it in; emulating it in complex64 would need
        # a dtype tag apart from the array's and a rounding of both parts after every op
        raise NotImplementedError("chalf: ndgrad has no complex32 (ComplexHalf) dtype")

    def type_as(self, other):
        """This tensor cast to the dtype of `other` (itself if it has it already).

        Args:
            other (Tensor): the tensor whose dtype to take.

        Example::

            >>> torch.tensor([1.5, 2.5]).type_as(torch.tensor([1]))
            tensor([1, 2])
        """
        return self.to(other.dtype)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """type(dtype=None, non_blocking=False, **kwargs) -> str or Tensor

        The legacy type name of this tensor, or this tensor converted to another type.

        Without `dtype`, the name of the tensor's legacy type (``'torch.FloatTensor'``; sparse
        tensors' are in ``torch.sparse``). With it, the tensor converted to it (itself if it has that type
        already); a ``'torch.cuda.*'`` name raises, as ndgrad is CPU only.

        Args:
            dtype (dtype, type or str, optional): a dtype, a legacy type (``torch.LongTensor``) or a
                legacy type name (``'torch.DoubleTensor'``).
            non_blocking (bool, optional): accepted for torch's API (copies here are synchronous).

        Returns:
            str or Tensor: the type name, or the converted tensor.

        Example::

            >>> x = torch.tensor([1.5, 2.5])
            >>> x.type()
            'torch.FloatTensor'
            >>> x.type(torch.int64)
            tensor([1, 2])
            >>> x.type('torch.DoubleTensor')
            tensor([1.5000, 2.5000], dtype=torch.float64)
        """
        if dtype is None:   # sparse COO tensors' legacy types live in torch.sparse
            return f"torch.{'sparse.' if self.is_sparse else ''}{self.dtype.title}Tensor"
        if isinstance(dtype, str):
            if dtype.startswith("torch.cuda."):
                return self.cuda()
            target = _LEGACY_NAMES.get(dtype)
        else:
            target = dtype if isinstance(dtype, _dtype.dtype) else getattr(dtype, "_legacy_dtype", None)
        if target is None:
            raise ValueError(f"invalid type: '{dtype if isinstance(dtype, str) else getattr(dtype, '__name__', dtype)}'")
        return self.to(target, non_blocking=non_blocking)

    def cpu(self):
        """This tensor on the CPU: itself, as every ndgrad tensor lives there.

        Example::

            >>> x = torch.tensor([1.0])
            >>> x.cpu() is x
            True
        """
        return self

    def cuda(self, device=None, non_blocking=False):
        raise NotImplementedError("ndgrad's CUDA backend (CuPy) is not wired to ops yet; tensors live on the CPU")

    def _cast(self, np_dtype):
        """This tensor in another NumPy dtype, through the differentiable `to`."""
        return self.to(_dtype.from_numpy_dtype(np_dtype))


_LEGACY_NAMES = {f"torch.{d.title}Tensor": d for d in _dtype.ALL}
_C_TYPES = {"Bool": "bool", "Byte": "unsigned char", "Char": "signed char", "Short": "short int", "Int": "int",
            "Long": "long int", "Half": "c10::Half", "Float": "float", "Double": "double",
            "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>"}


def _pickled_array(a):
    """What pickles a tensor's array: a NumPy view as (its memory-owning root, byte offset, shape,
    dtype, byte strides), so the strides survive, as torch pickles the whole storage; the root goes
    through a fresh `.view()` so that, as in torch, tensors pickled together do not share memory
    while copy.copy (which does not pickle) does. Anything else (another backend's array, sparse,
    nested) as itself."""
    if type(a) is not np.ndarray:
        return a
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is a or not root.flags.c_contiguous:
        return a
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return root.view(), offset, a.shape, a.dtype, a.strides


def _rebuild_tensor(cls, data, requires_grad, state):
    if type(data) is tuple:
        root, offset, shape, dtype, strides = data
        data = np.ndarray(shape, dtype, buffer=root, offset=offset, strides=strides)
    t = cls._make(data, False, None, 0)
    if requires_grad:
        t.requires_grad_(True)
    t.__dict__.update(state)
    return t


def _c_type(d):
    """The C++ element type torch's messages name a dtype by (float, long int, c10::Half...)."""
    return _C_TYPES.get(d.title, "c10::" + d.title)


def _tensor_options(d):
    """How torch's errors name a dtype's tensor options (the C++ type of its elements)."""
    return (f"TensorOptions(dtype={_C_TYPES[d.title]}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def legacy_array(args, dtype, device=None, backend=None):
    """The array of a legacy constructor call (torch.Tensor, torch.FloatTensor, x.new): no args or
    None: empty; ints or a Size: a zero-filled array of that shape; else data in `dtype`."""
    if device is not None and device != "cpu" and str(device) != "cpu":
        raise NotImplementedError(f"legacy tensor constructor (device={str(device)!r}): ndgrad only has the CPU "
                                  "backend wired to ops so far")
    if len(args) == 1 and not isinstance(args[0], (int, np.integer, Size)):
        data = args[0]
        if isinstance(data, (float, complex)) or (isinstance(data, np.generic) and not data.ndim):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        if data is not None:
            if isinstance(data, Tensor):
                data = data._array
            backend = namespace(data) if is_array(data) else (backend or current_backend())
            with np.errstate(all="ignore"):
                return backend.asarray(data, dtype=dtype.np)
        args = (0,)   # no data: an empty vector
    sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args or (0,)
    for i, n in enumerate(sizes):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type(n).__name__}\"")
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{', '.join(map(str, sizes))}]")
    return (backend or current_backend()).zeros(tuple(int(n) for n in sizes), dtype=dtype.np)


# Tensor has no __delattr__: defining one routes every attribute store on every tensor through a
# Python-level __setattr__ and keeps CPython from specialising slot stores (3x the cost of making a
# tensor). The attributes torch refuses to delete refuse it through their own deleters instead.
def _refuse_deletion(exc, message):
    def deleter(self):
        raise exc(message)
    return deleter


# torch's legacy attribute: None unless set (ndgrad keeps tensor hooks elsewhere and never reads it)
def _get_backward_hooks(self):
    return self.__dict__.get("_backward_hooks")


def _set_backward_hooks(self, value):
    self.__dict__["_backward_hooks"] = value


_FN_SLOT = Tensor.__dict__["_fn"]
Tensor._grad_fn = property(_FN_SLOT.__get__, _FN_SLOT.__set__, _refuse_deletion(
    RuntimeError, "Deletion of _grad_fn not allowed. Detach tensor instead!"), "The node that made this tensor "
    "(None for a leaf) as recorded, without the regeneration of a view's history that grad_fn does.")
Tensor._backward_hooks = property(_get_backward_hooks, _set_backward_hooks, _refuse_deletion(
    RuntimeError, "Deletion of _backwards_hooks not allowed!"))
Tensor.requires_grad = Tensor.requires_grad.deleter(_refuse_deletion(RuntimeError, "requires_grad must be a bool"))
Tensor.grad_fn = Tensor.grad_fn.deleter(_refuse_deletion(
    AttributeError, "attribute 'grad_fn' of 'torch._C.TensorBase' objects is not writable"))
Tensor.is_leaf = Tensor.is_leaf.deleter(_refuse_deletion(
    AttributeError, "attribute 'is_leaf' of 'torch._C.TensorBase' objects is not writable"))


CONJ_BIT, NEG_BIT = 1, 2


def apply_bits(data, bits):
    """`data` read through math bits `bits`: conjugated and/or negated (a new array when a bit is
    set). Both are involutions, so this also turns values into what a view with the bits stores."""
    if bits & CONJ_BIT:
        data = data.conj()
    if bits & NEG_BIT:
        data = -data
    return data[...] if data.ndim == 0 else data   # NumPy's 0-d results are scalars: a 0-d array again


# --- wrapper subclasses whose metadata queries go to __torch_dispatch__ (dispatch_sizes_strides_policy) ---
_POLICY_TYPES = set()   # the classes given the methods below (only they pay for the check)


def _asks(t, policy):
    """Whether the `policy` ("sizes" or "strides") queries of t go to its __torch_dispatch__ ("sizes" asks both)."""
    a = t._array
    return type(a) is WrapperArray and a.policy is not None and (a.policy == "sizes" or a.policy == policy)


def _asked_shape(self):
    return Size(dispatch_metadata("sym_size", "default", self)) if _asks(self, "sizes") else Tensor.shape.fget(self)


def _asked_size(self, dim=None):
    if not _asks(self, "sizes"):
        return Tensor.size(self, dim)
    if dim is None:
        return Size(dispatch_metadata("sym_size", "default", self))
    n = dispatch_metadata("dim", "default", self)
    return dispatch_metadata("sym_size", "default", self)[_wrap_dim(dim, n)]


def _asked_dim(self):
    return dispatch_metadata("dim", "default", self) if _asks(self, "sizes") else Tensor.dim(self)


def _asked_numel(self):
    return dispatch_metadata("sym_numel", "default", self) if _asks(self, "sizes") else Tensor.numel(self)


def _asked_stride(self, dim=None):
    if not _asks(self, "strides"):
        return Tensor.stride(self, dim)
    st = tuple(dispatch_metadata("sym_stride", "default", self))
    return st if dim is None else st[_wrap_dim(dim, len(st))]


def _asked_is_contiguous(self, memory_format=None):
    if not _asks(self, "strides"):
        return Tensor.is_contiguous(self, memory_format)
    if memory_format is None:
        return dispatch_metadata("is_contiguous", "default", self)
    return dispatch_metadata("is_contiguous", "memory_format", self, memory_format)


def _asked_storage_offset(self):
    return dispatch_metadata("sym_storage_offset", "default", self) if _asks(self, "sizes") else \
        Tensor.storage_offset(self)


_ASKED = {"shape": property(_asked_shape), "size": _asked_size, "dim": _asked_dim, "ndimension": _asked_dim,
          "numel": _asked_numel, "nelement": _asked_numel, "stride": _asked_stride,
          "is_contiguous": _asked_is_contiguous, "storage_offset": _asked_storage_offset}


def _ask_metadata_by_dispatch(cls):
    """Give wrapper subclass `cls` the metadata methods that ask its __torch_dispatch__ (on its instances
    made with a policy), where it keeps Tensor's own."""
    for name, fn in _ASKED.items():
        if getattr(cls, name) is getattr(Tensor, name):
            setattr(cls, name, fn)
    _POLICY_TYPES.add(cls)


def resolved_data(t):
    """t's values: its array, or a resolved copy when t is a lazy conjugate/negative view."""
    return apply_bits(t._array, t._math_bits) if t._math_bits else t._array


def _refuse_math_bits(t):
    for bit, name, fix in ((CONJ_BIT, "conjugate", "resolve_conj"), (NEG_BIT, "negative", "resolve_neg")):
        if t._math_bits & bit:
            raise RuntimeError(f"Can't call numpy() on Tensor that has {name} bit set. "
                               f"Use tensor.{fix}().numpy() instead.")


def _owner(t):
    """The array that owns t's memory (views of views lead back to it): what storage() wraps."""
    a = t._array
    if type(a) is WrapperArray:
        raise RuntimeError(NOT_ALLOCATED)
    if not is_array(a):
        raise NotImplementedError(f"storage: a {t.layout} tensor has no single storage in ndgrad")
    while is_array(a.base) or type(a.base).__name__ == "DummyArray":   # DummyArray: NumPy's as_strided holder
        a = a.base if is_array(a.base) else a.base.base
    return a


class UntypedStorage:
    """The untyped storage of a tensor (``torch.UntypedStorage``): the bytes of its memory, shared by every view of it.

    A tensor's is returned by :meth:`Tensor.untyped_storage`. In torch, ``StorageBase`` is the base class
    of ``UntypedStorage``; in ndgrad they are one class (of CPU memory only).

    Args:
        owner: the array that holds the bytes (storages are made by tensors, not by hand).

    Example::

        >>> x = torch.tensor([1.0, 2.0, 3.0])
        >>> s = x.untyped_storage()
        >>> s.nbytes()
        12
        >>> x[1:].untyped_storage().data_ptr() == s.data_ptr()
        True
    """

    def __init__(self, owner):
        self._owner = owner

    def _bytes(self):
        return self._owner.reshape(-1).view(np.uint8)

    def data_ptr(self):
        return self._owner.__array_interface__["data"][0]

    def nbytes(self):
        return self._owner.nbytes

    size = nbytes

    def __len__(self):
        return self._owner.nbytes

    def element_size(self):
        return 1

    @property
    def device(self):
        return CPU

    def __getitem__(self, i):
        return int(self._bytes()[i])

    def __setitem__(self, i, value):
        self._bytes()[i] = value

    def tolist(self):
        return self._bytes().tolist()

    def untyped(self):
        return self

    def __repr__(self):
        return " " + "\n ".join(map(str, self.tolist())) + \
            f"\n[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"


class TypedStorage(UntypedStorage):
    """A tensor's storage read as elements of the tensor's dtype (:meth:`Tensor.storage`, deprecated in
    torch in favour of :meth:`Tensor.untyped_storage`, with a warning).

    Args:
        owner: the array that holds the bytes (storages are made by tensors, not by hand).
        np_dtype: the NumPy dtype the bytes are read as.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     s = torch.tensor([[1, 2], [3, 4]]).storage()
        >>> s.tolist(), s.dtype, s.size()
        ([1, 2, 3, 4], torch.int64, 4)
    """

    def __init__(self, owner, np_dtype):
        super().__init__(owner)
        self._np_dtype = np_dtype

    def _elements(self):
        return self._owner.reshape(-1).view(self._np_dtype)

    @property
    def dtype(self):
        return _dtype.from_numpy_dtype(self._np_dtype)

    def size(self):
        return self._owner.nbytes // self._np_dtype.itemsize

    def __len__(self):
        return self.size()

    def element_size(self):
        return self._np_dtype.itemsize

    def __getitem__(self, i):
        if not isinstance(i, int):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        return self._elements()[i].item()

    def __setitem__(self, i, value):
        self._elements()[i] = value

    def tolist(self):
        return self._elements().tolist()

    def untyped(self):
        return UntypedStorage(self._owner)

    def __repr__(self):
        return " " + "\n ".join(map(str, self.tolist())) + \
            f"\n[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {len(self)}]"


class memory_format:
    """The type of the memory formats, the orders in which a tensor's dimensions are laid out in memory:
    ``torch.contiguous_format``, ``torch.channels_last`` (4-D, NHWC), ``torch.channels_last_3d`` (5-D)
    and ``torch.preserve_format``.

    Args:
        name (str): the format's name (the formats exist already; they are not made by hand).

    Example::

        >>> x = torch.zeros(1, 2, 3, 3).to(memory_format=torch.channels_last)
        >>> x.stride()
        (18, 1, 6, 2)
        >>> x.is_contiguous(memory_format=torch.channels_last)
        True
    """
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")


# dimension orders, outermost first, of the memory formats that permute (for 4-d and 5-d tensors)
_FORMAT_ORDER = {("channels_last", 4): (0, 2, 3, 1), ("channels_last_3d", 5): (0, 2, 3, 4, 1)}


def format_order(ndim, fmt):
    """The dims of an ndim tensor laid out in memory format `fmt`, outermost first (row-major: in order)."""
    order = _FORMAT_ORDER.get((getattr(fmt, "name", None), ndim))
    if order is None and fmt in (channels_last, channels_last_3d):
        raise RuntimeError(f"required rank {4 if fmt is channels_last else 5} tensor to use {fmt.name} format")
    return order if order is not None else tuple(range(ndim))


def format_strides(shape, itemsize, fmt):
    """The byte strides of a dense tensor of `shape` in memory format `fmt`."""
    strides, step = [0] * len(shape), itemsize
    for d in reversed(format_order(len(shape), fmt)):
        strides[d], step = step, step * max(shape[d], 1)
    return tuple(strides)


def dense_like(a, like, copy=False):
    """`a`'s values laid out as `like` when like is non-overlapping and dense (torch's layout contract
    for gradients), else row-major; `a` itself when it already is (unless copy)."""
    if like.flags.c_contiguous:   # (the usual case: the loop below would pick row-major)
        if a.flags.c_contiguous and not copy:
            return a
        out = namespace(a).empty(like.shape, dtype=a.dtype)
        namespace(a).copyto(out, a)
        return out
    dims = sorted(range(like.ndim), key=lambda d: -like.strides[d])   # outermost first
    step, dense = like.itemsize, True
    for d in reversed(dims):
        if like.shape[d] > 1:
            dense, step = dense and like.strides[d] == step, step * like.shape[d]
    if not dense or like.flags.c_contiguous:
        dims = list(range(like.ndim))
    if all(a.strides[d] == like.strides[d] or like.shape[d] <= 1 for d in range(like.ndim)) if dense and \
            not like.flags.c_contiguous else a.flags.c_contiguous:
        if not copy:
            return a
    ns = namespace(a)
    out = ns.empty(tuple(like.shape[d] for d in dims), dtype=a.dtype).transpose([dims.index(d) for d in range(like.ndim)])
    ns.copyto(out, a)
    return out


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


PLAIN_TYPES.add(Tensor)
