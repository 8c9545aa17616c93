"""ndgrad.nn.parallel (torch.nn.parallel): DataParallel. ndgrad computes on one device, where
torch's DataParallel wraps the module without replicating it: the wrapper's forward is the
module's, its state_dict keys gain the `module.` prefix, `device_ids` is empty. Data parallelism
across processes is ndgrad.distributed.DistributedDataParallel."""
from .modules.module import Module


class DataParallel(Module):
    """Wraps a module for single-process data parallelism across devices. ndgrad computes on the CPU
    only, so, as torch does without CUDA, the wrapper runs the module as it is: its forward is the
    module's, its `state_dict` keys gain the ``module.`` prefix and `device_ids` is empty. For data
    parallelism across processes, use ``ndgrad.distributed``'s `DistributedDataParallel`.

    Args:
        module (Module): the module to wrap.
        device_ids (list, optional): ignored (no accelerator).
        output_device (optional): ignored.
        dim (int): the batch dimension that would be scattered. Default: ``0``.

    Example::

        >>> model = torch.nn.DataParallel(torch.nn.Linear(2, 1))
        >>> list(model.state_dict())
        ['module.weight', 'module.bias']
        >>> model.device_ids
        []
    """
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []   # no accelerator: torch keeps the module as it is

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


__all__ = ["DataParallel"]
