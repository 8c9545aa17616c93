"""torch.jit as torch runs it with its JIT disabled (script/trace give back their argument, fork runs
inline), and torch.futures.Future."""
import threading
import typing

import pytest

import ndgrad

from parity import both, err, same_error


def _scaled_tanh(x):
    return (x * 2).tanh() + x


def test_script_and_trace_run_the_function_and_module_eagerly():
    def scenario(T):
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        lin = T.nn.Linear(3, 2).double()
        with T.no_grad():
            lin.weight.copy_(T.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]], dtype=T.float64))
            lin.bias.fill_(0.25)
        outs = [T.jit.script(_scaled_tanh)(x), T.jit.trace(_scaled_tanh, (x,))(x), T.jit.trace(lin, x)(x),
                T.jit.script(lin)(x)]
        sum(o.sum() for o in outs).backward()
        return outs + [x.grad]
    both(scenario)
    assert ndgrad.jit.script(_scaled_tanh) is _scaled_tanh
    m = ndgrad.nn.Linear(2, 2)
    assert ndgrad.jit.trace(m, ndgrad.ones(2)) is m and ndgrad.jit.script(m) is m


def test_fork_runs_the_call_and_wait_gives_its_result():
    def scenario(T):
        x = T.tensor([1.0, 2.0], dtype=T.float64)
        fut = T.jit.fork(_scaled_tanh, x)
        return [fut.done(), T.jit.wait(fut), T.jit._wait(T.jit._fork(_scaled_tanh, x))]
    assert both(scenario)[0] is True


def test_fork_raises_the_call_s_exception_at_once():
    def bad(x):
        raise ValueError("no")
    same_error(lambda T: T.jit.fork(bad, 1), ValueError)


def test_jit_helpers_are_pass_throughs():
    def scenario(T):
        return [T.jit.is_scripting(), T.jit.is_tracing(), T.jit.annotate(typing.List[int], [1]),
                T.jit.ignore(_scaled_tanh) is _scaled_tanh,
                T.jit.unused(_scaled_tanh) is _scaled_tanh, T.jit.export(_scaled_tanh) is _scaled_tanh,
                T.jit.isinstance([1, 2], typing.List[int]), T.jit.isinstance([1, "a"], typing.List[int]),
                T.jit.isinstance({"a": 1}, typing.Dict[str, int]), T.jit.isinstance((1, "a"), typing.Tuple[int, str]),
                T.jit.isinstance(None, typing.Optional[int]), T.jit.isinstance(2.0, typing.Optional[int])]
    assert both(scenario) == [False, False, [1], True, True, True, True, False, True, True, True, False]
    assert ndgrad.jit.Attribute(3, int) == 3   # torch with its JIT disabled; enabled, it is a (value, type) pair


@pytest.mark.parametrize("what", ["freeze", "optimize_for_inference"])
def test_what_needs_a_script_module_is_refused_as_torch_refuses_a_plain_module(what):
    same_error(lambda T: getattr(T.jit, what)(T.nn.Linear(2, 2)))


def test_torchscript_files_are_not_available():
    with pytest.raises(NotImplementedError, match="compiles no TorchScript"):
        ndgrad.jit.save(ndgrad.nn.Linear(2, 2), "unused.pt")
    with pytest.raises(NotImplementedError, match="compiles no TorchScript"):
        ndgrad.jit.load("unused.pt")


def test_future_results_callbacks_and_errors():
    def scenario(T):
        f = T.futures.Future()
        doubled = f.then(lambda fut: fut.wait() * 2)
        seen = []
        f.add_done_callback(lambda fut: seen.append(fut.value()))
        out = [f.done(), doubled.done()]
        f.set_result(21)
        out += [f.done(), f.wait(), doubled.wait(), seen, err(lambda: f.set_result(1))]
        e = T.futures.Future()
        e.set_exception(ValueError("bad"))
        out += [err(e.wait), err(e.value), err(lambda: T.futures.wait_all([f, e]))]
        broken = f.then(lambda fut: 1 / 0)
        message = err(broken.wait)
        out.append([message[0], message[1].splitlines()[0]])
        out.append([x.wait() for x in T.futures.collect_all([f, doubled]).wait()])
        out.append(T.futures.wait_all([f, doubled]))
        return out
    r = both(scenario)
    assert r[:6] == [False, False, True, 21, 42, [21]] and r[-1] == [21, 42]
    assert r[10] == ["RuntimeError", "Got the following error when running the callback: ZeroDivisionError: "
                                    "division by zero"]


def test_future_wait_blocks_until_another_thread_completes_it():
    f = ndgrad.futures.Future()
    threading.Timer(0.05, f.set_result, args=("late",)).start()
    assert f.wait() == "late"
    with pytest.raises(AssertionError, match="not an Exception"):
        f.set_exception(3)
