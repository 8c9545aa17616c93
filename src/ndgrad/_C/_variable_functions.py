"""torch._C._VariableFunctions: the torch-namespace ATen functions as their bindings take them.

torch's own Python (torch.functional, nn.modules.rnn) calls these through `torch._VF`, the raw bindings
behind its Python wrappers. Here a name is ndgrad's namespace function of that name, except where
torch wraps the binding in Python with another signature (`norm`, `split`, `stft`, `tensordot`, `cdist`,
the list-taking `einsum`, `meshgrid`, `broadcast_tensors`...): those get the binding's form, defined
below on top of ndgrad's function. Names torch defines only in Python (`unique`, `lu`, ...) are absent.
"""
import sys

from .. import _dtype
from ..autograd import forward_ad
from ..nn.utils.rnn import PackedSequence, pad_packed_sequence
from ..ops import _registry
from ..ops._schema import Parser
from ..ops.reduction import (_norm_all, _norm_all_dtype, _norm_dim, _norm_dim_dtype, _unique_consecutive,
                             unique_dim)

# functions of ndgrad's namespace that torch binds in ATen but ndgrad does not register as ops
_PLAIN = frozenset({"addmv_", "as_strided_", "can_cast", "cosine_similarity", "detach", "detach_", "gcd_",
                    "get_device", "i0_", "is_complex", "is_distributed", "is_floating_point", "is_inference",
                    "lcm_", "numel", "pairwise_distance", "promote_types", "resize_as_", "result_type",
                    "triplet_margin_loss"})
# registered ops that torch defines in Python (or as Tensor methods only): not bindings
_NOT_BOUND = frozenset({"bernoulli_", "broadcast_shapes", "cauchy_", "copy_", "eig", "embedding_dense_backward",
                        "expand", "exponential_", "from_dlpack", "geometric_", "get_rng_state",
                        "grid_sampler_2d_backward", "grid_sampler_3d_backward", "log_normal_", "lstsq", "lu",
                        "matrix_rank", "native_batch_norm_backward", "native_group_norm_backward",
                        "native_layer_norm_backward", "normal_", "pca_lowrank", "random_", "set_rng_state", "solve",
                        "svd_lowrank", "symeig", "to", "to_padded_tensor", "uniform_", "unique", "unravel_index",
                        "view"})


def _namespace():
    """The ndgrad module (loaded: this module is imported by it)."""
    return sys.modules[__name__.partition(".")[0]]


# ---- the bindings whose form differs from torch's Python wrapper of the same name ----------------------
_norm_args = Parser("norm(Tensor input, Scalar? p, *, ScalarType dtype)", "norm(Tensor input, Scalar p=2)",
                    "norm(Tensor input, Scalar? p, int[1] dim, bool keepdim, *, ScalarType dtype)",
                    "norm(Tensor input, Scalar? p, int[1] dim, bool keepdim=False)")


@_norm_args.signature
def norm(*args, **kwargs):
    """aten::norm: the `p`-norm (default 2) of all elements, or over `dim`; with `dtype`, computed in it."""
    which, values = _norm_args.parse(args, kwargs)
    input, p = values[0], 2 if values[1] is None else values[1]
    if which == 1:
        return _norm_all(input, p)
    if which == 3:
        return _norm_dim(input, p, values[2], values[3])
    dtype = values[-1]
    if dtype.is_complex and not input.is_complex():
        raise RuntimeError(f"linalg.vector_norm: dtype should be real for real inputs, but got {_dtype.type_word(dtype)}")
    if _dtype.promote_types(input.dtype, dtype) != dtype:
        raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({_dtype.type_word(input.dtype)}) should "
                           f"be convertible without narrowing to the specified dtype ({_dtype.type_word(dtype)})")
    if which == 0:
        return _norm_all_dtype(input, p, dtype=dtype)
    return _norm_dim_dtype(input, p, values[2], values[3], dtype=dtype)


_split_args = Parser("split(Tensor input, SymInt split_size, int dim=0)",
                     "split(Tensor input, SymInt[] split_size, int dim=0)")


@_split_args.signature
def split(*args, **kwargs):
    """aten::split: `input` in chunks of `split_size` along `dim`, or in chunks of the listed sizes."""
    _, (input, split_size, dim) = _split_args.parse(args, kwargs)
    return _namespace().split(input, split_size, dim)


_stft_args = Parser("stft(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
                    "bool normalized=False, bool? onesided=None, bool? return_complex=None, "
                    "bool? align_to_window=None)",
                    "stft(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
                    "bool center=True, str pad_mode=\"reflect\", bool normalized=False, bool? onesided=None, "
                    "bool? return_complex=None, bool? align_to_window=None)")


@_stft_args.signature
def stft(*args, **kwargs):
    """aten::stft: without `center` the frames start at the signal's start (torch.stft pads in Python first)."""
    which, values = _stft_args.parse(args, kwargs)
    if which == 0:
        values = values[:5] + (False, "reflect") + values[5:]
    return _namespace().stft(*values)


_tensordot_args = Parser("tensordot(Tensor input, Tensor other, int[] dims_self, int[] dims_other)")


@_tensordot_args.signature
def tensordot(*args, **kwargs):
    """aten::tensordot: the sum of products over the dimensions `dims_self` of `input` and `dims_other` of `other`."""
    _, (input, other, dims_self, dims_other) = _tensordot_args.parse(args, kwargs)
    return _namespace().tensordot(input, other, (list(dims_self), list(dims_other)))


