"""Registry entries for the matmul family (see op_db/__init__.py for the format)."""
from . import I, OpInfo, S

C = "complex128"


def _matmul_cases():
    """Every path of matmul's dispatch: (name, shape a, shape b, a requires grad, b requires grad, top node)."""
    return [
        ("1d_1d", (3,), (3,), True, True, "DotBackward0"),
        ("2d_1d", (2, 3), (3,), True, True, "MvBackward0"),
        ("1d_2d", (3,), (3, 4), True, True, "SqueezeBackward4"),
        ("2d_2d", (2, 3), (3, 4), True, True, "MmBackward0"),
        ("3d_2d", (5, 2, 3), (3, 4), True, True, "UnsafeViewBackward0"),
        ("3d_1d", (5, 2, 3), (3,), True, True, "UnsafeViewBackward0"),
        ("1d_3d", (3,), (5, 3, 4), True, True, "UnsafeViewBackward0"),
        ("2d_3d", (2, 3), (5, 3, 4), True, True, "CloneBackward0"),
        ("2d_3d_const_a", (2, 3), (5, 3, 4), False, True, "UnsafeViewBackward0"),
        ("3d_3d", (5, 2, 3), (5, 3, 4), True, True, "UnsafeViewBackward0"),
        ("3d_3d_batch1_a", (1, 2, 3), (5, 3, 4), True, True, "CloneBackward0"),
        ("3d_3d_batch1_b", (5, 2, 3), (1, 3, 4), True, True, "UnsafeViewBackward0"),
        ("3d_3d_batch1_const_b", (5, 2, 3), (1, 3, 4), True, False, "UnsafeViewBackward0"),
        ("4d_3d_broadcast", (2, 1, 2, 3), (5, 3, 4), True, True, "UnsafeViewBackward0"),
        ("4d_4d", (2, 5, 2, 3), (2, 5, 3, 4), True, True, "UnsafeViewBackward0"),
        ("4d_1d", (2, 5, 2, 3), (3,), True, True, "UnsafeViewBackward0"),
        ("1d_4d", (3,), (2, 5, 3, 4), True, True, "UnsafeViewBackward0"),
        ("1d_3d_const_a", (3,), (1, 3, 4), False, True, "UnsafeViewBackward0"),
    ]


def _matmul_ops():
    ops = []
    for name, a, b, ga, gb, top in _matmul_cases():
        ops.append(OpInfo(f"matmul_{name}", lambda T, x, y: T.matmul(x, y),
                          [S(*a, requires_grad=ga), S(*b, requires_grad=gb)], grad_fn=top))
    ops.append(OpInfo("matmul_operator", lambda T, x, y: x @ y, [S(5, 2, 3), S(3, 4)], grad_fn="UnsafeViewBackward0"))
    ops.append(OpInfo("matmul_method", lambda T, x, y: x.matmul(y), [S(2, 3), S(3)], grad_fn="MvBackward0"))
    ops.append(OpInfo("matmul_noncontiguous_3d_1d", lambda T, x, y: T.matmul(x.transpose(0, 1), y),
                      [S(5, 2, 2, 3), S(3, requires_grad=False)], grad_fn="UnsafeViewBackward0"))
    ops.append(OpInfo("matmul_complex", lambda T, x, y: T.matmul(x, y), [S(2, 3, dtype=C), S(3, 2, dtype=C)],
                      grad_fn="MmBackward0", check_grad=False))
    return ops


def _einsum_ops():
    """einsum is composed of diagonal/permute/sum/bmm: the top node is torch's for each pattern."""
    cases = [("dot", "i,i->", [S(3), S(3)], "ViewBackward0"),
             ("matmul", "ij,jk->ik", [S(2, 3), S(3, 4)], "ViewBackward0"),
             ("implicit", "ij,jk", [S(2, 3), S(3, 4)], "ViewBackward0"),
             ("batched", "bij,bjk->bik", [S(2, 2, 3), S(2, 3, 2)], "ViewBackward0"),
             ("attention", "bhqd,bhkd->bhqk", [S(1, 2, 3, 2), S(1, 2, 2, 2)], "ViewBackward0"),
             ("transposed_out", "ji,jk->ki", [S(3, 2), S(3, 4)], "ViewBackward0"),
             ("chain", "ij,jk,kl->il", [S(2, 3), S(3, 2), S(2, 2)], "ViewBackward0"),
             ("ellipsis_broadcast", "...i,...i->...", [S(2, 1, 3), S(4, 3)], "ViewBackward0"),
             ("size1_sum", "ij,j->i", [S(2, 3), S(1)], "ViewBackward0"),
             ("sum_alone", "ab,cd->", [S(2, 3), S(2, 2)], "ViewBackward0"),
             ("outer", "i,j->ij", [S(3), S(2)], "MulBackward0"),
             ("hadamard", "ij,ij->ij", [S(2, 3), S(2, 3)], "MulBackward0"),
             ("diagonal", "ii->i", [S(3, 3)], "PermuteBackward0"),
             ("trace", "ii->", [S(3, 3)], "SumBackward1"),
             ("transpose", "ij->ji", [S(2, 3)], "PermuteBackward0"),
             ("row_sum", "ij->i", [S(2, 3)], "SumBackward1"),
             ("repeated_and_batch", "iij->j", [S(2, 2, 3)], "SumBackward1")]
    ops = [OpInfo(f"einsum_{name}", lambda T, *xs, eq=eq: T.einsum(eq, *xs), inputs, grad_fn=fn)
           for name, eq, inputs, fn in cases]
    ops.append(OpInfo("einsum_same_operand_twice", lambda T, x: T.einsum("ab,bc->a", x, x), [S(3, 3)],
                      grad_fn="ViewBackward0"))
    ops.append(OpInfo("einsum_sublist", lambda T, x, y: T.einsum(x, [0, 1], y, [1, 2], [0, 2]),
                      [S(2, 3), S(3, 2)], grad_fn="ViewBackward0"))
    ops.append(OpInfo("einsum_list_of_operands", lambda T, x, y: T.einsum("ij,jk->ik", [x, y]),
                      [S(2, 3), S(3, 2)], grad_fn="ViewBackward0"))
    return ops


