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


def flash_sdp_enabled():
    return _sdp_enabled["flash"]


def enable_flash_sdp(enabled):
    _sdp_enabled["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _sdp_enabled["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _sdp_enabled["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    return _sdp_enabled["math"]


def enable_math_sdp(enabled):
    _sdp_enabled["math"] = bool(enabled)


def cudnn_sdp_enabled():
    return _sdp_enabled["cudnn"]


def enable_cudnn_sdp(enabled):
    _sdp_enabled["cudnn"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed():
    return _sdp_reduced_precision_math[0]


def allow_fp16_bf16_reduction_math_sdp(enabled):
    _sdp_reduced_precision_math[0] = bool(enabled)


def is_flash_attention_available():
    return False   # torch's answer on a build without CUDA (it asks about the CUDA kernel)
