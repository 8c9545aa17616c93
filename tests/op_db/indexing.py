"""Registry entries for indexing and scatter ops (see op_db/__init__.py for the format)."""
from . import B, I, OpInfo, S


def setitem(y, index, value):
    """y[index] = value as an expression (the registry calls return their result)."""
    y[index] = value
    return y


def _getitem_ops():
    # (name, input shape, index built from the library T, top node)
    cases = [
        ("int", (3, 4), lambda T: 1, "SelectBackward0"),
        ("negative_int", (3, 4), lambda T: -1, "SelectBackward0"),
        ("int_int", (3, 4), lambda T: (2, 1), "SelectBackward0"),
        ("int_to_0d", (3,), lambda T: 1, "SelectBackward0"),
        ("slice", (5, 2), lambda T: slice(1, 4), "SliceBackward0"),
        ("slice_step", (5, 2), lambda T: slice(None, None, 2), "SliceBackward0"),
        ("slice_negative", (5, 2), lambda T: slice(-3, None), "SliceBackward0"),
        ("slice_past_end", (5, 2), lambda T: slice(2, 10), "SliceBackward0"),
        ("slice_full", (3, 2), lambda T: slice(None), "SliceBackward0"),
        ("slice_second_dim", (3, 4), lambda T: (slice(None), slice(1, 3)), "SliceBackward0"),
        ("full_slices", (3, 4), lambda T: (slice(None), slice(None)), "AliasBackward0"),
        ("ellipsis", (3, 4), lambda T: Ellipsis, "AliasBackward0"),
        ("ellipsis_int", (2, 3, 4), lambda T: (Ellipsis, 1), "SelectBackward0"),
        ("none", (3, 4), lambda T: None, "UnsqueezeBackward0"),
        ("ellipsis_none", (3, 4), lambda T: (Ellipsis, None), "UnsqueezeBackward0"),
        ("int_none_slice", (3, 4, 5), lambda T: (1, None, slice(0, 2)), "SliceBackward0"),
        ("int_tensor_0d", (3, 4), lambda T: T.tensor(2), "SelectBackward0"),
        ("list", (4, 3), lambda T: [0, 2, 0], "IndexBackward0"),
        ("tensor_2d", (4, 3), lambda T: T.tensor([[0, 1], [3, 0]]), "IndexBackward0"),
        ("tensor_negative", (4, 3), lambda T: T.tensor([-1, 1]), "IndexBackward0"),
        ("tensor_int32", (4, 3), lambda T: T.tensor([1, 3], dtype=T.int32), "IndexBackward0"),
        ("empty_list", (4, 3), lambda T: [], "IndexBackward0"),
        ("bool_list", (3, 2), lambda T: [True, False, True], "IndexBackward0"),
        ("slice_then_list", (3, 4), lambda T: (slice(None), [0, 2, 2]), "IndexBackward0"),
        ("two_lists", (3, 4), lambda T: ([0, 1, 1], [3, 2, 3]), "IndexBackward0"),
        ("separated_lists", (3, 4, 5), lambda T: ([0, 1], slice(None), [4, 2]), "IndexBackward0"),
        ("int_then_list", (3, 4, 5), lambda T: (1, slice(None), [0, 1]), "IndexBackward0"),
        ("slice_then_list_dim2", (3, 4, 5), lambda T: (slice(1, 3), [0, 1]), "IndexBackward0"),
        ("ellipsis_list", (3, 4, 5), lambda T: (Ellipsis, [0, 1]), "IndexBackward0"),
        ("list_none", (3, 4), lambda T: (T.tensor([0, 1]), None), "IndexBackward0"),
        ("true", (3, 4), lambda T: True, "IndexBackward0"),
        ("false", (3, 4), lambda T: False, "IndexBackward0"),
        ("true_int", (3, 4), lambda T: (True, 1), "IndexBackward0"),
        ("bool_tensor_0d", (3, 4), lambda T: T.tensor(True), "IndexBackward0"),
        ("mask_2d_then_int", (3, 4, 5), lambda T: (T.tensor([[True, False, True, True]] * 3), 0), "IndexBackward0"),
        ("mask_row", (3, 4), lambda T: (1, T.tensor([True, False, True, True])), "IndexBackward0"),
        ("mask_then_list", (3, 4, 5), lambda T: (T.tensor([True, False, True]), slice(None), [0, 4]),
         "IndexBackward0"),
        ("list_as_tuple", (3, 4), lambda T: (0, slice(1, None)), "SliceBackward0"),
    ]
    return [OpInfo(f"getitem_{name}", lambda T, x, index=index: x[index(T)], [S(*shape)], grad_fn=top)
            for name, shape, index, top in cases]


