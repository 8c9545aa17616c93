"""Pipeline schedules, DDP and their failures on 2 and 4 MPI ranks (mpiexec; see mpi_worker.py).

Skipped when mpi4py or mpiexec is missing (`pip install -e .[distributed]` installs both).
Each launch runs several scenarios, to pay the start-up of the ranks once.
"""
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

pytest.importorskip("mpi4py")
MPIEXEC = shutil.which("mpiexec") or shutil.which("mpiexec", path=os.path.dirname(sys.executable))
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="mpiexec not found")
TESTS = os.path.dirname(os.path.abspath(__file__))


def launch(n, *scenarios):
    command = [MPIEXEC, "-n", str(n)]
    if "Open MPI" in subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True).stdout:
        command.append("--oversubscribe")    # CI machines may have fewer cores than ranks
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(os.path.dirname(TESTS), "src"), TESTS]),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    run = subprocess.run(command + [sys.executable, "-m", "mpi_worker", *scenarios], cwd=TESTS, env=env,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0 and "ERROR" not in run.stdout, run.stdout + run.stderr
    return run.stdout


def ok_lines(out, n, label):
    return sorted(line.split(" ", 3)[2] for line in out.replace("OK", "\nOK").splitlines()
                  if line.startswith("OK") and label in line) == [str(r) for r in range(n)]


def check_schedules(out, n):
    for label in [f"ScheduleGPipe {n} stages", f"Schedule1F1B {n} stages", f"ScheduleInterleaved1F1B {2 * n} stages",
                  f"ScheduleInterleavedZeroBubble {n} stages", f"ScheduleInterleavedZeroBubble {2 * n} stages",
                  f"ScheduleZBVZeroBubble {2 * n} stages"]:
        assert ok_lines(out, n, label), (label, out)
    assert "OK rank 0 timelines" in out, out


def test_two_ranks_every_schedule_dtypes_and_ddp_match_one_process():
    out = launch(2, "schedules", "dtypes", "ddp")
    check_schedules(out, 2)
    assert ok_lines(out, 2, "dtypes") and ok_lines(out, 2, "ddp"), out


def test_four_ranks_every_schedule_and_pipeline_times_data_parallel():
    out = launch(4, "schedules", "two_d")
    check_schedules(out, 4)
    assert ok_lines(out, 4, "2-D Schedule1F1B") and ok_lines(out, 4, "2-D ScheduleZBVZeroBubble"), out


def test_failures_raise_on_every_rank_naming_rank_and_stage():
    out = launch(2, "errors")
    raised = {tuple(line.split(" ", 4)[2:4]): line for line in out.replace("RAISED", "\nRAISED").splitlines()
              if line.startswith("RAISED")}
    assert "rank 1, stage 1: action 1F0 failed: ValueError: this stage is broken" in raised[("1", "failure:")]
    assert "PeerFailedError: rank 0: stopping because rank 1 failed" in raised[("0", "failure:")]
    assert "rank 0, stage 0: action 0F1 failed" in raised[("0", "mismatch:")]
    assert "has shapes/dtypes [((3, 2), '<f4')], but [((4, 2), '<f4')] were negotiated" in raised[("0", "mismatch:")]
    assert "stopping because rank 0 failed" in raised[("1", "mismatch:")]
    assert "rank 0: timed out after 0.5 s waiting for the shapes of the gradient of microbatch 0 from stage 1 " \
           "(rank 1)" in raised[("0", "timeout:")]


# ---- a failing rank: every other rank stops, within a bound, naming it and the step ---------------------
HYDRA = MPIEXEC is not None and "HYDRA" in subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True).stdout
BOUND = 15.0  # seconds a survivor may take to stop: the 1.5 s timeout of the tests, the census grace, and slack
#              for a 2-core CI machine that runs other tests beside these (stops take 2-4 s on a quiet one)
SCHEDULES = ["ScheduleGPipe", "Schedule1F1B", "ScheduleInterleaved1F1B", "ScheduleInterleavedZeroBubble",
             "ScheduleZBVZeroBubble"]


def gone(pid):
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in "ZX"
    except (ProcessLookupError, FileNotFoundError):
        return True


