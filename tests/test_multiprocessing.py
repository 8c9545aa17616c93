"""ndgrad.multiprocessing (torch.multiprocessing): shared-memory tensors (share_memory_, is_shared,
Module.share_memory), tensors through multiprocessing's pickler (queues, spawned processes' arguments),
Hogwild training, spawn / start_processes and their errors, the sharing strategies. Compared with torch
where the behaviour is visible in one process; the multi-process checks assert the values each side sees.
Processes are few and short-lived ("fork" where the start method does not matter: "spawn" imports ndgrad
again in every child)."""
import gc
import glob
import os
import signal
import warnings
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

import ndgrad
import ndgrad.multiprocessing as mp
import mp_workers
from parity import both, same_error

try:
    import torch
    import torch.multiprocessing  # noqa: F401
except ImportError:
    torch = None


def _roundtrip(x):
    return ForkingPickler.loads(ForkingPickler.dumps(x))


# --- in one process ---------------------------------------------------------------------------------
def test_share_memory_moves_the_storage_in_place_keeping_views_and_versions():
    def scenario(T):
        x = T.arange(6.0)
        v = x[1:].view(5)   # a view of a view
        d = x.detach()      # an alias that is no view
        before = (x.is_shared(), v.is_shared())
        x_version = x._version
        assert x.share_memory_() is x
        v.mul_(10)          # the view still writes into the base's memory, and bumps the shared version
        d[0] = -1.0
        return (before, x.is_shared(), v.is_shared(), d.is_shared(), x.untyped_storage().is_shared(), x, v,
                v._base is x, x._version - x_version, v.storage_offset(), x.share_memory_() is x)
    out = both(scenario)
    assert out[0] == [False, False] and out[1:5] == [True] * 4
    assert out[5].tolist() == [-1.0, 10.0, 20.0, 30.0, 40.0, 50.0] and out[7] is True and out[8] == 2


def test_a_shared_tensor_keeps_working_with_autograd():
    def scenario(T):
        w = T.tensor([1.0, 2.0], requires_grad=True).share_memory_()
        (w * w).sum().backward()
        with T.no_grad():
            w.sub_(0.5 * w.grad)
        return w, w.grad, w.is_shared(), w.requires_grad, w.is_leaf, w.grad.is_shared()
    assert both(scenario)[0].tolist() == [0.0, 0.0]


def test_share_memory_of_a_view_shares_its_base_and_other_views():
    def scenario(T):
        x = T.zeros(2, 3)
        row, col = x[1], x[:, 2]
        row.share_memory_()
        col.add_(1)
        return x.is_shared(), col.is_shared(), x, row
    assert both(scenario)[:2] == [True, True]


def test_module_share_memory_shares_parameters_and_buffers():
    def scenario(T):
        m = T.nn.BatchNorm1d(3)
        m.weight.grad = T.ones(3)
        p = m.weight
        assert m.share_memory() is m
        return (m.weight is p, [t.is_shared() for t in m.parameters()], m.running_mean.is_shared(),
                m.weight.grad.is_shared(), m.weight)
    out = both(scenario)
    assert out[:4] == [True, [True, True], True, True]


def test_untyped_storage_share_memory_moves_its_tensors_too():
    def scenario(T):
        x = T.tensor([1, 2, 3])
        s = x.untyped_storage()
        before = s.is_shared()
        s.share_memory_()
        return before, s.is_shared(), x.is_shared(), x, s.nbytes()
    assert both(scenario)[:3] == [False, True, True]


def test_empty_and_meta_tensors():
    assert both(lambda T: [T.empty(0).share_memory_().is_shared(), T.empty(0, 3).share_memory_().shape])[0] is True
    m = ndgrad.empty(2, device="meta")
    assert m.share_memory_() is m


def test_pickling_moves_to_shared_memory_and_unpickles_over_the_same_memory():
    def scenario(T):
        x = T.arange(5.0)
        y = _roundtrip(x[1:])
        y[0] = 100.0        # the same memory: seen by x
        return x.is_shared(), y.is_shared(), y, x, y.storage_offset(), y.data_ptr() == x.data_ptr() + 4
    out = both(scenario)
    assert out[0] is True and out[1] is True and out[3][1] == 100.0 and out[4] == 1 and out[5] is True


def test_requires_grad_and_parameter_type_travel_but_grad_does_not():
    def scenario(T):
        p = T.nn.Parameter(T.ones(2))
        p.grad = T.ones(2)
        q = _roundtrip(p)
        r = _roundtrip(T.ones(2, dtype=T.float64).requires_grad_())
        i = _roundtrip(T.tensor([3, 4], dtype=T.int32))
        return type(q).__name__, q.requires_grad, q.grad is None, r.requires_grad, r.is_leaf, str(r.dtype), str(i.dtype), i
    assert both(scenario)[:4] == ["Parameter", True, True, True]


