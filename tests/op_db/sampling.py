"""Registry entries for interpolation, pixel shuffle, affine grids and grid sampling (ndgrad/ops/sampling.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def F(T):
    return T.nn.functional


def _sample(mode, padding, align):
    return lambda T, x, g: F(T).grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)


def _interp(**kw):
    return lambda T, x: F(T).interpolate(x, **kw)


X1, X2, X3D = S(1, 2, 3), S(1, 1, 3, 2), S(1, 1, 2, 2, 2)


INTERPOLATION = [
    OpInfo("interp_nearest_1d", _interp(scale_factor=2), [X1], grad_fn="UpsampleNearest1DBackward0"),
    OpInfo("interp_nearest_1d_size", _interp(size=5), [X1], grad_fn="UpsampleNearest1DBackward0"),
    OpInfo("interp_nearest_2d", _interp(size=(4, 3)), [X2], grad_fn="UpsampleNearest2DBackward0"),
    OpInfo("interp_nearest_2d_down", _interp(scale_factor=0.6), [S(1, 1, 5, 4)], grad_fn="UpsampleNearest2DBackward0"),
    OpInfo("interp_nearest_3d", _interp(scale_factor=(2, 1, 1.5)), [X3D], grad_fn="UpsampleNearest3DBackward0"),
    OpInfo("interp_nearest_exact_1d", _interp(size=5, mode="nearest-exact"), [X1],
           grad_fn="UpsampleNearestExact1DBackward0"),
    OpInfo("interp_nearest_exact_2d", _interp(scale_factor=1.5, mode="nearest-exact"), [X2],
           grad_fn="UpsampleNearestExact2DBackward0"),
    OpInfo("interp_nearest_exact_3d", _interp(size=(3, 2, 3), mode="nearest-exact"), [X3D],
           grad_fn="UpsampleNearestExact3DBackward0"),
    OpInfo("interp_linear", _interp(scale_factor=2, mode="linear"), [X1], grad_fn="UpsampleLinear1DBackward0"),
    OpInfo("interp_linear_align", _interp(size=5, mode="linear", align_corners=True), [X1],
           grad_fn="UpsampleLinear1DBackward0"),
    OpInfo("interp_bilinear", _interp(size=(4, 5), mode="bilinear"), [X2], grad_fn="UpsampleBilinear2DBackward0"),
    OpInfo("interp_bilinear_scale_align", _interp(scale_factor=1.7, mode="bilinear", align_corners=True), [X2],
           grad_fn="UpsampleBilinear2DBackward0"),
    OpInfo("interp_bilinear_down", _interp(scale_factor=0.5, mode="bilinear"), [S(1, 1, 4, 5)],
           grad_fn="UpsampleBilinear2DBackward0"),
    OpInfo("interp_bicubic", _interp(scale_factor=2, mode="bicubic"), [X2], grad_fn="UpsampleBicubic2DBackward0"),
    OpInfo("interp_bicubic_align", _interp(size=(4, 3), mode="bicubic", align_corners=True), [X2],
           grad_fn="UpsampleBicubic2DBackward0"),
    OpInfo("interp_trilinear", _interp(scale_factor=1.5, mode="trilinear"), [X3D],
           grad_fn="UpsampleTrilinear3DBackward0"),
    OpInfo("interp_trilinear_align", _interp(size=(3, 3, 2), mode="trilinear", align_corners=True), [X3D],
           grad_fn="UpsampleTrilinear3DBackward0"),
    OpInfo("interp_bilinear_aa_up", _interp(scale_factor=2, mode="bilinear", antialias=True), [X2],
           grad_fn="UpsampleBilinear2DAaBackward0"),
    OpInfo("interp_bilinear_aa_down", _interp(size=(2, 3), mode="bilinear", antialias=True), [S(1, 1, 5, 6)],
           grad_fn="UpsampleBilinear2DAaBackward0"),
    OpInfo("interp_bicubic_aa_down", _interp(scale_factor=0.5, mode="bicubic", antialias=True), [S(1, 1, 6, 5)],
           grad_fn="UpsampleBicubic2DAaBackward0"),
    OpInfo("interp_bicubic_aa_up", _interp(size=(4, 4), mode="bicubic", antialias=True), [X2],
           grad_fn="UpsampleBicubic2DAaBackward0"),
    # torch.ops.aten's own forms: .vec (scale_factors, the output size computed) and the default
    # overload (one scale per axis, the output size given)
    OpInfo("aten_upsample_bilinear2d_aa_vec",
           lambda T, x: T.ops.aten._upsample_bilinear2d_aa(x, None, False, scale_factors=[1.7, 0.9]),
           [S(1, 2, 5, 6)], grad_fn="UpsampleBilinear2DAaBackward0"),
    OpInfo("aten_upsample_bicubic2d_aa_scales",
           lambda T, x: T.ops.aten._upsample_bicubic2d_aa(x, [3, 3], True, scales_h=0.8, scales_w=0.5),
           [S(1, 1, 5, 6)], grad_fn="UpsampleBicubic2DAaBackward0"),
    OpInfo("pixel_shuffle", lambda T, x: F(T).pixel_shuffle(x, 2), [S(1, 8, 2, 1)], grad_fn="PixelShuffleBackward0"),
    OpInfo("pixel_shuffle_3d_input", lambda T, x: T.pixel_shuffle(x, 2), [S(4, 1, 2)], grad_fn="PixelShuffleBackward0"),
    OpInfo("pixel_unshuffle", lambda T, x: F(T).pixel_unshuffle(x, 2), [S(2, 1, 2, 4)],
           grad_fn="PixelUnshuffleBackward0"),
]

AFFINE = [OpInfo(f"affine_grid_{d}d_align{a}", lambda T, t, d=d, a=a: F(T).affine_grid(
    t, (2, 1, 3, 2) if d == 2 else (1, 1, 2, 3, 2), align_corners=a), [S(2, 2, 3) if d == 2 else S(1, 3, 4)],
    grad_fn="AffineGridGeneratorBackward0") for d in (2, 3) for a in (False, True)] + [
    OpInfo("affine_grid_unit_size", lambda T, t: F(T).affine_grid(t, (1, 1, 1, 3), align_corners=False), [S(1, 2, 3)],
           grad_fn="AffineGridGeneratorBackward0"),
]

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

OPS = INTERPOLATION + AFFINE + GRID

OPS += [OpInfo("channel_shuffle", lambda T, x: T.nn.functional.channel_shuffle(x, 2), [S(2, 4, 3)],
               grad_fn="ChannelShuffleBackward0")]
