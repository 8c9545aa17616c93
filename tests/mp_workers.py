"""What the processes of tests/test_multiprocessing.py run: module-level functions (spawned children
import this module by name), in a module that imports no more than ndgrad, so that a spawned child
starts fast."""
import os
import signal
import time

import ndgrad


def train(rank, model, lock, steps):
    opt = ndgrad.optim.SGD(model.parameters(), lr=0.1)
    x = ndgrad.tensor([[1.0, 2.0]])
    for _ in range(steps):
        opt.zero_grad()
        model(x).sum().backward()   # constant gradients: x for the weight, 1 for the bias
        with lock:                  # (Hogwild races are allowed to lose updates: not in a test)
            opt.step()


def echo(inbox, outbox, done):
    t = inbox.get()
    with ndgrad.no_grad():
        t.add_(1)                    # seen by the sender
    outbox.put((t, t.requires_grad, t.is_shared()))
    outbox.put(ndgrad.full((2,), 7.0))   # made here, shared on the way
    done.wait()                      # as torch: a sender stays alive until its tensors are received


def fill_and_wait(inbox, outbox, done):
    t = inbox.get()
    t.fill_(3.0)
    outbox.put(ndgrad.arange(4.0))
    done.wait()


def raise_at_1(i, message):
    if i == 1:
        raise ValueError(message)


def exit_with(i, code):
    if code == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    raise SystemExit(code)


def sleep(i, seconds):
    time.sleep(seconds)