_unique_dim_args = Parser("unique_dim(Tensor input, int dim, bool sorted=True, bool return_inverse=False, "
                          "bool return_counts=False)")


@_unique_dim_args.signature
def _unique_dim(*args, **kwargs):
    """aten::unique_dim: the distinct slices of `input` along `dim`, with the inverse indices and counts, always."""
    _, values = _unique_dim_args.parse(args, kwargs)
    return unique_dim(*values)


_CDIST_MODES = (None, "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
_cdist_args = Parser("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None)")


@_cdist_args.signature
def cdist(*args, **kwargs):
    """aten::cdist: compute_mode is torch's number (0 or None: matrix products for large inputs, 1: always, 2: never)."""
    _, (x1, x2, p, mode) = _cdist_args.parse(args, kwargs)
    if mode is not None and not 0 <= mode <= 2:
        raise RuntimeError(f"{mode} is not a valid value for compute_mode")
    return _namespace().cdist(x1, x2, p, _CDIST_MODES[1 if mode is None else mode + 1])


_einsum_args = Parser("einsum(str equation, Tensor[] tensors, *, int[]? path=None)")


@_einsum_args.signature
def einsum(*args, **kwargs):
    """aten::einsum: the operands as one list (`path`, a contraction order, only changes the speed)."""
    _, (equation, tensors, _path) = _einsum_args.parse(args, kwargs)
    return _namespace().einsum(equation, *tensors)


_meshgrid_args = Parser("meshgrid(Tensor[] tensors)", "meshgrid(Tensor[] tensors, *, str indexing)")


@_meshgrid_args.signature
def meshgrid(*args, **kwargs):
    which, values = _meshgrid_args.parse(args, kwargs)
    return _namespace().meshgrid(*values[0], indexing=values[1] if which else None)


def _make_dual(primal, tangent, level):
    """aten::_make_dual: `primal` carrying `tangent` at forward-AD `level` (torch.autograd.forward_ad.make_dual's op)."""
    if forward_ad._current_index() < 0:   # no level open: no index is valid
        raise RuntimeError("Trying to access a forward AD level with an invalid index. This index was either not "
                           "created or is already deleted.")
    return forward_ad.make_dual(primal, tangent, level=level)


def _unpack_dual(dual, level):
    """aten::_unpack_dual: (primal, tangent) of `dual` at `level`."""
    return forward_ad.unpack_dual(dual, level=level)


def _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    """aten::_pad_packed_sequence: the padded batch, `total_length` steps long, and the sequences' lengths."""
    out, lengths = pad_packed_sequence(PackedSequence(data, batch_sizes), False, padding_value, total_length)
    return (out.transpose(0, 1) if batch_first else out), lengths   # as aten: padded time-major, then transposed


def _list_form(name, returns_list):
    """The binding of torch.<name>(*tensors) that takes the tensors as one list."""
    parser = Parser(f"{name}(Tensor[] tensors)")

    @parser.signature
    def binding(*args, **kwargs):
        _, (tensors,) = parser.parse(args, kwargs)
        out = getattr(_namespace(), name)(*tensors)
        return tuple(out) if returns_list else out
    binding.__name__ = binding.__qualname__ = name
    binding.__doc__ = f"aten::{name}: :func:`ndgrad.{name}` of the tensors given as one list."
    return binding


def _atleast(name):
    """aten::atleast_Nd: one Tensor gives a Tensor, a list of them a tuple."""
    parser = Parser(f"{name}(Tensor input)", f"{name}(Tensor[] tensors)")

    @parser.signature
    def binding(*args, **kwargs):
        which, (x,) = parser.parse(args, kwargs)
        return getattr(_namespace(), name)(x) if which == 0 else tuple(getattr(_namespace(), name)(*x))
    binding.__name__ = binding.__qualname__ = name
    binding.__doc__ = f"aten::{name}: :func:`ndgrad.{name}` of one tensor, or of a list of them."
    return binding


_BINDINGS = {"norm": norm, "split": split, "stft": stft, "tensordot": tensordot, "cdist": cdist, "einsum": einsum,
             "meshgrid": meshgrid, "unique_consecutive": _unique_consecutive, "unique_dim": _unique_dim,
             "_make_dual": _make_dual, "_unpack_dual": _unpack_dual, "_pad_packed_sequence": _pad_packed_sequence,
             **{name: _list_form(name, name == "broadcast_tensors")
                for name in ("block_diag", "broadcast_tensors", "cartesian_prod", "chain_matmul")},
             **{name: _atleast(name) for name in ("atleast_1d", "atleast_2d", "atleast_3d")}}


class _VariableFunctionsClass:
    """The namespace of the bindings (its one instance is `_C._VariableFunctions`; `ndgrad._VF` reads it)."""
    __slots__ = ()
    __module__ = "ndgrad._C"   # as torch's, whose errors name torch._C._VariableFunctionsClass

    def __getattr__(self, name):
        fn = _BINDINGS.get(name)
        if fn is not None:
            return fn
        if (name in _registry.OPS or name in _PLAIN) and name not in _NOT_BOUND:
            return getattr(_namespace(), name)
        raise AttributeError(f"'{type(self).__module__}.{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        names = (set(_registry.OPS) | _PLAIN) - _NOT_BOUND
        return sorted(names | set(_BINDINGS))


_VariableFunctions = _VariableFunctionsClass()