def test_non_leaf_requiring_grad_is_refused():
    msg = same_error(lambda T: ForkingPickler.dumps(T.ones(2, requires_grad=True) * 2))
    assert msg.startswith("Cowardly refusing to serialize non-leaf tensor which requires_grad")
    # a view of a leaf that requires grad is no leaf either
    same_error(lambda T: ForkingPickler.dumps(T.ones(2, requires_grad=True)[1:]))


def test_storages_pickle_over_shared_memory():
    x = ndgrad.tensor([1.0, 2.0])
    s = _roundtrip(x.untyped_storage())
    assert x.is_shared() and type(s) is ndgrad.UntypedStorage and s.nbytes() == 8 and s.is_shared()
    s[6] = 0x40   # float32 2.0 is 0x40000000, little-endian: its third byte 0x40 makes 3.0 (0x40400000)
    assert x.tolist() == [1.0, 3.0]


def test_unpickling_maps_only_ndgrad_segments():
    from ndgrad.multiprocessing import reductions
    with pytest.raises(RuntimeError, match="not an ndgrad shared-memory segment"):
        reductions.rebuild_tensor(ndgrad.Tensor, (None, "/etc/passwd"), 8, 0, (2,), np.dtype("float32"), (4,),
                                  False, {})


def test_sharing_strategies():
    def scenario(T):
        m = T.multiprocessing
        before = m.get_sharing_strategy()
        m.set_sharing_strategy("file_system")
        now = m.get_sharing_strategy()
        m.set_sharing_strategy(before)
        return before, now, sorted(m.get_all_sharing_strategies())
    assert both(scenario) == ["file_descriptor", "file_system", ["file_descriptor", "file_system"]]
    same_error(lambda T: T.multiprocessing.set_sharing_strategy("shm"), AssertionError)


def test_namespace_reexports_the_standard_module():
    import multiprocessing
    assert mp.get_context("fork").Process is multiprocessing.get_context("fork").Process
    for name in ("Process", "Queue", "SimpleQueue", "Pool", "Manager", "Lock", "get_context", "set_start_method",
                 "get_start_method", "spawn", "start_processes", "ProcessContext", "ProcessRaisedException",
                 "ProcessExitedException", "SpawnContext", "get_sharing_strategy", "init_reductions"):
        assert hasattr(mp, name), name
    if torch is not None:
        assert set(mp.__all__) == set(torch.multiprocessing.__all__)
    assert ndgrad.multiprocessing is mp


def _descriptors_of(files):
    """This process's open descriptors on those files, (st_dev, st_ino) pairs (a memfd's names its segment)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            st = os.stat(int(fd))
            if (st.st_dev, st.st_ino) in files:
                found.append(fd)
        except OSError:   # (the listing's own descriptor, or one closed meanwhile by another thread)
            pass
    return found


def _shared_files(n):
    xs = [ndgrad.ones(3).share_memory_() for _ in range(n)]
    files = {mp._shared.segment_of(x._array.base).key for x in xs}
    return files, len(_descriptors_of(files))


def test_freed_storages_close_their_descriptors():
    files, held = _shared_files(5)   # (the tensors are freed when it returns)
    gc.collect()
    assert len(files) == 5 and held >= 5 and _descriptors_of(files) == []


# --- across processes -------------------------------------------------------------------------------

def _hogwild(start_method, workers, steps):
    ctx = mp.get_context(start_method)
    model = ndgrad.nn.Linear(2, 1)
    with ndgrad.no_grad():
        model.weight.copy_(ndgrad.tensor([[0.5, -0.5]]))
        model.bias.fill_(1.0)
    model.share_memory()
    lock = ctx.Lock()
    procs = [ctx.Process(target=mp_workers.train, args=(r, model, lock, steps)) for r in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0] * workers
    n = 0.1 * workers * steps
    assert np.allclose(model.weight.detach().numpy(), [[0.5 - n, -0.5 - 2 * n]])
    assert np.allclose(model.bias.detach().numpy(), [1.0 - n])


def test_hogwild_workers_update_the_parents_parameters_fork():
    _hogwild("fork", workers=2, steps=3)


def test_hogwild_workers_update_the_parents_parameters_spawn():
    _hogwild("spawn", workers=1, steps=2)


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_tensors_through_queues_share_memory_both_ways(start_method):
    ctx = mp.get_context(start_method)
    inbox, outbox, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=mp_workers.echo, args=(inbox, outbox, done))
    p.start()
    try:
        x = ndgrad.zeros(3, requires_grad=True)
        assert not x.is_shared()
        inbox.put(x)
        back, requires_grad, shared = outbox.get(timeout=60)
        made = outbox.get(timeout=60)
    finally:
        done.set()
        p.join(60)
    assert x.is_shared() and requires_grad and shared
    assert x.tolist() == [1.0, 1.0, 1.0]
    assert back.data_ptr() == x.data_ptr() and back.requires_grad   # our own memory came back
    assert made.is_shared() and made.tolist() == [7.0, 7.0] and p.exitcode == 0


def _file_system_round_trip():
    """A tensor to a forked child and one back, with file_system segments: (what each side saw, the
    segments of this process and of the child while both tensors live, the child's pid)."""
    ctx = mp.get_context("fork")
    inbox, outbox, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=mp_workers.fill_and_wait, args=(inbox, outbox, done))
    p.start()
    x = ndgrad.zeros(2)
    inbox.put(x)
    y = outbox.get(timeout=60)
    done.set()
    p.join(60)
    for q in (inbox, outbox):   # (a queue's feeder thread holds the last object it sent)
        q.close()
        q.join_thread()
    return ((x.tolist(), y.tolist()), glob.glob(f"/dev/shm/ndgrad_{os.getpid()}_*"),
            glob.glob(f"/dev/shm/ndgrad_{p.pid}_*"))


