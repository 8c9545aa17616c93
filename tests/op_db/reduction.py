"""Registry entries for reductions (see op_db/__init__.py for the format).

Random samples have no ties; the tie rules (amax/max() share the gradient evenly, max(dim) gives
it to the first index) are checked against torch in the `*_ties` entries, which skip gradcheck
because the function is not differentiable there.
"""
from . import B, I, OpInfo, S

NAN = float("nan")
INF = float("inf")
TIES = [[0.5, 0.9, 0.9, -0.2], [0.3, 0.3, -0.7, 0.3], [0.1, 0.4, 0.2, -0.5]]


def _sum_ops():
    return [
        OpInfo("sum", lambda T, x: T.sum(x), [S(2, 3)], grad_fn="SumBackward0"),
        OpInfo("sum_method", lambda T, x: x.sum(), [S(4)], grad_fn="SumBackward0"),
        OpInfo("sum_0d", lambda T, x: x.sum(), [S()], grad_fn="SumBackward0"),
        OpInfo("sum_dim", lambda T, x: x.sum(1), [S(2, 3)], grad_fn="SumBackward1"),
        OpInfo("sum_dim_neg_keepdim", lambda T, x: T.sum(x, -1, keepdim=True), [S(2, 3)], grad_fn="SumBackward1"),
        OpInfo("sum_dims_tuple", lambda T, x: x.sum((0, 2)), [S(2, 3, 4)], grad_fn="SumBackward1"),
        OpInfo("sum_dims_list_keepdim", lambda T, x: x.sum([-1, 0], True), [S(2, 3, 4)], grad_fn="SumBackward1"),
        OpInfo("sum_dim_none", lambda T, x: x.sum(None), [S(2, 3)], grad_fn="SumBackward1"),
        OpInfo("sum_dim_none_keepdim", lambda T, x: x.sum(dim=None, keepdim=True), [S(2, 3)],
               grad_fn="SumBackward1"),
        OpInfo("sum_dims_empty", lambda T, x: x.sum(()), [S(2, 3)], grad_fn="SumBackward1"),
        OpInfo("sum_0d_dim", lambda T, x: x.sum(0), [S()], grad_fn="SumBackward1"),
        OpInfo("sum_dtype", lambda T, x: x.sum(dtype=T.float32), [S(2, 3)], grad_fn="SumBackward0",
               check_grad=False, atol=1e-6, rtol=1e-6),
        OpInfo("sum_dim_dtype", lambda T, x: x.sum(1, dtype=T.float64), [S(2, 3, dtype="float32")],
               grad_fn="SumBackward1", check_grad=False, atol=1e-6, rtol=1e-6),
        OpInfo("sum_int", lambda T, x: x.sum(1), [I(2, 3, high=5)], check_grad=False),
        OpInfo("sum_bool", lambda T, x: x.sum(), [B(2, 3)], check_grad=False),
        OpInfo("nansum", lambda T, x: T.nansum(x), [S(2, 3, fill=[[0.1, NAN, 0.3], [NAN, -0.5, 0.6]])],
               grad_fn="NansumBackward0"),
        OpInfo("nansum_dim", lambda T, x: x.nansum(1, keepdim=True), [S(2, 3, fill=[[0.1, NAN, 0.3], [NAN, NAN, 0.6]])],
               grad_fn="NansumBackward0"),
        OpInfo("nanmean", lambda T, x: x.nanmean(), [S(2, 3, fill=[[0.1, NAN, 0.3], [NAN, -0.5, 0.6]])],
               grad_fn="DivBackward0"),
        OpInfo("nanmean_dim", lambda T, x: T.nanmean(x, 0), [S(2, 3, fill=[[0.1, NAN, 0.3], [NAN, -0.5, 0.6]])],
               grad_fn="DivBackward0"),
    ]