def launch_failing(n, scenario, tmp_path):
    """Run a failing scenario (the last rank fails in step 2); {rank: its report} of the ranks that reported.

    -disable-auto-cleanup keeps mpiexec from killing the other ranks itself when one dies by a signal,
    so that what stops them is ndgrad; the reports go to files, since mpiexec may be gone by then."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(os.path.dirname(TESTS), "src"), TESTS]),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", NDGRAD_MPI_REPORT=str(tmp_path))
    subprocess.run([MPIEXEC, "-disable-auto-cleanup", "-n", str(n), sys.executable, "-m", "mpi_worker", scenario],
                   cwd=TESTS, env=env, capture_output=True, text=True, timeout=60)
    deadline = time.monotonic() + BOUND
    while True:   # a rank orphaned by mpiexec may still be stopping
        reports = {int(f.name[4:]): f.read_text() for f in tmp_path.glob("rank*")}
        pids = [int(re.search(r"pid (\d+)", text)[1]) for text in reports.values()]
        if all(gone(pid) for pid in pids) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert len(reports) == n and all(gone(pid) for pid in pids), f"ranks still running after the failure: {reports}"
    return reports


def check_survivors(reports, n, culprit_words, step, required="all"):
    """Each rank but the last that said how it stopped names the last one and the step; required: how
    many must have said it ("all", "any", "none"). mpiexec may end a rank before it could, once
    another has died by a signal or left without MPI_Finalize (whatever the options); more likely
    with 4 ranks on a busy machine, where a rank may still be in its step's compute by then."""
    victim = n - 1
    told = [rank for rank in range(n - 1) if "RAISED" in reports[rank]]
    assert required == "none" or told and (required == "any" or len(told) == n - 1), \
        f"ranks {sorted(set(range(n - 1)) - set(told))} did not report: {reports}"
    for rank in told:
        text = reports[rank]
        seconds = float(re.search(r"after ([\d.]+) s", text)[1])
        assert seconds < BOUND, text
        assert any(word.format(victim=victim) in text for word in culprit_words), text
        assert step in text, text
        assert "weights KEPT" in text, text    # no optimizer step after the failed one


NAMED = {"raise": ["rank {victim} failed during"], "exit": ["rank {victim} failed during"],
         "vanish": ["rank {victim} is gone"], "kill": ["rank {victim} is gone", "a rank ended abnormally"],
         "hang": ["rank {victim} did not answer", "ranks {victim} did not answer"]}


failing = pytest.mark.skipif(not HYDRA, reason="the failure tests use MPICH's mpiexec (hydra) -disable-auto-cleanup")


@failing
@pytest.mark.parametrize("n, mode", [(2, "raise"), (2, "exit"), (2, "vanish"), (2, "kill"), (2, "hang"), (4, "raise"),
                                     (4, "hang")])
def test_a_failing_rank_stops_every_other_rank_of_a_ddp_step(n, mode, tmp_path):
    reports = launch_failing(n, f"failing_ddp:{mode}", tmp_path)
    # (a rank killed or gone without MPI_Finalize lets mpiexec end the others, sometimes before they report)
    check_survivors(reports, n, NAMED[mode], "DDP step 2",
                    required="none" if mode in ("kill", "vanish") else "all" if n == 2 else "any")


@failing
@pytest.mark.parametrize("mode", ["raise", "kill", "hang"])
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_a_failing_rank_stops_every_other_rank_of_a_pipeline_step(schedule, mode, tmp_path):
    reports = launch_failing(2, f"failing_pipeline:{schedule}:{mode}", tmp_path)
    check_survivors(reports, 2, NAMED[mode], f"{schedule} step 2", required="none" if mode == "kill" else "all")


@failing
@pytest.mark.parametrize("mode", ["vanish", "hang"])
def test_a_failing_rank_stops_every_rank_of_a_four_stage_pipeline(mode, tmp_path):
    reports = launch_failing(4, f"failing_pipeline:Schedule1F1B:{mode}", tmp_path)
    # (as in the DDP test: after a rank vanished, mpiexec may end the others before any reports)
    check_survivors(reports, 4, NAMED[mode], "Schedule1F1B step 2", required="none" if mode == "vanish" else "any")
