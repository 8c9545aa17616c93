"""Registry entries for distances, bilinear, affine grids and grid sampling, embedding_bag, weight
norm, scaled dot-product attention, CTC loss and packed sequences (format: op_db/__init__.py)."""
from . import I, S, OpInfo


def F(T):
    return T.nn.functional


def rnn(T):
    return T.nn.utils.rnn


# torch has no double backward for pdist/cdist (their backward nodes raise), only for the
# matrix-product euclidean form
DIST = [OpInfo(f"pdist_p{p}", lambda T, x, p=p: F(T).pdist(x, p), [S(4, 3)], grad_fn="PdistBackward0", gradgrad=False)
        for p in (0, 0.5, 1, 1.5, 2, 3, float("inf"))] + [
    OpInfo("pdist_noncontiguous", lambda T, x: T.pdist(x.t()), [S(3, 4)], grad_fn="PdistBackward0", gradgrad=False),
    OpInfo("pdist_float32", lambda T, x: F(T).pdist(x), [S(4, 3, dtype="float32")], grad_fn="PdistBackward0",
           check_grad=False, atol=1e-6, rtol=1e-5),
] + [OpInfo(f"cdist_p{p}", lambda T, a, b, p=p: T.cdist(a, b, p=p), [S(3, 2), S(4, 2)], grad_fn="CdistBackward0",
            gradgrad=False) for p in (0, 0.5, 1, 2, 3, float("inf"))] + [
    OpInfo("cdist_batched_broadcast", lambda T, a, b: T.cdist(a, b, p=1.5), [S(2, 3, 2), S(1, 4, 2)],
           grad_fn="CdistBackward0", gradgrad=False),
    OpInfo("cdist_donot_use_mm", lambda T, a, b: T.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
           [S(30, 2), S(3, 2)], grad_fn="CdistBackward0", gradgrad=False),
    OpInfo("cdist_use_mm", lambda T, a, b: T.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [S(2, 3), S(4, 3)],
           grad_fn="ViewBackward0", atol=1e-6, forward_ad=False),
    OpInfo("cdist_mm_if_necessary", lambda T, a, b: T.cdist(a, b), [S(26, 2), S(3, 2)], grad_fn="ViewBackward0",
           atol=1e-6, forward_ad=False),
    OpInfo("cdist_use_mm_batched", lambda T, a, b: T.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
           [S(2, 3, 2), S(1, 4, 2)], grad_fn="ViewBackward0", atol=1e-6, forward_ad=False),
]

BILINEAR = [
    OpInfo("bilinear", lambda T, a, b, w: F(T).bilinear(a, b, w), [S(2, 2), S(2, 3), S(4, 2, 3)],
           grad_fn="ViewBackward0"),
    OpInfo("bilinear_bias", lambda T, a, b, w, c: F(T).bilinear(a, b, w, c), [S(2, 2), S(2, 3), S(1, 2, 3), S(1)],
           grad_fn="AddBackward0"),
    OpInfo("bilinear_batched", lambda T, a, b, w: F(T).bilinear(a, b, w), [S(2, 3, 2), S(2, 3, 1), S(2, 2, 1)],
           grad_fn="ViewBackward0"),
    OpInfo("_trilinear", lambda T, a, b, c: T._trilinear(a, b, c, [1], [0], [], [2]), [S(2, 3), S(3, 3), S(2, 3, 3)],
           grad_fn="TrilinearBackward0"),
]

AFFINE = [OpInfo(f"affine_grid_{d}d_align{a}", lambda T, t, d=d, a=a: F(T).affine_grid(
    t, (2, 1, 3, 2) if d == 2 else (1, 1, 2, 3, 2), align_corners=a), [S(2, 2, 3) if d == 2 else S(1, 3, 4)],
    grad_fn="AffineGridGeneratorBackward0") for d in (2, 3) for a in (False, True)] + [
    OpInfo("affine_grid_unit_size", lambda T, t: F(T).affine_grid(t, (1, 1, 1, 3), align_corners=False), [S(1, 2, 3)],
           grad_fn="AffineGridGeneratorBackward0"),
]