def _mean_prod_ops():
    zeros_2d = [[0.5, 0.0, -0.7, 0.4], [0.0, 0.3, 0.0, 0.9], [0.2, -0.6, 0.8, 0.0]]
    return [
        OpInfo("mean", lambda T, x: T.mean(x), [S(2, 3)], grad_fn="MeanBackward0"),
        OpInfo("mean_0d", lambda T, x: x.mean(), [S()], grad_fn="MeanBackward0"),
        OpInfo("mean_dim", lambda T, x: x.mean(0), [S(2, 3)], grad_fn="MeanBackward1"),
        OpInfo("mean_dims_keepdim", lambda T, x: x.mean((-1, 0), keepdim=True), [S(2, 3, 4)], grad_fn="MeanBackward1"),
        OpInfo("mean_dim_none", lambda T, x: T.mean(x, None), [S(2, 3)], grad_fn="MeanBackward1"),
        OpInfo("mean_dtype", lambda T, x: x.mean(dtype=T.float64), [S(2, 3, dtype="float32")],
               grad_fn="MeanBackward0", check_grad=False, atol=1e-6, rtol=1e-6),
        OpInfo("mean_int_dtype", lambda T, x: x.mean(1, dtype=T.float64), [I(2, 3, high=5)], check_grad=False),
        OpInfo("prod", lambda T, x: T.prod(x), [S(2, 3, low=0.5, high=1.5)], grad_fn="ProdBackward0"),
        OpInfo("prod_negative", lambda T, x: x.prod(), [S(5)], grad_fn="ProdBackward0"),
        OpInfo("prod_0d", lambda T, x: x.prod(), [S()], grad_fn="ProdBackward0"),
        OpInfo("prod_dim", lambda T, x: x.prod(1), [S(3, 4)], grad_fn="ProdBackward1"),
        OpInfo("prod_dim_neg_keepdim", lambda T, x: T.prod(x, -2, keepdim=True), [S(3, 2, 2)], grad_fn="ProdBackward1"),
        OpInfo("prod_0d_dim", lambda T, x: x.prod(0), [S()], grad_fn="ProdBackward1"),
        OpInfo("prod_one_zero", lambda T, x: x.prod(), [S(4, fill=[0.5, 0.0, -0.7, 0.4])], grad_fn="ProdBackward0"),
        OpInfo("prod_two_zeros", lambda T, x: x.prod(), [S(4, fill=[0.5, 0.0, -0.7, 0.0])], grad_fn="ProdBackward0"),
        OpInfo("prod_zeros_2d", lambda T, x: x.prod(), [S(3, 4, fill=zeros_2d)], grad_fn="ProdBackward0"),
        OpInfo("prod_dim_zeros", lambda T, x: x.prod(1), [S(3, 4, fill=zeros_2d)], grad_fn="ProdBackward1"),
        OpInfo("prod_dim0_zeros_keepdim", lambda T, x: x.prod(0, True), [S(3, 4, fill=zeros_2d)],
               grad_fn="ProdBackward1"),
        OpInfo("prod_dtype", lambda T, x: x.prod(1, dtype=T.float64), [S(2, 3, dtype="float32")],
               grad_fn="ProdBackward1", check_grad=False, atol=1e-6, rtol=1e-6),
        OpInfo("prod_int", lambda T, x: x.prod(), [I(2, 3, low=1, high=4)], check_grad=False),
    ]


