"""ndgrad.nn: torch.nn's modules, parameters, initialisations and functional ops."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import utils  # noqa: F401
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
