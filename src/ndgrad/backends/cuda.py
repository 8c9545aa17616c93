"""torch.backends.cuda flags as on a build without CUDA: readable and writable settings that
change nothing on the CPU."""


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    return False


# ---- which scaled_dot_product_attention kernels may run (torch keeps these switches here) ----------
# On the CPU, flash is ndgrad's fused attention kernel (torch's _scaled_dot_product_flash_attention_for_cpu)
# and math its composite; the memory-efficient and cuDNN kernels are CUDA's: their switches change nothing.
_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}
_sdp_reduced_precision_math = [False]


def _switch(kernel):
    """The (query, setter) pair of one kernel's switch: `<kernel>_sdp_enabled()`, `enable_<kernel>_sdp(b)`."""
    def enabled():
        return _sdp_enabled[kernel]

    def enable(on):
        _sdp_enabled[kernel] = bool(on)
    enabled.__name__, enable.__name__ = f"{kernel}_sdp_enabled", f"enable_{kernel}_sdp"
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _switch("cudnn")


def fp16_bf16_reduction_math_sdp_allowed():
    return _sdp_reduced_precision_math[0]


def allow_fp16_bf16_reduction_math_sdp(enabled):
    _sdp_reduced_precision_math[0] = bool(enabled)


def is_flash_attention_available():
    return False   # torch's answer on a build without CUDA (it asks about the CUDA kernel)
