"""torch.nn.modules.rnn, where programs name the recurrent layers (ndgrad keeps them in recurrent.py)."""
from .recurrent import *  # noqa: F401,F403
from .recurrent import __all__  # noqa: F401
