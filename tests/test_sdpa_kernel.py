"""torch.nn.attention.sdpa_kernel: the kernel scaled_dot_product_attention uses, as torch chooses it on the CPU."""
import pytest

import ndgrad

from parity import both, err, same_error


def _run(T, backends, **kw):
    from importlib import import_module
    attention = import_module(T.__name__ + ".nn.attention")
    q = T.linspace(-1, 1, 64, dtype=T.float64).reshape(1, 2, 4, 8).requires_grad_()
    with attention.sdpa_kernel([getattr(attention.SDPBackend, b) for b in backends]):
        out = T.nn.functional.scaled_dot_product_attention(q, q * 0.5, q.flip(-1), **kw)
        switches = [T.backends.cuda.flash_sdp_enabled(), T.backends.cuda.math_sdp_enabled(),
                    T.backends.cuda.mem_efficient_sdp_enabled(), T.backends.cuda.cudnn_sdp_enabled()]
    out.sum().backward()
    return [out.grad_fn.name(), out, q.grad, switches,
            [T.backends.cuda.flash_sdp_enabled(), T.backends.cuda.math_sdp_enabled()]]


@pytest.mark.parametrize("backends", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION", "MATH"],
                                      ["MATH", "FLASH_ATTENTION"]])
def test_the_allowed_kernel_runs_and_the_switches_come_back(backends):
    r = both(lambda T: _run(T, backends))
    assert r[0] == ("ScaledDotProductFlashAttentionForCpuBackward0" if "FLASH_ATTENTION" in backends
                    else "UnsafeViewBackward0")
    assert r[-1] == [True, True]


@pytest.mark.parametrize("backends,kw", [(["EFFICIENT_ATTENTION"], {}), (["CUDNN_ATTENTION"], {}),
                                         (["FLASH_ATTENTION"], {"dropout_p": 0.5})])
def test_no_kernel_that_can_run_is_torch_error(backends, kw):
    same_error(lambda T: _run(T, backends, **kw))


def test_backends_must_be_sdp_backends():
    same_error(lambda T: T.nn.attention.sdpa_kernel("math").__enter__(), AssertionError)


def test_backend_values_and_cuda_only_answers():
    def scenario(T):
        b = T.nn.attention.SDPBackend
        return [[int(m) for m in (b.ERROR, b.MATH, b.FLASH_ATTENTION, b.EFFICIENT_ATTENTION, b.CUDNN_ATTENTION,
                                  b.OVERRIDEABLE)], T.backends.cuda.is_flash_attention_available(),
                T.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()]
    assert both(scenario)[0] == [-1, 0, 1, 2, 3, 4]
