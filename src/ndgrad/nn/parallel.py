"""ndgrad.nn.parallel (torch.nn.parallel): DataParallel. ndgrad computes on one device, where
torch's DataParallel wraps the module without replicating it: the wrapper's forward is the
module's, its state_dict keys gain the `module.` prefix, `device_ids` is empty. Data parallelism
across processes is ndgrad.distributed.DistributedDataParallel."""
from .modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []   # no accelerator: torch keeps the module as it is

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


__all__ = ["DataParallel"]