def test_file_system_strategy_leaves_no_segments_behind():
    mp.set_sharing_strategy("file_system")
    try:
        seen, mine, childs = _file_system_round_trip()
    finally:
        mp.set_sharing_strategy("file_descriptor")
    assert seen == ([3.0, 3.0], [0.0, 1.0, 2.0, 3.0])
    assert len(mine) == 1 and childs == []   # the child's went when it exited
    from ndgrad.multiprocessing import reductions
    reductions._pinned.clear()   # (a sender keeps what it sent until it exits)
    gc.collect()
    assert not glob.glob(f"/dev/shm/ndgrad_{os.getpid()}_*")


def test_start_processes_raises_a_childs_exception_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(mp_workers.raise_at_1, args=("boom",), nprocs=2, start_method="fork")
    msg = str(info.value)
    assert msg.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback (most recent call last):")
    assert msg.endswith("ValueError: boom\n") and info.value.error_index == 1 and info.value.error_pid > 0


def test_spawn_with_an_exception_in_a_child():
    # (spawn always spawns: another start_method is a FutureWarning, as in torch)
    with pytest.warns(FutureWarning, match="This method only supports start_method=spawn \\(got: fork\\)"):
        with pytest.raises(mp.ProcessRaisedException) as info:
            mp.spawn(mp_workers.raise_at_1, args=("spawned",), nprocs=2, start_method="fork")
    assert info.value.msg.startswith("\n\n-- Process 1 terminated with the following error:\n")
    assert "ValueError: spawned" in info.value.msg and info.value.error_index == 1


@pytest.mark.parametrize("code", [3, "kill"])
def test_process_exited_exception_messages_match_torch(code):
    def run(T):
        with pytest.raises(T.multiprocessing.ProcessExitedException) as info:
            T.multiprocessing.start_processes(mp_workers.exit_with, args=(code,), nprocs=1, start_method="fork")
        e = info.value
        return str(e), e.error_index, e.exit_code, e.signal_name
    ours = run(ndgrad)
    assert ours[0] == ("process 0 terminated with exit code 3" if code == 3 else
                       "process 0 terminated with signal SIGKILL")
    if torch is not None:
        assert ours == run(torch)


def test_process_context_join_and_pids():
    context = mp.start_processes(mp_workers.sleep, args=(0.5,), nprocs=2, join=False, start_method="fork")
    assert isinstance(context, mp.ProcessContext) and len(set(context.pids())) == 2
    assert context.join(timeout=0.01) is False
    while not context.join():
        pass
    assert all(p.exitcode == 0 for p in context.processes) and context.join() is True


class _Squares:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return ndgrad.tensor([float(i), float(i * i)])


def test_dataloader_with_two_workers_receives_shared_batches():
    loader = ndgrad.utils.data.DataLoader(_Squares(), batch_size=4, num_workers=2,
                                          multiprocessing_context="fork")
    batches = list(loader)
    assert [b.tolist() for b in batches] == [[[0.0, 0.0], [1.0, 1.0], [2.0, 4.0], [3.0, 9.0]],
                                             [[4.0, 16.0], [5.0, 25.0]]]
    assert all(b.is_shared() for b in batches)   # as torch's workers send them