def _sample(mode, padding, align):
    return lambda T, x, g: F(T).grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)


# grid values beyond [-1, 1] exercise the padding modes; double backward (slow: a composite of public
# ops differentiated twice) is checked once per mode and padding
GRID = [OpInfo(f"grid_sample_2d_{m}_{p}_align{a}", _sample(m, p, a), [S(1, 2, 2, 3), S(1, 2, 2, 2, low=-1.3, high=1.3)],
               grad_fn="GridSampler2DBackward0", seed=1, gradgrad=not a)
        for m in ("bilinear", "nearest", "bicubic") for p in ("zeros", "border", "reflection")
        for a in (False, True)] + [
    OpInfo(f"grid_sample_3d_{m}_{p}_align{a}", _sample(m, p, a),
           [S(1, 1, 2, 2, 3), S(1, 1, 2, 2, 3, low=-1.3, high=1.3)],
           grad_fn="GridSampler3DBackward0", seed=2, gradgrad=not a)
    for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection") for a in (False, True)] + [
    OpInfo("grid_sample_batch2", _sample("bilinear", "zeros", False),
           [S(2, 1, 3, 3), S(2, 4, 1, 2, low=-1.1, high=1.1)],
           grad_fn="GridSampler2DBackward0"),
    OpInfo("grid_sampler_2d_cpu_fallback", lambda T, x, g: T._grid_sampler_2d_cpu_fallback(x, g, 0, 0, False),
           [S(1, 2, 3, 3, dtype="float32"), S(1, 2, 2, 2, dtype="float32")],
           grad_fn="GridSampler2DCpuFallbackBackward0",
           check_grad=False, atol=1e-6, rtol=1e-5),
    OpInfo("grid_sampler_2d_cpu_fallback_f64", lambda T, x, g: T._grid_sampler_2d_cpu_fallback(x, g, 2, 2, True),
           [S(1, 1, 3, 3), S(1, 1, 2, 2, low=-1.2, high=1.2)], grad_fn="GridSampler2DCpuFallbackBackward0",
           torch_parity=False),
]

IDX = I(values=[0, 2, 1, 3, 3, 0])
OFFSETS = I(values=[0, 2, 2, 5])   # bag 1 is empty
BAG = [OpInfo(f"embedding_bag_{m}", lambda T, i, w, o, m=m: F(T).embedding_bag(i, w, o, mode=m),
              [IDX, S(4, 3), OFFSETS],
              grad_fn="EmbeddingBagBackward0", gradgrad=False) for m in ("sum", "mean", "max")] + [
    OpInfo("embedding_bag_2d_input", lambda T, i, w: F(T).embedding_bag(i, w, mode="sum"), [I(2, 3, high=4), S(4, 2)],
           grad_fn="EmbeddingBagBackward0", gradgrad=False),
    OpInfo("embedding_bag_per_sample_weights", lambda T, i, w, o, p: F(T).embedding_bag(
        i, w, o, mode="sum", per_sample_weights=p), [IDX, S(4, 3), OFFSETS, S(6)], grad_fn="EmbeddingBagBackward0",
        gradgrad=False),
    OpInfo("embedding_bag_padding_idx_mean", lambda T, i, w, o: F(T).embedding_bag(i, w, o, padding_idx=3),
           [IDX, S(4, 3), OFFSETS], grad_fn="EmbeddingBagBackward0", gradgrad=False),
    OpInfo("embedding_bag_padding_idx_max", lambda T, i, w, o: F(T).embedding_bag(i, w, o, mode="max", padding_idx=0),
           [IDX, S(4, 3), OFFSETS], grad_fn="EmbeddingBagBackward0", gradgrad=False),
    OpInfo("embedding_bag_include_last_offset", lambda T, i, w, o: F(T).embedding_bag(
        i, w, o, mode="sum", include_last_offset=True), [IDX, S(4, 3), I(values=[0, 2, 6])],
        grad_fn="EmbeddingBagBackward0", gradgrad=False),
    OpInfo("embedding_bag_scale_grad_by_freq", lambda T, i, w, o: F(T).embedding_bag(
        i, w, o, mode="mean", scale_grad_by_freq=True), [IDX, S(4, 3), OFFSETS], grad_fn="EmbeddingBagBackward0",
        check_grad=False, torch_parity=False),   # a heuristic, not the derivative; torch 2.13's CPU kernel
    # divides some rows by another index's count (its weight gradients differ from the documented rule)
]

