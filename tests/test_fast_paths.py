"""The per-op fast paths (op glue, operators, engine) give what the general paths give.

ops._registry.call skips its promotion loop for a floating Tensor alone or with a float, an int or a
Tensor of its dtype; Tensor operators call the op glue directly; the engine runs a node that is
alone in being ready without the heap. Each case is checked against torch, next to the cases
that must still take the general path.
"""
import numpy as np
import pytest

from parity import parity


def _pairs(T):
    f32 = T.tensor([0.5, -1.5], dtype=T.float32)
    f64 = T.tensor([0.5, -1.5], dtype=T.float64)
    c64 = T.tensor([0.5 + 1j, -1.5], dtype=T.complex64)
    i64 = T.tensor([2, -3])
    b = T.tensor([True, False])
    return f32, f64, c64, i64, b


@pytest.mark.parametrize("op", ["mul", "add", "div"])
def test_binary_dtypes_and_values_with_scalars_and_tensors(op):
    def s(T):
        fn = getattr(T, op)
        f32, f64, c64, i64, b = _pairs(T)
        out = []
        for a in (f32, f64, c64, i64, b):
            for other in (2, 1.5, True, 2j, f32, f64, i64, b):
                try:
                    r = fn(a, other)
                except (RuntimeError, TypeError) as e:
                    r = type(e).__name__
                out.append(r if isinstance(r, str) else [str(r.dtype), r])
        return out
    parity(s, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["tanh", "exp", "sqrt"])
def test_unary_float_ops_promote_integers_and_keep_floats(name):
    def s(T):
        return [[str(r.dtype), r] for r in (getattr(T, name)(t) for t in _pairs(T)[:4])]
    parity(s, rtol=1e-5, atol=1e-6)


def test_operators_record_torch_nodes_and_reject_foreign_operands():
    def s(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        outs = [x * 2, 2 * x, x + 1, 1 + x, x - 1, 2 - x, x / 2, x * x, x ** 2]
        names = [o.grad_fn.name() for o in outs]
        sum(o.sum() for o in outs).backward()
        with pytest.raises(TypeError):
            x * "a"
        return names + [x.grad]
    parity(s)


def test_float64_chain_gradient_and_nodes_match_torch():
    def s(T):
        x = T.tensor(np.linspace(-1, 1, 5), requires_grad=True)
        y = x
        for _ in range(50):
            y = T.tanh(y * 1.0001)
        names = [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()]
        y.sum().backward()
        return names + [x.grad]
    parity(s)


def test_engine_order_with_several_ready_nodes_matches_torch():
    # a node whose two inputs become ready together, a chain after it, then a fan-in: the run order
    # mixes the heap and the direct hand-over
    def s(T):
        order = []
        x = T.tensor([0.3, 0.7], dtype=T.float64, requires_grad=True)
        y = x * 2
        a = y.exp()
        b = y.sin()
        c = (a * b).cos()
        d = c * a
        z = d + b.tanh()
        for t, name in ((y, "y"), (a, "a"), (b, "b"), (c, "c"), (d, "d"), (z, "z")):
            t.grad_fn.register_prehook(lambda go, n=name: order.append(n))
        z.sum().backward()
        return order + [x.grad]
    parity(s)


def test_tensor_subclass_and_mixed_dtypes_take_the_general_path():
    def s(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0], dtype=T.float32))
        r1 = p * T.tensor([1.0, 2.0], dtype=T.float64)     # float32 with float64 tensor
        r2 = T.tensor([1.0, 2.0], dtype=T.float32) * T.tensor(2.0, dtype=T.float64)   # 0-dim does not lift
        r3 = p * 2.5
        (r1.sum() + r3.sum()).backward()
        return [str(r1.dtype), str(r2.dtype), str(r3.dtype), r3.grad_fn.name(), p.grad]
    parity(s)


def test_inplace_updates_without_recording_write_in_place_as_the_general_path():
    """call_inplace's one-ufunc path (no grad recorded) against torch, next to cases it must leave."""
    def s(T):
        out = []
        for dt in (T.float32, T.float64):
            p = T.ones(2, 3, dtype=dt, requires_grad=True)
            g = T.full((2, 3), 0.25, dtype=dt)
            row = T.tensor([1.0, 2.0, 4.0], dtype=dt)
            view = p.detach()[0]
            with T.no_grad():
                p -= 0.1 * g
                p *= 3
                p += row                   # broadcast
                p /= 2
                p.add_(g, alpha=2)         # alpha: the general path
                p.sub_(T.tensor(1.0, dtype=T.float64))   # another dtype: the general path
                view.mul_(-1)              # through a view: the base sees it
            out += [p, p._version, view._version, p.requires_grad, p.grad_fn is None]
        i = T.tensor([4, 6])
        i += 1
        i.mul_(2)
        return out + [i]
    parity(s)


