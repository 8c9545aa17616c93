"""torch.nn.modules.sparse, where programs name Embedding and EmbeddingBag (ndgrad: embedding.py)."""
from .embedding import *  # noqa: F401,F403
from .embedding import __all__  # noqa: F401
