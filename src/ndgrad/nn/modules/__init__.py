"""ndgrad.nn.modules: torch.nn's layers, one file per family (activation, loss, convolution, ...),
each a Module (module.py) whose forward calls ndgrad.nn.functional. ndgrad.nn re-exports them."""
from . import (activation, adaptive, attention, container, convolution, distance, dropout, embedding, flatten,
               lazy, linear, loss, normalization, padding, pooling, recurrent, sampling, transformer)
from . import rnn, sparse  # noqa: F401  (torch's module paths for recurrent and embedding)
from .module import Module
from .activation import *  # noqa: F401,F403
from .adaptive import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .lazy import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .recurrent import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403

__all__ = ["Module"] + [name for family in (activation, adaptive, attention, container, convolution, distance, dropout,
                                            embedding, flatten, lazy, linear, loss, normalization, padding, pooling,
                                            recurrent, sampling, transformer)
                        for name in family.__all__]
