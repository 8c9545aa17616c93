"""ndgrad.optim: torch.optim's optimizers (updates in place under no_grad, on the _foreach_ ops) and
learning-rate schedulers."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .extra import ASGD, Adadelta, Adamax, NAdam, RAdam, Rprop  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .factored import Adafactor, Muon, SparseAdam  # noqa: F401
from .swap_in import swap_in_optimizer_params_and_state  # noqa: F401
from . import lr_scheduler, swa_utils  # noqa: F401
