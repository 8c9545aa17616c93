"""nn.functional.embedding and embedding_bag: the public forms in ops/embedding.py."""
from ...ops.embedding import embedding_bag_fn as embedding_bag, embedding_fn as embedding, one_hot  # noqa: F401

__all__ = ["embedding", "embedding_bag", "one_hot"]
