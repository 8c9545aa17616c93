"""DistributedDataParallel over MPI: each rank runs the whole model on its share of the batch.

Parameters are grouped into buckets of about `bucket_cap_mb`, in reverse registration order
(roughly the order in which backward produces their gradients). A post-accumulate-grad hook on
every parameter counts the gradients a bucket has received; once a bucket and all buckets before
it are complete, its all-reduce starts (non-blocking) while backward goes on with the earlier
layers. When the
last bucket is launched every reduction is waited for and the averaged gradients are written back,
so after `loss.backward()` every rank holds the gradient of the global batch.
`no_sync()` skips the reductions (gradient accumulation); the next synced backward reduces the sum.
The gradients are written back only once every bucket's reduction is complete: when another rank
fails (or a wait times out, after `timeout` seconds: the process group's by default) backward
raises with every gradient as this rank computed it, so no optimizer step follows a partial reduction,
and the module refuses to run further steps.
"""
import contextlib

import numpy as np

from ..autograd.grad_mode import no_grad
from ..nn import Module
from ._group import broadcast, get_default_group

__all__ = ["DistributedDataParallel"]


class _Bucket:
    __slots__ = ("params", "ready", "flat", "request")

    def __init__(self, params):
        self.params = params
        self.ready = set()
        self.flat = self.request = None


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, process_group=None, bucket_cap_mb=25,
                 broadcast_buffers=True, find_unused_parameters=False, gradient_as_bucket_view=False, timeout=None):
        # device_ids, output_device, find_unused_parameters, gradient_as_bucket_view: accepted for
        # torch's signature; ndgrad replicas are CPU (or CuPy) processes and need none of them
        super().__init__()
        self.module = module
        self.process_group = process_group if process_group is not None else get_default_group()
        self.require_backward_grad_sync = True
        self.broadcast_buffers = broadcast_buffers
        self.timeout = timeout    # seconds a reduction may wait for the other ranks (None: the group's)
        self._steps = 0
        self._failure = None
        params = [p for p in module.parameters() if p.requires_grad]
        with no_grad():   # every replica starts from rank 0's weights
            for t in list(module.parameters()) + list(module.buffers()):
                broadcast(t, 0, self.process_group)
        self._buckets, self._bucket_of = [], {}
        current, size, cap = [], 0, bucket_cap_mb * 2 ** 20
        for p in reversed(params):
            if current and (size + p._array.nbytes > cap or p._array.dtype != current[0]._array.dtype):
                self._buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(p)
            size += p._array.nbytes
        if current:
            self._buckets.append(_Bucket(current))
        for b in self._buckets:
            for p in b.params:
                self._bucket_of[id(p)] = b
                p.register_post_accumulate_grad_hook(self._grad_ready)
        self._launched = 0

    def forward(self, *args, **kwargs):
        if self._failure is not None:
            raise RuntimeError(f"DistributedDataParallel: a previous step failed, the replicas may disagree: "
                               f"{self._failure}")
        if self.process_group.step is None:   # named in this rank's errors and in the others'
            self._steps += 1
            self.process_group.step = f"DDP step {self._steps}"
        if any(b.ready for b in self._buckets):
            missing = sum(len(b.params) - len(b.ready) for b in self._buckets)
            raise RuntimeError("Expected to have finished reduction in the prior iteration before starting a new "
                               f"one: {missing} parameters received no gradient in the last backward "
                               "(DistributedDataParallel needs every parameter to take part in the loss)")
        if self.broadcast_buffers:
            with no_grad():   # running statistics (e.g. batch norm) follow rank 0, as in torch
                for b in self.module.buffers():
                    broadcast(b, 0, self.process_group)
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate gradients locally; the first backward after the block reduces them all."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def _grad_ready(self, param):
        if not self.require_backward_grad_sync:
            return
        bucket = self._bucket_of[id(param)]
        bucket.ready.add(id(param))
        # launch complete buckets strictly in bucket order: every rank must start the same
        # collectives in the same order, whatever order its backward produced the gradients in
        buckets = self._buckets
        while self._launched < len(buckets) and len(buckets[self._launched].ready) == \
                len(buckets[self._launched].params):
            b = buckets[self._launched]
            b.flat = np.concatenate([p._grad._array.reshape(-1) for p in b.params])
            b.request = self.process_group.iallreduce(b.flat)
            self._launched += 1
        if self._launched == len(buckets):
            self._finish()

    def _finish(self):
        world = self.process_group.size()
        try:
            for i, b in enumerate(self._buckets):
                self.process_group.wait_request(b.request, f"the gradient all-reduce of bucket {i}",
                                                timeout=self.timeout)
        except BaseException as e:
            self._failure = f"{type(e).__name__}: {e}"
            for b in self._buckets:
                b.ready, b.flat, b.request = set(), None, None
            self._launched = 0
            raise
        self.process_group.step = None
        for b in self._buckets:
            b.flat /= world
            offset = 0
            for p in b.params:
                n = p._grad._array.size
                p._grad._array[...] = b.flat[offset:offset + n].reshape(p._grad._array.shape)
                offset += n
            b.ready, b.flat, b.request = set(), None, None
        self._launched = 0