def _setitem_ops():
    # y = x * 1 (not a leaf) so the write is recorded; the value may require grad too
    cases = [
        ("int_tensor", lambda T: 1, S(4), "torch::autograd::CopySlices"),
        ("int_scalar", lambda T: 0, 5.0, "torch::autograd::CopySlices"),
        ("slice_broadcast", lambda T: (0, slice(1, None)), S(1), "torch::autograd::CopySlices"),
        ("leading_ones", lambda T: 1, S(1, 4), "torch::autograd::CopySlices"),
        ("rows_broadcast", lambda T: slice(None, 2), S(4), "torch::autograd::CopySlices"),
        ("0d_tensor", lambda T: (1, 2), S(), "torch::autograd::CopySlices"),
        ("none", lambda T: None, S(3, 4), "torch::autograd::CopySlices"),
        ("list", lambda T: [0, 2], S(2, 4), "IndexPutBackward0"),
        ("list_scalar", lambda T: [0, 2], -1.5, "IndexPutBackward0"),
        ("list_broadcast", lambda T: (slice(None), [0, 3]), S(1, 2), "IndexPutBackward0"),
        ("mask", lambda T: T.tensor([[True, False, True, False]] * 3), S(6), "IndexPutBackward0"),
        ("mask_scalar", lambda T: T.tensor([True, False, True]), 2.0, "IndexPutBackward0"),
        ("int_then_list", lambda T: (1, [0, 2]), S(2), "torch::autograd::CopySlices"),
        ("true", lambda T: True, S(3, 4), "torch::autograd::CopySlices"),
    ]
    ops = []
    for name, index, value, top in cases:
        inputs = [S(3, 4)] + ([value] if isinstance(value, S) else [])
        if isinstance(value, S):
            call = lambda T, x, v, index=index: setitem(x * 1, index(T), v)  # noqa: E731
        else:
            call = lambda T, x, index=index, value=value: setitem(x * 1, index(T), value)  # noqa: E731
        ops.append(OpInfo(f"setitem_{name}", call, inputs, grad_fn=top))
    ops.append(OpInfo("setitem_into_constant", lambda T, v: setitem(T.zeros(3, 4, dtype=T.float64), (1, [0, 2]), v),
                      [S(2)], grad_fn="torch::autograd::CopySlices"))
    ops.append(OpInfo("inplace_on_view", lambda T, x: (lambda y: (y[1].mul_(5), y)[1])(x * 1), [S(3, 4)],
                      grad_fn="torch::autograd::CopySlices"))
    ops.append(OpInfo("inplace_on_view_of_view", lambda T, x: (lambda y: (y[1][1:].exp_(), y)[1])(x * 1),
                      [S(3, 4)], grad_fn="torch::autograd::CopySlices"))
    return ops


def _inplace(name, args):
    """The in-place method `name` on x * 1 (x stays a leaf); args(T, *other inputs) gives its arguments."""
    return lambda T, x, *rest: getattr(x * 1, name)(*args(T, *rest))