def _stable_sort(a, d, descending):
    """NumPy's stable argsort along d (descending: of the reversed array, reversed back)."""
    if descending:
        idx = np.flip(a.shape[d] - 1 - np.argsort(np.flip(a, d), axis=d, kind="stable"), d)
    else:
        idx = np.argsort(a, axis=d, kind="stable")
    return np.take_along_axis(a, idx, d), idx


def test_float32_sort_and_topk_by_keys_are_the_stable_sort():
    """sort and topk of float32 order 64-bit keys of value and index (topk partitions them, for k at most
    an eighth of the dim): the stable sort's values and indices (topk: its first k), for ties, NaN,
    -0.0 and infinities, either direction, any dim."""
    from ndgrad.ops import reduction
    rs = np.random.RandomState(0)
    for trial in range(120):
        shape = tuple(rs.randint(1, 40, size=rs.randint(1, 4)))
        d = rs.randint(len(shape))
        a = rs.randint(-3, 4, size=shape).astype(np.float32) if trial % 2 else rs.randn(*shape).astype(np.float32)
        m = rs.rand(*shape)
        a[m < 0.05], a[(m > 0.05) & (m < 0.1)], a[(m > 0.1) & (m < 0.13)] = np.nan, -0.0, np.inf
        for largest in (True, False):
            values, idx = _stable_sort(a, d, largest)
            got_v, got_i = reduction._sorted(a, d, largest)
            assert np.array_equal(got_i, idx) and got_i.dtype == np.int64
            assert np.array_equal(got_v.view(np.uint32), values.view(np.uint32))
            for k in range(1, shape[d] // 8 + 1):
                got_v, got_i = reduction._topk_by_keys(a, k, d, largest)
                first = (slice(None),) * d + (slice(0, k),)
                assert np.array_equal(got_i, idx[first]) and got_i.dtype == np.int64
                assert np.array_equal(got_v.view(np.uint32), values[first].view(np.uint32))


def test_topk_matches_torch_with_gradients():
    rs = np.random.RandomState(1)
    x0 = rs.randn(64, 200)

    def s(T):
        out = []
        for dtype in (T.float32, T.float64):
            x = T.tensor(x0, dtype=dtype, requires_grad=True)
            v, i = x.topk(7, 1)
            w, j = x.topk(5, 0, largest=False)
            (v.sum() + (w * w).sum()).backward()
            out += [v, i, w, j, x.grad]
        return out
    parity(s)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 7), (2, 3)), ((2, 3, 5, 6), (1, 2, 3, 1)), ((3, 7), (3, 3)),
                                       ((1, 2, 4, 5, 6), (1, 1, 2, 0, 3, 2)), ((2, 1, 6, 6), (5, 5, 5, 5)),
                                       ((2, 3, 5, 6), (-1, 2, 1, -2)), ((2, 3, 5), (-2, -1))])   # (negative: crops)
def test_reflect_and_replicate_padding_as_gathers_match_torch(mode, shape, pad):
    """Reflect/replicate padding copies the input into the middle and each border from it (corners
    included, 1-3 padded dims, unbatched too, pads up to the input's size), and scatters the gradient
    back: torch's values exactly and its gradients."""
    rs = np.random.RandomState(4)
    x0 = rs.randn(*shape)

    def s(T):
        x = T.tensor(x0, requires_grad=True)
        y = T.nn.functional.pad(x, pad, mode=mode)
        y.backward(T.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape))))
        return [y, x.grad]
    parity(s, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(scale_factor=2, mode="nearest"), dict(size=(7, 9), mode="nearest"),
                                    dict(size=(13, 4), mode="nearest-exact"), dict(scale_factor=0.5, mode="nearest"),
                                    dict(scale_factor=1.7, mode="nearest-exact"), dict(scale_factor=3, mode="nearest")],
                         ids=str)
def test_nearest_interpolation_gathers_match_torch(kwargs):
    """Nearest interpolation is a gather along each axis (an inf pixel stays in its own outputs, as in
    torch: a 0/1 matrix product spread NaN over its row), its backward sums each entry's run of
    positions (strided adds where every entry is taken equally often)."""
    rs = np.random.RandomState(5)
    x0 = rs.randn(2, 3, 6, 8)
    x0[0, 0, 1, 1] = np.inf

    def s(T):
        x = T.tensor(x0, requires_grad=True)
        y = T.nn.functional.interpolate(x, **kwargs)
        y.backward(T.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape))))
        return [y, x.grad]
    parity(s, rtol=1e-12, atol=1e-12)