OPS = [
    OpInfo("mm", lambda T, x, y: T.mm(x, y), [S(2, 3), S(3, 4)], grad_fn="MmBackward0"),
    OpInfo("mm_method", lambda T, x, y: x.mm(y), [S(4, 1), S(1, 3)], grad_fn="MmBackward0"),
    OpInfo("mm_const_mat2", lambda T, x, y: T.mm(x, y), [S(2, 3), S(3, 2, requires_grad=False)],
           grad_fn="MmBackward0"),
    OpInfo("mm_complex", lambda T, x, y: T.mm(x, y), [S(2, 3, dtype=C), S(3, 2, dtype=C)], grad_fn="MmBackward0",
           check_grad=False),
    OpInfo("mv", lambda T, x, y: T.mv(x, y), [S(2, 3), S(3)], grad_fn="MvBackward0"),
    OpInfo("mv_complex", lambda T, x, y: x.mv(y), [S(2, 3, dtype=C), S(3, dtype=C)], grad_fn="MvBackward0",
           check_grad=False),
    OpInfo("dot", lambda T, x, y: T.dot(x, y), [S(4), S(4)], grad_fn="DotBackward0"),
    OpInfo("dot_method", lambda T, x, y: x.dot(y), [S(3), S(3, requires_grad=False)], grad_fn="DotBackward0"),
    OpInfo("dot_complex", lambda T, x, y: T.dot(x, y), [S(3, dtype=C), S(3, dtype=C)], grad_fn="DotBackward0",
           check_grad=False),
    OpInfo("vdot", lambda T, x, y: T.vdot(x, y), [S(4), S(4)], grad_fn="VdotBackward0"),
    OpInfo("vdot_complex", lambda T, x, y: T.vdot(x, y), [S(3, dtype=C), S(3, dtype=C)], grad_fn="VdotBackward0",
           check_grad=False),
    OpInfo("bmm", lambda T, x, y: T.bmm(x, y), [S(2, 3, 4), S(2, 4, 2)], grad_fn="BmmBackward0"),
    OpInfo("bmm_method", lambda T, x, y: x.bmm(y), [S(1, 2, 2), S(1, 2, 3)], grad_fn="BmmBackward0"),
    OpInfo("addmm", lambda T, b, x, y: T.addmm(b, x, y), [S(2, 4), S(2, 3), S(3, 4)], grad_fn="AddmmBackward0"),
    OpInfo("addmm_broadcast_bias", lambda T, b, x, y: T.addmm(b, x, y), [S(4), S(2, 3), S(3, 4)],
           grad_fn="AddmmBackward0"),
    OpInfo("addmm_scalar_bias", lambda T, b, x, y: T.addmm(b, x, y), [S(), S(2, 3), S(3, 4)],
           grad_fn="AddmmBackward0"),
    OpInfo("addmm_beta_alpha", lambda T, b, x, y: T.addmm(b, x, y, beta=0.5, alpha=-2.0),
           [S(1, 4), S(2, 3), S(3, 4)], grad_fn="AddmmBackward0"),
    OpInfo("addmm_beta0", lambda T, b, x, y: T.addmm(b, x, y, beta=0), [S(2, 4), S(2, 3), S(3, 4)],
           grad_fn="AddmmBackward0"),
    OpInfo("addmm_method", lambda T, b, x, y: b.addmm(x, y, alpha=3), [S(2, 4), S(2, 3), S(3, 4)],
           grad_fn="AddmmBackward0"),
    OpInfo("addmm_inplace", lambda T, b, x, y: (b * 1).addmm_(x, y, beta=2), [S(2, 4), S(2, 3), S(3, 4)],
           grad_fn="AddmmBackward0"),
    OpInfo("addmv", lambda T, b, x, y: T.addmv(b, x, y), [S(2), S(2, 3), S(3)], grad_fn="AddmvBackward0"),
    OpInfo("addmv_beta_alpha", lambda T, b, x, y: T.addmv(b, x, y, beta=-1, alpha=0.5), [S(1), S(2, 3), S(3)],
           grad_fn="AddmvBackward0"),
    OpInfo("addr", lambda T, b, x, y: T.addr(b, x, y), [S(2, 3), S(2), S(3)], grad_fn="AddrBackward0"),
    OpInfo("addr_beta_alpha", lambda T, b, x, y: b.addr(x, y, beta=2, alpha=0.5), [S(3), S(2), S(3)],
           grad_fn="AddrBackward0"),
    OpInfo("baddbmm", lambda T, b, x, y: T.baddbmm(b, x, y), [S(2, 3, 4), S(2, 3, 2), S(2, 2, 4)],
           grad_fn="BaddbmmBackward0"),
    OpInfo("baddbmm_broadcast", lambda T, b, x, y: T.baddbmm(b, x, y, beta=0.5, alpha=2), [S(3, 4), S(2, 3, 2),
           S(2, 2, 4)], grad_fn="BaddbmmBackward0"),
    OpInfo("addbmm", lambda T, b, x, y: T.addbmm(b, x, y), [S(3, 4), S(2, 3, 2), S(2, 2, 4)],
           grad_fn="AddbmmBackward0"),
    OpInfo("addbmm_beta_alpha", lambda T, b, x, y: T.addbmm(b, x, y, beta=2, alpha=-1), [S(4), S(2, 3, 2),
           S(2, 2, 4)], grad_fn="AddbmmBackward0"),
    OpInfo("outer", lambda T, x, y: T.outer(x, y), [S(3), S(4)], grad_fn="MulBackward0"),
    OpInfo("ger", lambda T, x, y: T.ger(x, y), [S(3), S(2)], grad_fn="MulBackward0"),
    OpInfo("outer_int_vec", lambda T, x, y: x.outer(y), [S(3), I(2, high=5)], grad_fn="MulBackward0"),
    OpInfo("inner_1d", lambda T, x, y: T.inner(x, y), [S(3), S(3)], grad_fn="ViewBackward0"),
    OpInfo("inner_1d_2d", lambda T, x, y: T.inner(x, y), [S(3), S(4, 3)], grad_fn="ViewBackward0"),
    OpInfo("inner_3d_2d", lambda T, x, y: x.inner(y), [S(2, 4, 3), S(5, 3)], grad_fn="ViewBackward0"),
    OpInfo("inner_scalar", lambda T, x, y: T.inner(x, y), [S(), S(3)], grad_fn="MulBackward0"),
] + _matmul_ops() + _einsum_ops()


