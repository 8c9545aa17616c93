"""Which ops take torch's "barebones" unsigned dtypes (uint16, uint32, uint64).

torch stores these dtypes and converts them, but compiles only some kernels for them: copies and
fills, views, cat and stack, indexing by an index tensor, sort and unique, mul, bitwise and/or/xor,
eq/ne, where, and the reductions that compute in int64 (sum, prod, cumsum...). Every other kernel
refuses them with a NotImplementedError naming the kernel: `"add_stub" not implemented for 'UInt16'`.

The op glue (`_registry._unwrap`) asks `refusal` once per op whose operands (after type promotion)
have one of these dtypes, so that no op's forward checks for them itself; a view op always takes
them (no kernel runs). Factories given one as `dtype=` ask `check_factory` (creation._dtype_arg).
"""
from .. import _dtype

# ops whose forwards run on the unsigned dtypes as torch's kernels do (or raise torch's own dtype
# error first, as std's "only support floating point" and mean's "could not infer output dtype")
TAKES = frozenset("""
    _to_copy copy_ clone contiguous _lazy_clone lift lift_fresh fill.Scalar fill.Tensor fill_.Scalar fill_.Tensor
    zero_ random_ random_.from random_.to detach _unsafe_view _reshape_copy unsafe_split.Tensor unsafe_split_with_sizes
    select_scatter slice_scatter diagonal_scatter as_strided_scatter cat stack repeat roll diag_embed constant_pad_nd
    block_diag cartesian_prod _unique _unique2 unique_dim unique_consecutive unique_dim_consecutive sort sort.stable
    index.Tensor index_select index_reduce embedding where.self
    values complex polar frexp.Tensor addcdiv nll_loss nll_loss2d
    mul.Tensor eq ne eq_.Scalar eq_.Tensor ne_.Scalar ne_.Tensor isclose isnan isfinite isinf isposinf isneginf signbit
    bitwise_and bitwise_or bitwise_xor
    sum sum.dim_IntList nansum prod prod.dim_int cumsum cumprod any any.dim any.dims all all.dim all.dims
    count_nonzero.dim_IntList mean mean.dim std.correction var.correction std_mean.correction
    var_mean.correction linalg_vector_norm
    trunc floor ceil round nan_to_num
""".split())

# the kernel a refusing op names where it is not torch's usual "<op>_cpu": a name, or a function of
# the op's arguments returning it (None: the call takes them after all, as pow's exponents 0 and 1)
KERNELS = {
    "add.Tensor": "add_stub", "sub.Tensor": "add_stub", "rsub.Tensor": "add_stub", "rsub.Scalar": "add_stub",
    "div.Tensor_mode": lambda input, other, rounding_mode=None: f"div_{rounding_mode}_cpu",
    "floor_divide": "div_floor_cpu", "pow.Tensor_Tensor": "pow", "pow.Scalar": "pow",
    "pow.Tensor_Scalar": lambda input, exponent: None if exponent in (0, 1) else "pow",
    "sgn": "sign_cpu", "addcmul": "addcmul_cpu_out", "dist": "add_stub",
    "relu": "clamp_min_scalar_cpu", "hardtanh": "clamp_scalar_cpu", "clamp_min.Tensor": "maximum_cpu",
    "clamp_max.Tensor": "minimum_cpu", "fmax": "maximum_cpu", "fmin": "minimum_cpu",
    "_softmax": lambda input, dim, half_to_float=False: _softmax_kernel("softmax", input, dim),
    "_log_softmax": lambda input, dim, half_to_float=False: _softmax_kernel("log_softmax", input, dim),
    "lerp.Scalar": "lerp_kernel_scalar", "lerp.Tensor": "lerp_kernel_tensor",
    "mm": "addmm_impl_cpu_", "addmm": "addmm_impl_cpu_", "bmm": "bmm", "dot": "dot", "vdot": "dot",
    "mv": "addmv_impl_cpu", "linalg_cross": "cross",
    "bitwise_left_shift": "lshift_cpu", "bitwise_right_shift": "rshift_cpu",
    "max": "max_all", "min": "min_all", "max.dim": "max_cpu", "min.dim": "min_cpu",
    "amax": "max_values_cpu", "amin": "min_values_cpu",
    "count_nonzero": lambda input, dim=None: "nonzero_count_cpu" if dim is None else None,
    "nonzero": "nonzero_count_cpu", "nonzero_numpy": "nonzero_count_cpu",
    "median": "median_cpu", "nanmedian": "median_cpu", "median.dim": "median_out", "nanmedian.dim": "median_out",
    "gather": "scatter_gather_tensor_cpu", "scatter.src": "scatter_gather_tensor_cpu",
    "scatter.value": "scatter_fill_cpu", "scatter_add": "scatter_gather_tensor_cpu",
    "scatter_reduce.two": "scatter_gather_tensor_cpu", "index_add": "scatter_gather_tensor_cpu",
    "take_along_dim": "scatter_gather_tensor_cpu",
    "index_put": lambda input, indices, values, accumulate=False, unsafe=False: _index_put_kernel(indices, values,
                                                                                                 accumulate),
    "masked_fill.Scalar": "masked_fill", "masked_fill.Tensor": "masked_fill",
    "masked_select": "masked_select", "masked_scatter": "masked_scatter", "put": "take_put_cpu",
    "put_": "take_put_cpu", "index_fill.int_Scalar": "index_fill_cpu", "index_fill.int_Tensor": "index_fill_cpu",
    "index_copy": "index_copy_cpu", "searchsorted": "searchsorted_out_cpu", "bucketize": "searchsorted_out_cpu",
    "channel_shuffle": "channel_shuffle", "pixel_shuffle": "pixel_shuffle", "pixel_unshuffle": "pixel_unshuffle",
    "tril": "tril", "triu": "triu", "trace": "trace", "histc": "aminmax_cpu", "isin": "isin_default_cpu",
    "rot90": "flip_cpu",
    "hash_tensor": "xor_sum_cpu",
    "logcumsumexp": "logcumsumexp_out_cpu", "cummin": "cummin_cpu", "cummax": "cummax_cpu",
    "clamp": lambda input, min=None, max=None: ("clamp_scalar_cpu" if min is not None and max is not None else
                                                "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu"),
    "clamp_min": "clamp_min_scalar_cpu", "clamp_max": "clamp_max_scalar_cpu",
    "bernoulli": "bernoulli_tensor_cpu_self_", "uniform_": "check_uniform_bounds", "normal_": "normal_kernel_cpu",
}