def test_index_select_and_combinations_backward_with_nothing_selected():
    """index_select's backward (index_add along dim 0) with an empty index or zero-width rows, and
    combinations with r above the input's length (an empty result): torch's gradients."""
    def s(T):
        out = []
        for shape, index in (((0, 3), []), ((4, 0), [1, 2]), ((5, 2), [])):
            x = T.zeros(*shape, requires_grad=True)
            x.index_select(0, T.tensor(index, dtype=T.int64)).sum().backward()
            out.append(x.grad)
        x = T.tensor([1.0], requires_grad=True)
        T.combinations(x, 2).sum().backward()
        return out + [x.grad]
    parity(s)


@pytest.mark.parametrize("fn,shape,kernel,kwargs", [("avg_pool2d", (2, 3, 8, 6), 2, {}),
                                                    ("avg_pool2d", (3, 8, 6), (2, 3), {}),
                                                    ("avg_pool1d", (2, 3, 12), 3, {}),
                                                    ("avg_pool3d", (1, 2, 4, 6, 8), 2, {}),
                                                    ("avg_pool2d", (2, 3, 8, 6), 2, {"divisor_override": 3}),
                                                    ("avg_pool2d", (2, 3, 9, 6), 2, {})], ids=str)
def test_avg_pool_backward_over_tiling_windows_is_torchs_bits(fn, shape, kernel, kwargs):
    """Average pooling whose windows tile the input spreads each window's gradient by one broadcast copy:
    torch's gradient bits, a -0.0 gradient arriving as 0.0 as in torch (and the general path where the
    windows do not tile: a size not divisible by the kernel)."""
    rs = np.random.RandomState(7)
    x0 = rs.randn(*shape)

    def s(T):
        x = T.tensor(x0, requires_grad=True)
        y = getattr(T.nn.functional, fn)(x, kernel, **kwargs)
        g = np.cos(np.arange(y.numel())).reshape(tuple(y.shape))
        g.flat[0] = -0.0
        y.backward(T.tensor(g))
        return [x.grad.view(T.int64)]
    parity(s, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_isclose_and_allclose_of_large_tensors_run_by_blocks_as_torch(dtype):
    # more elements than a block (ops/pointwise._CLOSE_BLOCK), a NaN, infinities and a far value in
    # the last block only, so that a block-by-block answer must reach it
    def s(T):
        n = 3 * (1 << 16) + 5
        a = T.linspace(-2, 2, n, dtype=getattr(T, dtype))
        b = a + 1e-4
        b[-1], a[-2], b[-2], a[-3], b[-3] = 1e3, float("nan"), float("nan"), float("inf"), float("inf")
        out = []
        for atol, equal_nan in ((1e-3, False), (1e-3, True), (1e-5, True)):
            close = T.isclose(a, b, atol=atol, equal_nan=equal_nan)
            out += [int(close.sum()), close[-4:], T.allclose(a, b, atol=atol, equal_nan=equal_nan),
                    T.allclose(a[:-1], b[:-1], atol=atol, equal_nan=equal_nan)]
        return out
    parity(s)


def test_split_chunk_and_unsafe_split_pieces_match_torch():
    # the pieces are slices along dim (not np.split); calls of a Tensor and ints skip the parser
    def s(T):
        x = T.arange(30.).reshape(5, 6).t()   # (non-contiguous)
        e = T.empty(2, 0)
        out = [x.split(4), x.split(2, 1), x.split(2, -1), x.split([1, 0, 4], 1), x.chunk(4), x.chunk(7, 1),
               x.unsafe_split(3, 0), x.unsafe_chunk(2, -1), T.split(x, 5, dim=1), e.split(0, 1), e.chunk(3, 1),
               T.split_with_sizes(T.empty(0), []), [p.shape for p in e.split(2, 1)]]
        with pytest.raises(RuntimeError):
            x.split(-1)
        with pytest.raises(TypeError):
            x.split(2, 1.0)
        return out
    parity(s)


def test_clone_keeps_the_layout_of_dense_tensors_as_torch():
    # preserve_format (clone's default): a transposed or permuted block of memory keeps its strides, a
    # tensor with gaps or overlaps becomes row-major; contiguous() and reshape's copy are row-major
    def s(T):
        x = T.arange(24.0).reshape(2, 3, 4)
        cases = [x.transpose(0, 2), x.permute(1, 2, 0), x[:, :, ::2], x.transpose(0, 1)[:, 1:], x.expand(2, 2, 3, 4),
                 T.arange(12.0).reshape(3, 1, 4).transpose(0, 2), x.t() if x.ndim == 2 else x[0].t()]
        out = []
        for c in cases:
            for y in (c.clone(), c.clone(memory_format=T.preserve_format), c.clone(memory_format=T.contiguous_format),
                      c.contiguous()):
                out += [y.stride(), y.is_contiguous(), y]
            out.append(c.reshape(-1).stride())
        return out
    parity(s)