def F(T):
    return T.nn.functional


LINEAR = [
    OpInfo("linear", lambda T, x, w, b: F(T).linear(x, w, b), [S(4, 3), S(5, 3), S(5)], grad_fn="AddmmBackward0"),
    OpInfo("linear_no_bias", lambda T, x, w: F(T).linear(x, w), [S(4, 3), S(5, 3)], grad_fn="MmBackward0"),
    OpInfo("linear_1d", lambda T, x, w, b: F(T).linear(x, w, b), [S(3), S(5, 3), S(5)], grad_fn="ViewBackward0"),
    OpInfo("linear_1d_no_bias", lambda T, x, w: F(T).linear(x, w), [S(3), S(5, 3)], grad_fn="SqueezeBackward4"),
    OpInfo("linear_3d", lambda T, x, w, b: F(T).linear(x, w, b), [S(2, 4, 3), S(5, 3), S(5)], grad_fn="ViewBackward0"),
    OpInfo("linear_3d_no_bias", lambda T, x, w: F(T).linear(x, w), [S(2, 4, 3), S(5, 3)],
           grad_fn="UnsafeViewBackward0"),
    OpInfo("linear_3d_noncontiguous", lambda T, x, w, b: F(T).linear(x.transpose(0, 1), w, b),
           [S(4, 2, 3), S(5, 3), S(5)], grad_fn="AddBackward0"),
    OpInfo("linear_4d", lambda T, x, w, b: F(T).linear(x, w, b), [S(2, 2, 1, 3), S(5, 3), S(5)],
           grad_fn="ViewBackward0"),
    OpInfo("linear_bias_2d", lambda T, x, w, b: F(T).linear(x, w, b), [S(2, 3), S(4, 3), S(2, 4)],
           grad_fn="AddmmBackward0"),
    OpInfo("linear_const_input", lambda T, x, w, b: F(T).linear(x, w, b), [S(4, 3, requires_grad=False), S(2, 3),
           S(2)], grad_fn="AddmmBackward0"),
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

OPS += LINEAR + BILINEAR

OPS += [OpInfo("linalg_vander", lambda T, x: T.linalg.vander(x, N=4), [S(2, 3)], grad_fn="CatBackward0")]