# ops of TAKES that compute in another dtype (int64) and refuse to write an unsigned result: a `dtype=`
# argument naming one, or in place into a tensor of one (`cumsum_`)
RESULT_KERNELS = {"sum": "sum_cpu", "sum.dim_IntList": "sum_cpu", "nansum": "sum_cpu", "prod": "prod_out_cpu",
                  "prod.dim_int": "prod_out_cpu", "cumsum": "cumsum_out_cpu", "cumprod": "cumprod_out_cpu"}

# factories given one of these dtypes as `dtype=`: those that refuse it and their kernel (the others,
# zeros, full, empty, tensor, randint..., take it)
FACTORY_KERNELS = {
    "arange": "arange_cpu", "range": "range_cpu", "linspace": "linspace_cpu", "logspace": "logspace_cpu",
    "eye": "eye", "randperm": "randperm", "tril_indices": "tril_indices", "triu_indices": "triu_indices",
    "rand": "check_uniform_bounds", "rand_like": "check_uniform_bounds", "randn": "normal_kernel_cpu",
    "randn_like": "normal_kernel_cpu", "normal": "normal_kernel_cpu",
}


def _softmax_kernel(name, input, dim):
    last = dim in (-1, input.ndim - 1)
    return f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"


def _index_put_kernel(indices, values, accumulate):
    # torch writes one value through one boolean mask with masked_fill
    mask = len(indices) == 1 and getattr(indices[0], "dtype", None) in (_dtype.bool_, _dtype.uint8)
    return "masked_fill" if mask and values.numel() == 1 and not accumulate else "index_put"


def kernel_of(name, view):
    """None where op `name` takes the unsigned dtypes, else its refusing kernel's name or function (see
    KERNELS)."""
    if view or name in TAKES:
        return None
    return KERNELS.get(name) or f"{name.split('.')[0].rstrip('_')}_cpu"


def refusal(spec, raw, args):
    """torch's NotImplementedError for op `spec` if one of its arrays `raw` (after promotion) has an
    unsigned dtype its kernel refuses; None where the call goes ahead."""
    kernel = kernel_of(spec.name, spec.view)
    found = kernel and next((a.dtype for a in raw if getattr(a, "dtype", None) in _dtype.UNSIGNED_NP), None)
    if found is None:
        return None
    if not isinstance(kernel, str):
        kernel = kernel(*args)
    if kernel is None:
        return None
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype.type_word(found)}'")


def check_result(spec, args, into=None):
    """Refuse op `spec` (of RESULT_KERNELS) writing an unsigned result: into `into` (a Tensor written in place),
    else in the dtype its arguments `args` name."""
    d = into.dtype if into is not None else next(
        (a for a in args if type(a) is _dtype.dtype and a in _dtype.UNSIGNED), None)
    if d in _dtype.UNSIGNED:
        raise NotImplementedError(f"\"{RESULT_KERNELS[spec.name]}\" not implemented for '{d.title}'")


def check_factory(name, d):
    """Refuse `dtype=d` (an unsigned dtype) where torch's factory `name` has no kernel for it."""
    kernel = FACTORY_KERNELS.get(name)
    if kernel is not None:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{d.title}'")
