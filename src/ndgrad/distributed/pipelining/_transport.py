"""Moving activations and gradients between stages: in process, or point to point over MPI.

Between stages of the same process a message is a copy put in a mailbox. Between ranks it is one
MPI message per (microbatch, stage boundary): the tensors' bytes packed together, so any dtype
travels. The first message over a boundary carries its shapes and dtypes (negotiated once and
checked afterwards); from then on the receiver posts the non-blocking receives of a whole step
as soon as the step begins, and the sender's non-blocking sends are only waited for at its end,
so communication overlaps computation.
"""
import pickle

import numpy as np

from ...ops.creation import from_numpy
from .._group import PeerFailedError, PeerTimeoutError, _mpi

ACT, GRAD = "act", "grad"


class Transport:
    def __init__(self, group, stage_to_rank, n_microbatches, num_stages, timeout=None):
        self.group = group.dup() if group is not None else None
        if self.group is not None and timeout is not None:
            self.group.timeout = float(timeout)
        self.rank = self.group.rank() if self.group is not None else None
        self.stage_to_rank = stage_to_rank
        self.M, self.S = n_microbatches, num_stages
        self.mailbox = {}
        self.meta = {}        # (kind, receiving stage) -> [(shape, dtype)] negotiated on first use
        self.posted = {}      # (kind, stage, mb) -> (request, buffer)
        self.sends = []
        if self.group is not None:
            self.MPI = _mpi()
            if self._tag(GRAD, self.S - 1, 0, meta=True) > self.group.comm.Get_attr(self.MPI.TAG_UB):
                raise ValueError(f"{num_stages} stages x {n_microbatches} microbatches need more MPI tags than "
                                 "this MPI library offers")

    # addressing -----------------------------------------------------------------------------
    def _sender(self, kind, stage):
        return stage - 1 if kind == ACT else stage + 1

    def _remote(self, kind, stage):
        return self.group is not None and \
            self.stage_to_rank[self._sender(kind, stage)] != self.stage_to_rank[stage]

    def _tag(self, kind, stage, mb, meta=False):
        boundary = (kind == GRAD) * self.S + stage
        return 1 + 2 * self.S * self.M + boundary if meta else 1 + boundary * self.M + mb

    def _describe(self, kind, stage, mb):
        what = "activation" if kind == ACT else "gradient"
        src = self._sender(kind, stage)
        return (f"the {what} of microbatch {mb} from stage {src} (rank {self.stage_to_rank[src]}) to stage {stage} "
                f"(rank {self.stage_to_rank[stage]})")

    # sending --------------------------------------------------------------------------------
    def send(self, kind, stage, mb, tensors, timeline):
        arrays = [np.ascontiguousarray(t.detach().numpy()) for t in tensors]
        if not self._remote(kind, stage):
            self.mailbox[(kind, stage, mb)] = [a.copy() for a in arrays]
            return
        metas = [(a.shape, a.dtype.str) for a in arrays]
        dest = self.stage_to_rank[stage]
        known = self.meta.get((kind, stage))
        if known is None:
            self.meta[(kind, stage)] = metas
            data = pickle.dumps(metas)
            self.sends.append((self.group.comm.Isend([data, self.MPI.BYTE], dest, self._tag(kind, stage, 0, True)),
                               data, "shapes"))
        elif known != metas:
            raise RuntimeError(f"{self._describe(kind, stage, mb)} has shapes/dtypes {metas}, but {known} were "
                               f"negotiated with stage {stage} on the first microbatch; every microbatch must have "
                               "the same shapes")
        buf = np.concatenate([a.reshape(-1).view(np.uint8) for a in arrays]) if arrays else np.zeros(0, np.uint8)
        with timeline.record(f"send {kind} {stage}:{mb}", "send", stage=self._sender(kind, stage), peer=dest):
            req = self.group.comm.Isend([buf, self.MPI.BYTE], dest, self._tag(kind, stage, mb))
        self.sends.append((req, buf, self._describe(kind, stage, mb)))

    # receiving ------------------------------------------------------------------------------
    def _receiving_boundaries(self, backward):
        me = self.rank
        for s in range(self.S):
            if self.stage_to_rank[s] != me:
                continue
            if s > 0 and self._remote(ACT, s):
                yield ACT, s
            if backward and s < self.S - 1 and self._remote(GRAD, s):
                yield GRAD, s

    def _post(self, kind, stage):
        """Post the receives of every microbatch over one boundary (negotiating shapes the first time)."""
        src = self.stage_to_rank[self._sender(kind, stage)]
        if (kind, stage) not in self.meta:
            status = self.MPI.Status()
            tag = self._tag(kind, stage, 0, True)
            self.group.wait(lambda: (self.group.comm.Iprobe(src, tag, status), None),
                            f"the shapes of {self._describe(kind, stage, 0)}")
            data = bytearray(status.Get_count(self.MPI.BYTE))
            self.group.comm.Recv([data, self.MPI.BYTE], src, tag)
            self.meta[(kind, stage)] = pickle.loads(bytes(data))
        size = sum(int(np.prod(shape)) * np.dtype(dt).itemsize for shape, dt in self.meta[(kind, stage)])
        for mb in range(self.M):
            buf = np.empty(size, np.uint8)
            self.posted[(kind, stage, mb)] = (self.group.comm.Irecv([buf, self.MPI.BYTE], src,
                                                                    self._tag(kind, stage, mb)), buf)

    def recv(self, kind, stage, mb, timeline):
        if not self._remote(kind, stage):
            arrays = self.mailbox.pop((kind, stage, mb), None)
            if arrays is None:
                raise RuntimeError(f"stage {stage}: {self._describe(kind, stage, mb)} is needed before it was "
                                   "produced (the pipeline order is invalid)")
            return tuple(from_numpy(a) for a in arrays)
        if (kind, stage, mb) not in self.posted:
            self._post(kind, stage)
        req, buf = self.posted.pop((kind, stage, mb))
        what = self._describe(kind, stage, mb)
        with timeline.record(f"recv {kind} {stage}:{mb}", "recv", stage=stage,
                             peer=self.stage_to_rank[self._sender(kind, stage)]):
            status = self.group.wait_request(req, what)
        if status.Get_count(self.MPI.BYTE) != buf.size:
            raise RuntimeError(f"rank {self.rank}, stage {stage}: {what} has {status.Get_count(self.MPI.BYTE)} bytes, "
                               f"expected {buf.size} for shapes {self.meta[(kind, stage)]}")
        arrays, offset = [], 0
        for shape, dt in self.meta[(kind, stage)]:
            n = int(np.prod(shape)) * np.dtype(dt).itemsize
            arrays.append(from_numpy(buf[offset:offset + n].view(dt).reshape(shape)))
            offset += n
        return tuple(arrays)

    # steps ----------------------------------------------------------------------------------
    def begin_step(self, backward=True):
        self.mailbox.clear()
        if self.group is None:
            return
        for kind, stage in self._receiving_boundaries(backward):
            if (kind, stage) in self.meta:
                self._post(kind, stage)

    def end_step(self):
        if self.group is None:
            return
        for req, _, what in self.sends:
            self.group.wait_request(req, f"the delivery of {what}")
        self.sends.clear()
        if self.posted:
            raise RuntimeError(f"rank {self.rank}: receives posted but never used: {sorted(self.posted)}")

    def abort(self, error):
        """After a failure on this rank: tell the others, so they stop instead of timing out (unless
        the failure is theirs, or a timeout the others were already told of)."""
        if self.group is not None:
            if not isinstance(error, (PeerFailedError, PeerTimeoutError)):
                self.group.notify_failure(f"{type(error).__name__}: {error}")
            for req, _ in self.posted.values():
                req.Cancel()
            self.posted.clear()
            self.sends.clear()