def _max_min_ops():
    ops = []
    for name in ("amax", "amin"):
        ops += [
            OpInfo(name, lambda T, x, n=name: getattr(T, n)(x), [S(2, 3)], grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_dim", lambda T, x, n=name: getattr(x, n)(1), [S(2, 3)],
                   grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_dims_keepdim", lambda T, x, n=name: getattr(T, n)(x, (0, -1), keepdim=True),
                   [S(2, 3, 4)], grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_0d", lambda T, x, n=name: getattr(x, n)(), [S()], grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_ties", lambda T, x, n=name: getattr(x, n)(), [S(3, 4, fill=TIES)],
                   grad_fn=f"{name.capitalize()}Backward0", check_grad=False),
            OpInfo(f"{name}_dim_ties", lambda T, x, n=name: getattr(x, n)(1), [S(3, 4, fill=TIES)],
                   grad_fn=f"{name.capitalize()}Backward0", check_grad=False),
        ]
    for name, pointwise in (("max", "Maximum"), ("min", "Minimum")):
        ops += [
            OpInfo(name, lambda T, x, n=name: getattr(T, n)(x), [S(2, 3)], grad_fn=f"{name.capitalize()}Backward1"),
            OpInfo(f"{name}_method", lambda T, x, n=name: getattr(x, n)(), [S(4)],
                   grad_fn=f"{name.capitalize()}Backward1"),
            OpInfo(f"{name}_0d", lambda T, x, n=name: getattr(x, n)(), [S()], grad_fn=f"{name.capitalize()}Backward1"),
            OpInfo(f"{name}_dim", lambda T, x, n=name: getattr(T, n)(x, 1), [S(3, 4)],
                   grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_dim_values", lambda T, x, n=name: getattr(x, n)(dim=-1).values, [S(3, 4)],
                   grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_dim_unpacked", lambda T, x, n=name: getattr(x, n)(0, keepdim=True)[0] * 2, [S(3, 4)],
                   grad_fn="MulBackward0"),
            OpInfo(f"{name}_dim_keepdim", lambda T, x, n=name: getattr(x, n)(1, True), [S(2, 3, 4)],
                   grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_0d_dim", lambda T, x, n=name: getattr(x, n)(0), [S()],
                   grad_fn=f"{name.capitalize()}Backward0"),
            OpInfo(f"{name}_ties", lambda T, x, n=name: getattr(x, n)(), [S(3, 4, fill=TIES)],
                   grad_fn=f"{name.capitalize()}Backward1", check_grad=False),
            OpInfo(f"{name}_dim_ties", lambda T, x, n=name: getattr(x, n)(1), [S(3, 4, fill=TIES)],
                   grad_fn=f"{name.capitalize()}Backward0", check_grad=False),
            OpInfo(f"{name}_nan", lambda T, x, n=name: getattr(x, n)(), [S(4, fill=[0.1, NAN, 0.3, NAN])],
                   grad_fn=f"{name.capitalize()}Backward1", check_grad=False),
            OpInfo(f"{name}_dim_nan", lambda T, x, n=name: getattr(x, n)(1), [S(2, 3, fill=[[0.1, NAN, 0.3],
                                                                                              [0.2, 0.4, 0.6]])],
                   grad_fn=f"{name.capitalize()}Backward0", check_grad=False),
            OpInfo(f"{name}_binary", lambda T, x, y, n=name: getattr(T, n)(x, y), [S(2, 3), S(3)],
                   grad_fn=f"{pointwise}Backward0"),
            OpInfo(f"{name}_int", lambda T, x, n=name: getattr(x, n)(1), [I(2, 3, high=5)], check_grad=False),
        ]
    ops += [
        OpInfo("aminmax", lambda T, x: T.aminmax(x), [S(2, 3)], grad_fn="AminmaxBackward0"),
        OpInfo("aminmax_dim", lambda T, x: x.aminmax(dim=1), [S(2, 3)], grad_fn="AminmaxBackward0"),
        OpInfo("aminmax_dim_keepdim", lambda T, x: T.aminmax(x, dim=-1, keepdim=True), [S(2, 3, 4)],
               grad_fn="AminmaxBackward0"),
        OpInfo("aminmax_max_only", lambda T, x: x.aminmax().max, [S(5)], grad_fn="AminmaxBackward0"),
        OpInfo("aminmax_keepdim", lambda T, x: x.aminmax(keepdim=True), [S(2, 3)], grad_fn="AminmaxBackward0"),
        OpInfo("aminmax_ties", lambda T, x: x.aminmax(dim=1), [S(3, 4, fill=TIES)], grad_fn="AminmaxBackward0",
               check_grad=False),
        OpInfo("median", lambda T, x: T.median(x), [S(5)], grad_fn="MedianBackward0"),
        OpInfo("median_even", lambda T, x: x.median(), [S(2, 3)], grad_fn="MedianBackward0"),
        OpInfo("median_dim", lambda T, x: x.median(1), [S(3, 4)], grad_fn="MedianBackward1"),
        OpInfo("median_dim_odd_keepdim", lambda T, x: T.median(x, 0, keepdim=True), [S(5, 2)],
               grad_fn="MedianBackward1"),
        OpInfo("median_0d", lambda T, x: x.median(), [S()], grad_fn="MedianBackward0"),
        OpInfo("median_nan", lambda T, x: x.median(), [S(4, fill=[0.1, NAN, 0.3, 0.2])], grad_fn="MedianBackward0",
               check_grad=False),
        OpInfo("median_dim_nan", lambda T, x: x.median(1), [S(2, 3, fill=[[0.1, NAN, 0.3], [0.2, 0.4, 0.6]])],
               grad_fn="MedianBackward1", check_grad=False),
        OpInfo("median_ties", lambda T, x: x.median(), [S(5, fill=[0.3, 0.1, 0.3, 0.1, 0.3])],
               grad_fn="MedianBackward0", check_grad=False),
        OpInfo("nanmedian", lambda T, x: T.nanmedian(x), [S(2, 3)], grad_fn="NanmedianBackward0"),
        OpInfo("nanmedian_with_nan", lambda T, x: x.nanmedian(), [S(5, fill=[0.1, NAN, 0.3, -0.2, NAN])],
               grad_fn="NanmedianBackward0"),
        OpInfo("nanmedian_all_nan", lambda T, x: x.nanmedian(), [S(2, fill=[NAN, NAN])], grad_fn="NanmedianBackward0",
               check_grad=False),
        OpInfo("nanmedian_dim", lambda T, x: x.nanmedian(1),
               [S(2, 4, fill=[[0.1, NAN, 0.3, -0.2], [0.5, 0.4, NAN, NAN]])],
               grad_fn="NanmedianBackward1"),
        OpInfo("nanmedian_dim_keepdim", lambda T, x: T.nanmedian(x, -2, True), [S(3, 4)], grad_fn="NanmedianBackward1"),
        OpInfo("mode", lambda T, x: T.mode(x), [S(3, 4)], grad_fn="ModeBackward0"),
        OpInfo("mode_dim_keepdim", lambda T, x: x.mode(0, keepdim=True), [S(3, 4)], grad_fn="ModeBackward0"),
        OpInfo("mode_repeats", lambda T, x: x.mode(1), [S(3, 6, fill=[[1.0, 2.0, 2.0, 3.0, 3.0, 0.0],
                                                                     [5.0, 1.0, 4.0, 1.0, 0.5, 0.25],
                                                                     [0.5, 0.5, 0.5, 0.7, 0.7, 0.7]])],
               grad_fn="ModeBackward0", check_grad=False),
        OpInfo("mode_0d", lambda T, x: x.mode(), [S()], grad_fn="ModeBackward0"),
        OpInfo("kthvalue", lambda T, x: T.kthvalue(x, 2), [S(3, 4)], grad_fn="KthvalueBackward0"),
        OpInfo("kthvalue_dim_keepdim", lambda T, x: x.kthvalue(3, 0, True), [S(3, 4)], grad_fn="KthvalueBackward0"),
        OpInfo("kthvalue_nan", lambda T, x: x.kthvalue(3), [S(3, fill=[0.1, NAN, 0.3])], grad_fn="KthvalueBackward0",
               check_grad=False),
        OpInfo("kthvalue_0d", lambda T, x: x.kthvalue(1), [S()], grad_fn="KthvalueBackward0"),
        OpInfo("argmax", lambda T, x: T.argmax(x), [S(3, 4)], check_grad=False),
        OpInfo("argmax_dim", lambda T, x: x.argmax(1), [S(3, 4)], check_grad=False),
        OpInfo("argmax_keepdim", lambda T, x: x.argmax(keepdim=True), [S(3, 4)], check_grad=False),
        OpInfo("argmax_ties", lambda T, x: x.argmax(-1, True), [S(3, 4, fill=TIES)], check_grad=False),
        OpInfo("argmin", lambda T, x: x.argmin(), [S(3, 4)], check_grad=False),
        OpInfo("argmin_dim_ties", lambda T, x: T.argmin(x, dim=1), [S(3, 4, fill=TIES)], check_grad=False),
    ]
    return ops


