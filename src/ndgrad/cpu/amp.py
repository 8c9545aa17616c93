"""torch.cpu.amp: the deprecated CPU spellings of ndgrad.amp (they warn, then work)."""
from .. import amp as _amp

autocast, GradScaler = _amp.deprecated_spellings("cpu")