OPS = _getitem_ops() + _setitem_ops() + [
    # select / slice scatter
    OpInfo("select", lambda T, x: T.select(x, 1, -1), [S(3, 4)], grad_fn="SelectBackward0"),
    OpInfo("select_method", lambda T, x: x.select(0, 2), [S(3, 4)], grad_fn="SelectBackward0"),
    OpInfo("select_scatter", lambda T, x, s: T.select_scatter(x, s, 0, 1), [S(3, 4), S(4)],
           grad_fn="SelectScatterBackward0"),
    OpInfo("select_scatter_dim1", lambda T, x, s: T.select_scatter(x, s, -1, -2), [S(3, 4), S(3)],
           grad_fn="SelectScatterBackward0"),
    OpInfo("slice_scatter", lambda T, x, s: T.slice_scatter(x, s, 1, 1, 4, 2), [S(3, 5), S(3, 2)],
           grad_fn="SliceScatterBackward0"),
    OpInfo("slice_scatter_defaults", lambda T, x, s: T.slice_scatter(x, s), [S(3, 2), S(3, 2)],
           grad_fn="SliceScatterBackward0"),
    # index_put
    OpInfo("index_put", lambda T, x, v, i: T.index_put(x, (i,), v), [S(4, 3), S(2, 3), I(2, values=[3, 0])],
           grad_fn="IndexPutBackward0"),
    OpInfo("index_put_accumulate", lambda T, x, v, i: x.index_put((i,), v, accumulate=True),
           [S(4, 3), S(5, 3), I(5, values=[3, 0, 3, 1, 3])], grad_fn="IndexPutBackward0"),
    OpInfo("index_put_two_indices", lambda T, x, v, i, j: T.index_put(x, (i, j), v),
           [S(4, 3), S(2), I(2, values=[1, 2]), I(2, values=[0, 2])], grad_fn="IndexPutBackward0"),
    OpInfo("index_put_broadcast_value", lambda T, x, v, i: T.index_put(x, (i,), v, True),
           [S(4, 3), S(), I(3, values=[1, 1, 2])], grad_fn="IndexPutBackward0"),
    OpInfo("index_put_mask", lambda T, x, v, m: x.index_put((m,), v),
           [S(2, 3), S(4), B(2, 3, values=[[True, False, True], [False, True, True]])], grad_fn="IndexPutBackward0"),
    OpInfo("index_put_inplace", lambda T, x, v, i: (x * 1).index_put_((i,), v, accumulate=True),
           [S(4, 3), S(3), I(2, values=[0, 0])], grad_fn="IndexPutBackward0"),
    OpInfo("index_put_inplace_namespace", lambda T, x, v, i: T.index_put_(x * 1, (i,), v),
           [S(4, 3), S(3), I(1, values=[2])], grad_fn="IndexPutBackward0"),
    # index_select / index_add / index_copy / index_fill
    OpInfo("index_select", lambda T, x, i: T.index_select(x, 0, i), [S(3, 4), I(5, high=3)],
           grad_fn="IndexSelectBackward0"),
    OpInfo("index_select_dim1", lambda T, x, i: x.index_select(-1, i), [S(3, 4), I(2, values=[3, 3])],
           grad_fn="IndexSelectBackward0"),
    OpInfo("index_select_0d_index", lambda T, x, i: x.index_select(1, i), [S(3, 4), I(values=2)],
           grad_fn="IndexSelectBackward0"),
    OpInfo("index_select_int32", lambda T, x, i: x.index_select(0, i), [S(3, 4), I(2, values=[2, 0], dtype="int32")],
           grad_fn="IndexSelectBackward0"),
    OpInfo("index_select_0d_input", lambda T, x, i: x.index_select(0, i), [S(), I(1, values=[0])],
           grad_fn="IndexSelectBackward0"),
    OpInfo("index_add", lambda T, x, s, i: T.index_add(x, 0, i, s), [S(3, 4), S(4, 4), I(4, values=[0, 2, 0, 0])],
           grad_fn="IndexAddBackward0"),
    OpInfo("index_add_alpha_dim1", lambda T, x, s, i: x.index_add(1, i, s, alpha=-2.5),
           [S(3, 4), S(3, 2), I(2, values=[3, 1])], grad_fn="IndexAddBackward0"),
    OpInfo("index_add_inplace", _inplace("index_add_", lambda T, s, i: (0, i, s)), [S(3, 4), S(2, 4), I(2, high=3)],
           grad_fn="IndexAddBackward0"),
    OpInfo("index_add_0d", lambda T, x, s, i: x.index_add(0, i, s), [S(), S(), I(1, values=[0])],
           grad_fn="IndexAddBackward0"),
    OpInfo("index_copy", lambda T, x, s, i: T.index_copy(x, 0, i, s), [S(4, 3), S(2, 3), I(2, values=[3, 1])],
           grad_fn="IndexCopyBackward0"),
    OpInfo("index_copy_inplace", _inplace("index_copy_", lambda T, s, i: (1, i, s)),
           [S(4, 3), S(4, 2), I(2, values=[0, 2])], grad_fn="IndexCopyBackward0"),
    OpInfo("index_fill", lambda T, x, i: T.index_fill(x, 1, i, -1.0), [S(3, 4), I(3, values=[0, 2, 0])],
           grad_fn="IndexFillBackward0"),
    OpInfo("index_fill_tensor_value", lambda T, x, v, i: x.index_fill(0, i, v), [S(3, 4), S(), I(3, values=[2, 0, 2])],
           grad_fn="IndexFillBackward1"),
    OpInfo("index_fill_tensor_value_negative_index", lambda T, x, v, i: x.index_fill(0, i, v),
           [S(3, 4), S(), I(2, values=[2, -3])], grad_fn="IndexFillBackward1",
           torch_parity=False),   # torch's backward fails on negative indices ("index out of range in self")
    OpInfo("index_fill_inplace", _inplace("index_fill_", lambda T, i: (1, i, 2)), [S(3, 4), I(2, values=[1, 3])],
           grad_fn="IndexFillBackward0"),
    # gather / scatter
    OpInfo("gather", lambda T, x, i: T.gather(x, 1, i), [S(3, 4), I(3, 5, high=4)], grad_fn="GatherBackward0"),
    OpInfo("gather_dim0_smaller_index", lambda T, x, i: x.gather(0, i), [S(3, 4), I(2, 3, high=3)],
           grad_fn="GatherBackward0"),
    OpInfo("gather_negative_dim", lambda T, x, i: x.gather(-1, i), [S(2, 3, 4), I(2, 3, 2, high=4)],
           grad_fn="GatherBackward0"),
    # an empty index is not checked (any dtype, any number of dims)
    OpInfo("gather_empty_uint8_index", lambda T, x, i: T.gather(x, 0, i), [S(5), I(2, 0, dtype="uint8")],
           grad_fn="GatherBackward0"),
    OpInfo("gather_0d", lambda T, x, i: x.gather(0, i), [S(), I(values=0)], grad_fn="GatherBackward0"),
    OpInfo("scatter_src", lambda T, x, s, i: T.scatter(x, 0, i, s),
           [S(3, 4), S(2, 4), I(2, 4, values=[[0, 1, 2, 0], [2, 0, 1, 1]])], grad_fn="ScatterBackward0"),
    OpInfo("scatter_src_larger_than_index", lambda T, x, s, i: x.scatter(1, i, s),
           [S(3, 4), S(3, 3), I(2, 2, values=[[0, 3], [1, 2]])], grad_fn="ScatterBackward0",
           torch_parity=False),   # torch's backward refuses: src's gradient has the index's shape
    OpInfo("scatter_value", lambda T, x, i: T.scatter(x, 1, i, 1.5),
           [S(3, 4), I(3, 2, values=[[0, 1], [3, 3], [2, 0]])],
           grad_fn="ScatterBackward1"),
    OpInfo("scatter_inplace", _inplace("scatter_", lambda T, s, i: (0, i, s)),
           [S(3, 4), S(1, 4), I(1, 4, values=[[2, 0, 1, 2]])], grad_fn="ScatterBackward0"),
    OpInfo("scatter_value_inplace", _inplace("scatter_", lambda T, i: (1, i, -2.0)), [S(3, 4), I(3, 1, high=4)],
           grad_fn="ScatterBackward1"),
    OpInfo("scatter_add", lambda T, x, s, i: T.scatter_add(x, 0, i, s), [S(3, 4), S(5, 4), I(5, 4, high=3)],
           grad_fn="ScatterAddBackward0"),
    OpInfo("scatter_add_inplace", _inplace("scatter_add_", lambda T, s, i: (1, i, s)),
           [S(3, 4), S(3, 6), I(3, 6, high=4)], grad_fn="ScatterAddBackward0"),
    OpInfo("scatter_src_larger_than_index_cropped", lambda T, x, s, i: x.scatter_add(0, i, s),
           [S(3, 4), S(4, 5), I(2, 3, high=3)], grad_fn="ScatterAddBackward0", torch_parity=False),
    *[OpInfo(f"scatter_reduce_{reduce}{'' if include_self else '_exclude_self'}",
             lambda T, x, s, i, reduce=reduce, include_self=include_self:
             x.scatter_reduce(0, i, s, reduce, include_self=include_self),
             # ties (1.0 twice) and zeros (0.0) exercise the amax/amin and prod special cases
             [S(3, 4, fill=[[0.5, 1.0, 0.0, 2.0], [1.0, -1.0, 3.0, 0.25], [2.0, 0.0, 1.5, -0.5]]),
              S(4, 4, fill=[[1.0, 0.0, 2.0, 0.5], [1.0, 3.0, 0.0, 0.75], [-2.0, 0.0, 1.0, 0.5], [0.3, 0.4, 0.6, 0.7]]),
              I(4, 4, values=[[0, 1, 2, 0], [0, 1, 2, 2], [1, 1, 0, 0], [0, 0, 0, 0]])],
             # no gradgrad for prod (torch refuses it with several zeros in one slot) or amax/amin
             # (the ties make the second derivative fail torch's own gradgradcheck too)
             grad_fn="ScatterReduceBackward0", gradgrad=reduce in ("sum", "mean"))
      for reduce in ("sum", "prod", "mean", "amax", "amin") for include_self in (True, False)],
    OpInfo("scatter_reduce_inplace", _inplace("scatter_reduce_", lambda T, s, i: (1, i, s, "amax")),
           [S(3, 4), S(3, 2), I(3, 2, high=4)], grad_fn="ScatterReduceBackward0"),
    *[OpInfo(f"index_reduce_{reduce}{'' if include_self else '_exclude_self'}",
             lambda T, x, s, i, reduce=reduce, include_self=include_self:
             x.index_reduce(1, i, s, reduce, include_self=include_self),
             # self ties with source where it takes part; where it does not, it never equals the result
             [S(2, 3, fill=[[2.0, 1.0, 0.0], [1.0, -1.0, 3.0]] if include_self else
                [[9.5, 8.0, 7.0], [9.0, 6.0, 5.5]]),
              S(2, 4, fill=[[1.0, 0.0, 2.0, 0.5], [1.0, 3.0, 0.0, -1.0]]), I(4, values=[0, 2, 0, 0])],
             # amax/amin with ties: no gradgrad (torch's own gradgradcheck fails on them as well)
             grad_fn="IndexReduceBackward0", gradgrad=reduce not in ("amax", "amin"))
      for reduce in ("prod", "mean", "amax", "amin") for include_self in (True, False)],
    # an excluded self value equal to the result takes no share of the gradient (torch counts it)
    OpInfo("index_reduce_amax_exclude_self_equal_to_result",
           lambda T, x, s, i: x.index_reduce(1, i, s, "amax", include_self=False),
           [S(1, 2, fill=[[0.0, 5.0]]), S(1, 2, fill=[[0.0, 1.0]]), I(2, values=[0, 0])],
           grad_fn="IndexReduceBackward0", torch_parity=False),
    OpInfo("unsafe_index", lambda T, x, i: T._unsafe_index(x, [i]), [S(3, 4), I(3, values=[1, 1, 2])],
           grad_fn="UnsafeIndexBackward0"),
    OpInfo("unsafe_index_put", lambda T, x, v, i: T._unsafe_index_put(x, [i], v, True),
           [S(3, 4), S(4), I(2, values=[2, 2])],
           grad_fn="UnsafeIndexPutBackward0"),
    # masked-out positions may hold out-of-range indices (7, -9): clamped, never read into the result
    OpInfo("unsafe_masked_index", lambda T, x, m, i, j: T._unsafe_masked_index(x, m, [i, j], -2.5),
           [S(3, 4), B(4, values=[True, False, True, False]), I(4, values=[0, 2, 1, 1]), I(4, values=[3, 7, 1, -9])],
           grad_fn="UnsafeMaskedIndexBackward0"),
    OpInfo("unsafe_masked_index_put_accumulate",
           lambda T, x, m, v, i, j: T._unsafe_masked_index_put_accumulate(x, m, [i, j], v),
           [S(3, 4), B(4, 1, values=[[True], [False], [True], [True]]), S(4, 2), I(4, 1, values=[[2], [5], [2], [0]]),
            I(1, 2, values=[[0, 3]])],
           grad_fn="UnsafeMaskedIndexPutAccumulateBackward0"),
    OpInfo("index_put_impl", lambda T, x, v, i: T._index_put_impl_(x * 1, (i,), v), [S(3, 4), S(4), I(1, values=[1])],
           grad_fn="IndexPutImplBackward0"),
    OpInfo("take_along_dim", lambda T, x, i: T.take_along_dim(x, i, 1), [S(3, 4), I(3, 2, high=4)],
           grad_fn="GatherBackward0"),
    OpInfo("take_along_dim_broadcast", lambda T, x, i: x.take_along_dim(i, 0), [S(3, 1), I(2, 4, high=3)],
           grad_fn="GatherBackward0"),
    OpInfo("take_along_dim_flat", lambda T, x, i: T.take_along_dim(x, i), [S(3, 4), I(2, 3, high=12)],
           grad_fn="GatherBackward0"),
    # masked ops
    OpInfo("masked_fill", lambda T, x, m: x.masked_fill(m, 0.5), [S(3, 4), B(3, 4)], grad_fn="MaskedFillBackward0"),
    OpInfo("masked_fill_broadcast_mask", lambda T, x, m: T.masked_fill(x, m, -1), [S(3, 4), B(4)],
           grad_fn="MaskedFillBackward0"),
    OpInfo("masked_fill_mask_broadcasts_input", lambda T, x, m: x.masked_fill(m, 2.0), [S(4), B(2, 4)],
           grad_fn="MaskedFillBackward0"),
    OpInfo("masked_fill_tensor_value", lambda T, x, m, v: x.masked_fill(m, v), [S(3, 4), B(3, 4), S()],
           grad_fn="MaskedFillBackward1"),
    OpInfo("masked_fill_tensor_value_broadcast", lambda T, x, m, v: x.masked_fill(m, v), [S(3, 4), B(3, 1), S()],
           grad_fn="MaskedFillBackward1"),
    OpInfo("masked_fill_inplace", _inplace("masked_fill_", lambda T, m: (m, 3.0)), [S(3, 4), B(3, 4)],
           grad_fn="MaskedFillBackward0"),
    OpInfo("masked_fill_inplace_tensor_value", _inplace("masked_fill_", lambda T, m, v: (m, v)),
           [S(3, 4), B(4), S()], grad_fn="MaskedFillBackward1"),
    OpInfo("masked_select", lambda T, x, m: T.masked_select(x, m), [S(3, 4), B(3, 4)], grad_fn="MaskedSelectBackward0"),
    OpInfo("masked_select_broadcast", lambda T, x, m: x.masked_select(m), [S(4), B(3, 4)],
           grad_fn="MaskedSelectBackward0"),
    OpInfo("masked_scatter", lambda T, x, m, s: x.masked_scatter(m, s), [S(3, 4), B(3, 4), S(14)],
           grad_fn="MaskedScatterBackward0"),
    OpInfo("masked_scatter_broadcast", lambda T, x, m, s: T.masked_scatter(x, m, s), [S(3, 4), B(4), S(3, 5)],
           grad_fn="MaskedScatterBackward0"),
    OpInfo("masked_scatter_inplace", _inplace("masked_scatter_", lambda T, m, s: (m, s)), [S(3, 4), B(3, 4), S(12)],
           grad_fn="MaskedScatterBackward0"),
    # take / put
    OpInfo("take", lambda T, x, i: T.take(x, i), [S(3, 4), I(2, 3, low=-12, high=12)], grad_fn="TakeBackward0"),
    OpInfo("take_repeated", lambda T, x, i: x.take(i), [S(5), I(4, values=[1, 1, 4, 1])], grad_fn="TakeBackward0"),
    OpInfo("put", lambda T, x, s, i: T.put(x, i, s), [S(3, 4), S(3), I(3, values=[0, 11, -2])],
           grad_fn="PutBackward0"),
    OpInfo("put_accumulate", lambda T, x, s, i: x.put(i, s, accumulate=True),
           [S(3, 4), S(2, 2), I(4, values=[5, 5, 0, 5])],
           grad_fn="PutBackward0"),
    OpInfo("put_inplace", _inplace("put_", lambda T, s, i: (i, s)), [S(3, 4), S(2), I(2, values=[1, 7])],
           grad_fn="PutBackward0"),
    # integer results: no gradient, compared with torch
    OpInfo("nonzero", lambda T, x: T.nonzero(x > 0), [S(3, 4)], check_grad=False),
    OpInfo("nonzero_as_tuple", lambda T, x: x.nonzero(as_tuple=True), [S(3, 4, fill=[[0, 1, 0, 2]] * 3)],
           check_grad=False),
    OpInfo("nonzero_0d", lambda T, x: T.nonzero(x), [S(fill=3.0)], check_grad=False),
    OpInfo("argwhere", lambda T, x: T.argwhere(x > 0), [S(2, 3)], check_grad=False),
]


