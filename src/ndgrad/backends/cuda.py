"""torch.backends.cuda flags as on a build without CUDA: readable and writable settings that
change nothing on the CPU."""


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    return False