def _logical_ops():
    mixed = [[0.0, 1.0, 2.0], [0.0, 0.0, -1.0]]
    return [
        OpInfo("all", lambda T, x: T.all(x), [S(2, 3, fill=mixed)], check_grad=False),
        OpInfo("all_dim", lambda T, x: x.all(1), [S(2, 3, fill=mixed)], check_grad=False),
        OpInfo("all_dims_keepdim", lambda T, x: x.all((0, 1), keepdim=True), [B(2, 3)], check_grad=False),
        OpInfo("all_uint8", lambda T, x: x.to(T.uint8).all(), [I(2, 3, high=3)], check_grad=False),
        OpInfo("any", lambda T, x: x.any(), [S(2, 3, fill=mixed)], check_grad=False),
        OpInfo("any_dim", lambda T, x: T.any(x, 0, keepdim=True), [S(2, 3, fill=mixed)], check_grad=False),
        OpInfo("any_int_dim", lambda T, x: x.any(-1), [I(2, 3, high=2)], check_grad=False),
        OpInfo("count_nonzero", lambda T, x: T.count_nonzero(x), [S(2, 3, fill=mixed)], check_grad=False),
        OpInfo("count_nonzero_dim", lambda T, x: x.count_nonzero(dim=1), [S(2, 3, fill=mixed)], check_grad=False),
        OpInfo("count_nonzero_dims", lambda T, x: x.count_nonzero((0, 1)), [I(2, 3, high=2)], check_grad=False),
    ]


