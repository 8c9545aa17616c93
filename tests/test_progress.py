"""Long runs (the demo, the catalog check, bench/run.py) show a tqdm progress bar on a terminal and
nothing extra when their output is a pipe or a file."""
import os
import subprocess
import sys

import pytest

CMD = [sys.executable, "-m", "ndgrad", "ops", "--check", "MulBackward0"]   # 4 programs (MulBackward0, ...)


def _run_on_terminal(cmd, columns=120):
    pty = pytest.importorskip("pty")
    fcntl, termios, struct = (pytest.importorskip(m) for m in ("fcntl", "termios", "struct"))
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    proc = subprocess.Popen(cmd, stdin=child, stdout=child, stderr=child, close_fds=True)
    os.close(child)
    out = b""
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:   # the child closed the terminal
            break
        if not data:
            break
        out += data
    os.close(main)
    assert proc.wait(timeout=120) == 0
    return out.decode("utf-8", "replace")


def test_catalog_check_shows_a_bar_on_a_terminal():
    out = _run_on_terminal(CMD)
    assert "running the catalog:" in out and "program/s" in out
    assert out.rstrip().endswith("4/4 produced; 0 not built (documented: `python -m ndgrad ops`); 0 failed")


def test_no_bar_when_not_a_terminal():
    run = subprocess.run(CMD, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0
    assert run.stderr == ""
    assert run.stdout == "4/4 produced; 0 not built (documented: `python -m ndgrad ops`); 0 failed\n"