SLICE_INVERSE = [
    OpInfo("slice_inverse", lambda T, a: T.slice_inverse(a[0:1], a, 0, 0, 1), [S(2, 3)],
           grad_fn="SliceInverseBackward0"),
    OpInfo("slice_inverse_step", lambda T, a: (lambda b: T.slice_inverse(b[:, 1::2], b, 1, 1, None, 2))(a * 2),
           [S(2, 5)], grad_fn="SliceInverseBackward0"),
]

OPS += SLICE_INVERSE

_NO_GRAD_OP = dict(check_grad=False, gradgrad=False)
LOOKUPS = [
    OpInfo("take_along_dim_negative", lambda T, x, i: T.take_along_dim(x, i, 1), [S(2, 5), I(2, 3, low=-5, high=5)],
           grad_fn="GatherBackward0"),
    # torch repeats with int repeats by expand+clone+view, ours by index_select: same values and gradients
    OpInfo("repeat_interleave", lambda T, x: T.repeat_interleave(x, 2, dim=1), [S(2, 3)],
           grad_fn="IndexSelectBackward0", torch_parity=False),
    OpInfo("repeat_interleave_tensor", lambda T, x: x.repeat_interleave(T.tensor([1, 0, 2]), dim=0), [S(3, 2)],
           grad_fn="IndexSelectBackward0"),
    OpInfo("repeat_interleave_counts", lambda T, r: T.repeat_interleave(r), [I(values=[2, 0, 1])], **_NO_GRAD_OP),
    OpInfo("searchsorted", lambda T, s, v: T.searchsorted(s, v, right=True),
           [S(4, fill=[-1.0, 0.0, 0.5, 1.0], requires_grad=False), S(2, 3, requires_grad=False)], **_NO_GRAD_OP),
    OpInfo("searchsorted_batched", lambda T, s, v: T.searchsorted(s, v, side="right"),
           [S(2, 3, fill=[-1.0, 0.0, 1.0, -0.5, 0.0, 0.5], requires_grad=False), S(2, 4, requires_grad=False)],
           **_NO_GRAD_OP),
    OpInfo("bucketize", lambda T, v, b: T.bucketize(v, b, out_int32=True),
           [S(5, requires_grad=False), S(3, fill=[-0.5, 0.0, 0.5], requires_grad=False)], **_NO_GRAD_OP),
    OpInfo("isin", lambda T, a, b: T.isin(a, b, invert=True), [I(6, high=5), I(3, high=5)], **_NO_GRAD_OP),
]

OPS += LOOKUPS