WEIGHT_NORM = [
    OpInfo("weight_norm_dim0", lambda T, v, g: T._weight_norm(v, g, 0), [S(3, 2), S(3, 1, low=0.5)],
           grad_fn="WeightNormInterfaceBackward0"),
    OpInfo("weight_norm_dim_last", lambda T, v, g: T._weight_norm(v, g, 1), [S(3, 2), S(1, 2, low=0.5)],
           grad_fn="WeightNormInterfaceBackward0"),
    OpInfo("weight_norm_dim_middle", lambda T, v, g: T._weight_norm(v, g, 1), [S(2, 3, 2), S(1, 3, 1, low=0.5)],
           grad_fn="MulBackward0"),
    OpInfo("weight_norm_whole", lambda T, v, g: T._weight_norm(v, g, -1), [S(3, 2), S(1, 1, low=0.5)],
           grad_fn="MulBackward0"),
]


def _sdpa(**kw):
    return lambda T, q, k, v: F(T).scaled_dot_product_attention(q, k, v, **kw)


FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"
QKV = [S(1, 2, 3, 4), S(1, 2, 3, 4), S(1, 2, 3, 4)]
# torch has no double backward for the fused CPU kernel; the math path has one
ATTENTION = [
    OpInfo("sdpa", _sdpa(), QKV, grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_causal", _sdpa(is_causal=True), [S(1, 2, 3, 4), S(1, 2, 5, 4), S(1, 2, 5, 4)], grad_fn=FLASH,
           gradgrad=False),
    OpInfo("sdpa_scale", _sdpa(scale=0.3), QKV, grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_gqa", _sdpa(enable_gqa=True), [S(1, 4, 3, 4), S(1, 2, 3, 4), S(1, 2, 3, 4)], grad_fn=FLASH,
           gradgrad=False),
    OpInfo("sdpa_bool_mask", lambda T, q, k, v: F(T).scaled_dot_product_attention(
        q, k, v, attn_mask=T.tensor([[True, False, True], [True, True, False], [False, True, True]])), QKV,
        grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_float_mask", lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
           QKV + [S(3, 3, requires_grad=False)], grad_fn=FLASH, gradgrad=False),
    OpInfo("sdpa_math_mask_requires_grad",
           lambda T, q, k, v, m: F(T).scaled_dot_product_attention(q, k, v, attn_mask=m),
           QKV + [S(1, 3)], grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_3d_causal", _sdpa(is_causal=True), [S(2, 3, 4), S(2, 3, 4), S(2, 3, 4)],
           grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_value_dim", _sdpa(scale=-0.5), [S(1, 2, 3, 4), S(1, 2, 3, 4), S(1, 2, 3, 2)],
           grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_gqa_3d", _sdpa(enable_gqa=True), [S(4, 3, 2), S(2, 3, 2), S(2, 3, 2)],
           grad_fn="UnsafeViewBackward0"),
    OpInfo("sdpa_math_dropout", _sdpa(dropout_p=0.5), QKV, grad_fn="UnsafeViewBackward0", check_grad=False,
           torch_parity=False),
]


