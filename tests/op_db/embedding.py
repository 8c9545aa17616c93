"""Registry entries for embedding and embedding_bag (ndgrad/ops/embedding.py; see op_db/__init__.py for the format)."""
from . import I, OpInfo, S


def F(T):
    return T.nn.functional


IDX = I(values=[0, 2, 1, 3, 3, 0])


OFFSETS = I(values=[0, 2, 2, 5])   # bag 1 is empty


EMB_W = S(4, 3)


EMBEDDING = [
    OpInfo("embedding", lambda T, i, w: F(T).embedding(i, w), [I(values=[[0, 2], [3, 0]]), EMB_W],
           grad_fn="EmbeddingBackward0"),
    OpInfo("embedding_padding_idx", lambda T, i, w: F(T).embedding(i, w, padding_idx=-1),
           [I(values=[0, 3, 1, 3]), EMB_W], grad_fn="EmbeddingBackward0", check_grad=False),
    OpInfo("embedding_scale_grad_by_freq", lambda T, i, w: F(T).embedding(i, w, scale_grad_by_freq=True),
           [I(values=[0, 2, 0, 1, 0]), EMB_W], grad_fn="EmbeddingBackward0", check_grad=False),
    OpInfo("embedding_max_norm", lambda T, i, w: F(T).embedding(i, w * 3, max_norm=1.0),
           [I(values=[0, 2, 0]), EMB_W], grad_fn="EmbeddingBackward0", check_grad=False),
    OpInfo("embedding_torch", lambda T, w, i: T.embedding(w, i), [EMB_W, I(values=[1, 1, 2])],
           grad_fn="EmbeddingBackward0"),
]

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

OPS = EMBEDDING + BAG

OPS += [OpInfo("one_hot", lambda T, x: T.nn.functional.one_hot(x, 5), [I(2, 3, high=5)], check_grad=False,
               gradgrad=False)]