def _var_std_ops():
    ops = []
    for name in ("var", "std"):
        node = f"{name.capitalize()}Backward0"
        ops += [
            OpInfo(name, lambda T, x, n=name: getattr(T, n)(x), [S(2, 3)], grad_fn=node),
            OpInfo(f"{name}_dim", lambda T, x, n=name: getattr(x, n)(1), [S(3, 4)], grad_fn=node),
            OpInfo(f"{name}_dims_keepdim", lambda T, x, n=name: getattr(x, n)((0, 2), keepdim=True), [S(2, 3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_unbiased_positional", lambda T, x, n=name: getattr(x, n)(False), [S(5)], grad_fn=node),
            OpInfo(f"{name}_dim_unbiased_keepdim", lambda T, x, n=name: getattr(T, n)(x, -1, False, True), [S(3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_unbiased_kw", lambda T, x, n=name: getattr(x, n)(0, unbiased=True), [S(3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_correction0", lambda T, x, n=name: getattr(x, n)(dim=1, correction=0), [S(3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_correction2", lambda T, x, n=name: getattr(T, n)(x, correction=2), [S(3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_correction_float", lambda T, x, n=name: getattr(x, n)(1, correction=0.5), [S(3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_dim_none_keepdim", lambda T, x, n=name: getattr(x, n)(None, keepdim=True), [S(3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_complex", lambda T, x, n=name: getattr(x, n)(1), [S(2, 3, dtype="complex128")],
                   grad_fn=node, check_grad=False),
        ]
    for name in ("var_mean", "std_mean"):
        node = "".join(p.capitalize() for p in name.split("_")) + "Backward0"
        ops += [
            OpInfo(name, lambda T, x, n=name: getattr(T, n)(x), [S(2, 3)], grad_fn=node),
            OpInfo(f"{name}_dim", lambda T, x, n=name: getattr(T, n)(x, 1), [S(3, 4)], grad_fn=node),
            OpInfo(f"{name}_dims_correction_keepdim",
                   lambda T, x, n=name: getattr(T, n)(x, (0, -1), correction=0, keepdim=True), [S(2, 3, 4)],
                   grad_fn=node),
            OpInfo(f"{name}_unbiased", lambda T, x, n=name: getattr(T, n)(x, 0, False), [S(3, 4)], grad_fn=node),
            OpInfo(f"{name}_mean_only", lambda T, x, n=name: getattr(T, n)(x, 1)[1], [S(3, 4)], grad_fn=node),
            OpInfo(f"{name}_spread_only", lambda T, x, n=name: getattr(T, n)(x, 1)[0], [S(3, 4)], grad_fn=node),
        ]
    return ops


def _norm_ops():
    ops = [
        OpInfo("logsumexp", lambda T, x: T.logsumexp(x, 1), [S(3, 4)], grad_fn="LogsumexpBackward0"),
        OpInfo("logsumexp_dims_keepdim", lambda T, x: x.logsumexp((0, -1), keepdim=True), [S(2, 3, 4)],
               grad_fn="LogsumexpBackward0"),
        OpInfo("logsumexp_neg_dim", lambda T, x: x.logsumexp(-2), [S(2, 3, 4, low=-30, high=30)],
               grad_fn="LogsumexpBackward0"),
        OpInfo("logsumexp_large", lambda T, x: x.logsumexp(0), [S(3, fill=[1000.0, 999.0, -5.0])],
               grad_fn="LogsumexpBackward0"),
        OpInfo("logsumexp_inf", lambda T, x: x.logsumexp(1), [S(2, 2, fill=[[-INF, -INF], [INF, 0.5]])],
               grad_fn="LogsumexpBackward0", check_grad=False),
        OpInfo("logsumexp_int", lambda T, x: x.logsumexp(1), [I(2, 3, high=5)], check_grad=False),
        OpInfo("norm", lambda T, x: x.norm(), [S(2, 3)], grad_fn="LinalgVectorNormBackward0"),
        OpInfo("norm_fn_p_dim", lambda T, x: T.norm(x, 2, 1), [S(3, 4)], grad_fn="LinalgVectorNormBackward0"),
        OpInfo("norm_dim_kw_keepdim", lambda T, x: x.norm(dim=-1, keepdim=True), [S(3, 4)],
               grad_fn="LinalgVectorNormBackward0"),
        OpInfo("norm_fro", lambda T, x: x.norm("fro"), [S(3, 4)], grad_fn="LinalgVectorNormBackward0"),
        OpInfo("norm_fro_dims", lambda T, x: T.norm(x, "fro", (0, 2)), [S(2, 3, 4)],
               grad_fn="LinalgVectorNormBackward0"),
        OpInfo("norm_fro_dim_int", lambda T, x: x.norm("fro", 1), [S(2, 3)], grad_fn="LinalgVectorNormBackward0"),
        OpInfo("norm_dtype", lambda T, x: x.norm(dtype=T.float64), [S(2, 3, dtype="float32")],
               grad_fn="LinalgVectorNormBackward0", check_grad=False, atol=1e-6, rtol=1e-6),
        OpInfo("norm_zero_slice", lambda T, x: x.norm(dim=1), [S(2, 3, fill=[[0.0, 0.0, 0.0], [0.3, -0.4, 0.5]])],
               grad_fn="LinalgVectorNormBackward0", check_grad=False),
        OpInfo("norm_complex", lambda T, x: x.norm(dim=1), [S(2, 3, dtype="complex128")],
               grad_fn="LinalgVectorNormBackward0", check_grad=False),
    ]
    for label, p in (("p1", 1), ("pinf", INF), ("pneginf", -INF), ("p0", 0), ("p3", 3), ("p1_5", 1.5),
                     ("p0_5", 0.5), ("pneg1", -1)):
        ops += [
            OpInfo(f"norm_{label}", lambda T, x, p=p: x.norm(p), [S(2, 3)], grad_fn="LinalgVectorNormBackward0"),
            OpInfo(f"norm_{label}_dim_keepdim", lambda T, x, p=p: T.norm(x, p, 0, True), [S(3, 4)],
                   grad_fn="LinalgVectorNormBackward0"),
        ]
    ops += [
        OpInfo("norm_pinf_ties", lambda T, x: x.norm(INF, 1), [S(3, 4, fill=TIES)],
               grad_fn="LinalgVectorNormBackward0", check_grad=False),
        OpInfo("norm_p1_zero", lambda T, x: x.norm(1), [S(3, fill=[0.0, 0.5, -0.2])],
               grad_fn="LinalgVectorNormBackward0", check_grad=False),
        OpInfo("norm_p3_zero_slice", lambda T, x: x.norm(3, 1), [S(2, 2, fill=[[0.0, 0.0], [0.5, -0.2]])],
               grad_fn="LinalgVectorNormBackward0", check_grad=False),
        OpInfo("norm_p0_5_zero", lambda T, x: x.norm(0.5), [S(3, fill=[0.0, 0.5, -0.2])],
               grad_fn="LinalgVectorNormBackward0", check_grad=False),
        OpInfo("norm_except_dim_all", lambda T, x: T.norm_except_dim(x, 2, -1), [S(2, 3)], grad_fn="NormBackward0"),
        OpInfo("norm_except_dim_all_p3", lambda T, x: T.norm_except_dim(x, 3, -1), [S(2, 3)], grad_fn="NormBackward0"),
        OpInfo("norm_except_dim_0", lambda T, x: T.norm_except_dim(x), [S(3, 2, 2)], grad_fn="ViewBackward0"),
        OpInfo("norm_except_dim_last_p1", lambda T, x: T.norm_except_dim(x, 1, 2), [S(3, 2, 2)],
               grad_fn="ViewBackward0"),
        OpInfo("norm_except_dim_middle", lambda T, x: T.norm_except_dim(x, 2, 1), [S(2, 3, 2)],
               grad_fn="TransposeBackward0"),
    ]
    return ops


def _cumulative_ops():
    zeros = [[0.5, 0.0, -0.7, 0.4, 0.3], [0.0, 0.3, 0.0, 0.9, -0.4], [0.2, -0.6, 0.8, 0.5, 0.0]]
    ops = [
        OpInfo("cumsum", lambda T, x: T.cumsum(x, 1), [S(3, 4)], grad_fn="CumsumBackward0"),
        OpInfo("cumsum_neg_dim", lambda T, x: x.cumsum(-3), [S(3, 2, 2)], grad_fn="CumsumBackward0"),
        OpInfo("cumsum_0d", lambda T, x: x.cumsum(0), [S()], grad_fn="CumsumBackward0"),
        OpInfo("cumsum_dtype", lambda T, x: x.cumsum(0, dtype=T.float64), [S(4, dtype="float32")],
               grad_fn="CumsumBackward0", check_grad=False, atol=1e-6, rtol=1e-6),
        OpInfo("cumsum_int", lambda T, x: x.cumsum(0), [I(2, 3, high=5, dtype="int32")], check_grad=False),
        OpInfo("cumsum_inplace", lambda T, x: x.clone().cumsum_(1), [S(2, 3)], grad_fn="CumsumBackward0"),
        OpInfo("cumprod", lambda T, x: T.cumprod(x, 1), [S(3, 4)], grad_fn="CumprodBackward0"),
        OpInfo("cumprod_neg_dim", lambda T, x: x.cumprod(-2), [S(3, 2, 2)], grad_fn="CumprodBackward0"),
        OpInfo("cumprod_0d", lambda T, x: x.cumprod(0), [S()], grad_fn="CumprodBackward0"),
        OpInfo("cumprod_zeros", lambda T, x: x.cumprod(1), [S(3, 5, fill=zeros)], grad_fn="CumprodBackward0"),
        OpInfo("cumprod_zeros_dim0", lambda T, x: x.cumprod(0), [S(3, 5, fill=zeros)], grad_fn="CumprodBackward0"),
        OpInfo("cumprod_all_zeros", lambda T, x: x.cumprod(0), [S(3, fill=[0.0, 0.0, 0.0])],
               grad_fn="CumprodBackward0"),
        OpInfo("cumprod_dtype", lambda T, x: x.cumprod(0, dtype=T.float64), [S(4, dtype="float32")],
               grad_fn="CumprodBackward0", check_grad=False, atol=1e-6, rtol=1e-6),
        OpInfo("cumprod_inplace", lambda T, x: x.clone().cumprod_(0), [S(4, 2)], grad_fn="CumprodBackward0"),
        OpInfo("logcumsumexp", lambda T, x: T.logcumsumexp(x, 1), [S(3, 4)], grad_fn="LogcumsumexpBackward0"),
        OpInfo("logcumsumexp_neg_dim", lambda T, x: x.logcumsumexp(-2), [S(3, 2, 2, low=-30, high=30)],
               grad_fn="LogcumsumexpBackward0"),
        OpInfo("logcumsumexp_large", lambda T, x: x.logcumsumexp(0), [S(4, fill=[1000.0, 999.0, -5.0, 1001.0])],
               grad_fn="LogcumsumexpBackward0"),
        OpInfo("logcumsumexp_0d", lambda T, x: x.logcumsumexp(0), [S()], grad_fn="LogcumsumexpBackward0"),
        OpInfo("logcumsumexp_neg_inf", lambda T, x: x.logcumsumexp(0), [S(3, fill=[-INF, 0.5, -INF])],
               grad_fn="LogcumsumexpBackward0", check_grad=False),
    ]
    for name in ("cummax", "cummin"):
        node = f"{name.capitalize()}Backward0"
        ops += [
            OpInfo(name, lambda T, x, n=name: getattr(T, n)(x, 1), [S(3, 4)], grad_fn=node),
            OpInfo(f"{name}_neg_dim", lambda T, x, n=name: getattr(x, n)(-2).values, [S(4, 2, 3)], grad_fn=node),
            OpInfo(f"{name}_0d", lambda T, x, n=name: getattr(x, n)(0), [S()], grad_fn=node),
            OpInfo(f"{name}_ties", lambda T, x, n=name: getattr(x, n)(1), [S(3, 4, fill=TIES)], grad_fn=node,
                   check_grad=False),
            OpInfo(f"{name}_nan", lambda T, x, n=name: getattr(x, n)(0), [S(5, fill=[0.1, NAN, 0.3, NAN, -0.2])],
                   grad_fn=node, check_grad=False),
            OpInfo(f"{name}_int", lambda T, x, n=name: getattr(x, n)(0), [I(5, high=4)], check_grad=False),
        ]
    return ops


OPS = _sum_ops() + _mean_prod_ops() + _max_min_ops() + _logical_ops() + _var_std_ops() + _norm_ops() \
    + _cumulative_ops()


_NO_GRAD = dict(check_grad=False, torch_parity=False)

UNIQUE = [
    # unique (no derivative: node names only)
    OpInfo("_unique", lambda T, x: T._unique(x, return_inverse=True), [S(5)], grad_fn="UniqueBackward0", **_NO_GRAD),
    OpInfo("unique", lambda T, x: T.unique(x), [S(5)], grad_fn="Unique2Backward0", **_NO_GRAD),
    OpInfo("unique_dim", lambda T, x: x.unique(dim=1, return_counts=True), [S(2, 3)],
           grad_fn="UniqueDimBackward0", **_NO_GRAD),
    OpInfo("unique_consecutive", lambda T, x: T.unique_consecutive(x), [S(4)],
           grad_fn="UniqueConsecutiveBackward0", **_NO_GRAD),
    OpInfo("unique_consecutive_dim", lambda T, x: x.unique_consecutive(dim=0), [S(2, 3)],
           grad_fn="UniqueConsecutiveBackward0", **_NO_GRAD),
    OpInfo("unique_dim_consecutive", lambda T, x: T.ops.aten.unique_dim_consecutive(x, 0), [S(2, 3)],
           grad_fn="UniqueDimConsecutiveBackward0", **_NO_GRAD),
]

OPS += UNIQUE

_NO_GRAD_OP = dict(check_grad=False, gradgrad=False)
# composites: differences, integrals, covariance, quantiles
COMPOSITES = [
    OpInfo("mean_0d_dim", lambda T, x: T.mean(x, 0, keepdim=True), [S()], grad_fn="MeanBackward1"),
    OpInfo("diff", lambda T, x: T.diff(x), [S(3, 4)], grad_fn="SubBackward0"),
    OpInfo("gradient", lambda T, x: T.gradient(x, spacing=0.5), [S(4, 3)], grad_fn="CatBackward0"),
    OpInfo("gradient_edge2_dims", lambda T, x: T.gradient(x, spacing=[2.0, 1.5], dim=(0, -1), edge_order=2),
           [S(3, 2, 4)], grad_fn="CatBackward0"),
    OpInfo("gradient_coordinates", lambda T, x: T.gradient(x, spacing=(T.tensor([0.0, 0.5, 2.0, 2.5]),), dim=1),
           [S(2, 4)], grad_fn="CatBackward0"),
    OpInfo("diff_n2_prepend", lambda T, x, p: x.diff(2, 0, prepend=p), [S(3, 4), S(1, 4)], grad_fn="SubBackward0"),
    # torch's trapezoid/cumulative_trapezoid nodes differ (MulBackward1, DivBackward1): same values
    OpInfo("trapezoid", lambda T, y: T.trapezoid(y, dx=0.5), [S(3, 4)], grad_fn="MulBackward0", torch_parity=False),
    OpInfo("trapezoid_x", lambda T, y, x: T.trapezoid(y, x, dim=0), [S(3, 4), S(3)], grad_fn="DivBackward0",
           torch_parity=False),
    OpInfo("trapz", lambda T, y: T.trapz(y, dim=0), [S(3, 4)], grad_fn="MulBackward0", torch_parity=False),
    OpInfo("cumulative_trapezoid", lambda T, y: T.cumulative_trapezoid(y), [S(3, 4)], grad_fn="CumsumBackward0"),
    OpInfo("cov", lambda T, x: T.cov(x), [S(3, 5)], grad_fn="SqueezeBackward0"),
    OpInfo("cov_weights", lambda T, x, a: T.cov(x, fweights=T.tensor([1, 2, 1, 3]), aweights=a),
           [S(2, 4), S(4, low=0.5, high=1.0)], grad_fn="SqueezeBackward0"),
    OpInfo("corrcoef", lambda T, x: T.corrcoef(x), [S(3, 5)], grad_fn="ClampBackward1"),
    # torch's quantile graph ends in SqueezeBackward4 (in-place squeeze_); same values and gradients
    OpInfo("quantile", lambda T, x: T.quantile(x, 0.3, dim=1), [S(3, 5)], grad_fn="SqueezeBackward1",
           torch_parity=False),
    OpInfo("quantile_q_tensor", lambda T, x: x.quantile(T.tensor([0.2, 0.9], dtype=T.float64), keepdim=True),
           [S(3, 5)], grad_fn="ViewBackward0", torch_parity=False),
    OpInfo("quantile_q_grad", lambda T, x, q: T.quantile(x, q, dim=0), [S(5, 2), S(3, low=0.0, high=1.0)],
           grad_fn="ViewBackward0", torch_parity=False),
    # n=0: torch copies the input into a new tensor (CopyBackwards), ours is clone() (CloneBackward0)
    OpInfo("diff_n0", lambda T, x, a: T.diff(x, 0, append=a), [S(2, 3), S(2, 1)], grad_fn="CloneBackward0",
           torch_parity=False),
    OpInfo("nanquantile_midpoint", lambda T, x: T.nanquantile(x, 0.5, 0, interpolation="midpoint"), [S(4, 3)],
           grad_fn="SqueezeBackward1", torch_parity=False),
    OpInfo("histc", lambda T, x: T.histc(x, bins=4, min=-1, max=1), [S(10, requires_grad=False)], **_NO_GRAD_OP),
    OpInfo("bincount", lambda T, x: T.bincount(x, minlength=6), [I(10, high=4)], **_NO_GRAD_OP),
    OpInfo("bincount_weights", lambda T, x, w: T.bincount(x, w), [I(10, high=4), S(10, requires_grad=False)],
           **_NO_GRAD_OP),
]

OPS += COMPOSITES