def _ctc(reduction="mean", zero_infinity=False, targets=((1, 2, 2), (1, 0, 0)), il=(5, 4), tl=(3, 1),
         tensor_lengths=False):
    def call(T, x):
        lengths = (T.tensor(il), T.tensor(tl)) if tensor_lengths else (list(il), list(tl))
        return F(T).ctc_loss(x.log_softmax(-1), T.tensor(targets), *lengths, reduction=reduction,
                             zero_infinity=zero_infinity)
    return call


# torch's CTC gradient assumes log_probs come from log_softmax, so the samples differentiate the
# logits; torch has no double backward for it
CTC = [OpInfo(f"ctc_loss_{r}", _ctc(r), [S(5, 2, 3)], grad_fn={"mean": "MeanBackward0", "sum": "SumBackward0",
                                                                "none": "CtcLossBackward0"}[r], gradgrad=False,
              forward_ad=False)
       for r in ("mean", "sum", "none")] + [
    OpInfo("ctc_loss_tensor_lengths", _ctc(tensor_lengths=True), [S(5, 2, 3)], grad_fn="MeanBackward0", gradgrad=False,
           forward_ad=False),
    OpInfo("ctc_loss_concatenated_targets", _ctc("sum", targets=(1, 2, 2, 1)), [S(5, 2, 3)], grad_fn="SumBackward0",
           gradgrad=False, forward_ad=False),
    OpInfo("ctc_loss_blank_and_empty_target", _ctc("none", targets=((0, 0), (1, 1)), tl=(0, 2)), [S(5, 2, 3)],
           grad_fn="CtcLossBackward0", gradgrad=False),
    OpInfo("ctc_loss_zero_infinity", _ctc("none", zero_infinity=True, targets=((1, 1, 1), (2, 0, 0)), il=(3, 4)),
           [S(5, 2, 3)], grad_fn="WhereBackward0", gradgrad=False, forward_ad=False),
    OpInfo("ctc_loss_unbatched", lambda T, x: F(T).ctc_loss(x.log_softmax(-1), T.tensor([1, 2]), [4], [2],
                                                            reduction="none"),
           [S(4, 3)], grad_fn="SqueezeBackward1", gradgrad=False, forward_ad=False),
]

PACK = [
    OpInfo("pack_padded_sequence", lambda T, x: rnn(T).pack_padded_sequence(x, T.tensor([3, 2, 2])).data,
           [S(3, 3, 2)], grad_fn="PackPaddedSequenceBackward0"),
    OpInfo("pack_padded_sequence_batch_first",
           lambda T, x: rnn(T).pack_padded_sequence(x, [3, 1], batch_first=True).data,
           [S(2, 4, 1)], grad_fn="PackPaddedSequenceBackward0"),
    OpInfo("pack_padded_sequence_unsorted", lambda T, x: rnn(T).pack_padded_sequence(
        x, [1, 3], enforce_sorted=False).data, [S(3, 2, 2)], grad_fn="PackPaddedSequenceBackward0"),
    OpInfo("pad_packed_sequence", lambda T, x: rnn(T).pad_packed_sequence(rnn(T).pack_padded_sequence(
        x, [1, 3, 2], batch_first=True, enforce_sorted=False), batch_first=True, padding_value=-1.0)[0],
        [S(3, 3, 2)], grad_fn="IndexSelectBackward0", forward_ad=False),
    OpInfo("pad_sequence", lambda T, a, b: rnn(T).pad_sequence([a, b], padding_value=0.5), [S(3, 2), S(1, 2)],
           grad_fn="torch::autograd::CopySlices"),
    OpInfo("pad_sequence_left_batch_first", lambda T, a, b: rnn(T).pad_sequence(
        [a, b], batch_first=True, padding_side="left"), [S(1), S(3)], grad_fn="torch::autograd::CopySlices"),
]

OPS = DIST + BILINEAR + AFFINE + GRID + BAG + WEIGHT_NORM + ATTENTION + CTC + PACK
