"""Pipeline schedules, DDP and their failures on 2 and 4 MPI ranks (mpiexec; see mpi_worker.py).

Skipped when mpi4py or mpiexec is missing (`pip install -e .[distributed]` installs both).
Each launch runs several scenarios, to pay the start-up of the ranks once.
"""
import os
import shutil
import subprocess
import sys

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
