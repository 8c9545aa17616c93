"""Registry entries for distances (pdist, cdist, pairwise distance, cosine similarity) (ndgrad/ops/distance.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def F(T):
    return T.nn.functional


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

OPS = DIST

# the inputs broadcast before the norms are taken (a size-1 dim normalized alone would give +-1)
OPS += [OpInfo("cosine_similarity_broadcast", lambda T, a, b: F(T).cosine_similarity(a, b, dim=1),
               [S(2, 1, 3), S(2, 4, 3)], grad_fn="SumBackward1")]
