"""Custom autograd Functions of the modules (torch.nn.modules._functions): the legacy CrossMapLRN2d."""
from ...autograd.function import Function
from ...ops.shape import cat, stack


class CrossMapLRN2d(Function):
    """torch's legacy cross-channel LRN (from Lua torch), kept as it computes: the running sum of squares
    over channels it divides by is not LocalResponseNorm's centred window (it drops the wrong channel
    once the window slides), and its backward is the legacy formula, not that sum's exact derivative."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        square = input * input
        pre_pad = int((size - 1) / 2 + 1)
        sums = [square[:, :min(pre_pad, channels)].sum(1)]
        for c in range(1, channels):   # the legacy recurrence: add the channel entering, drop one leaving
            current = sums[-1]
            if c < channels - pre_pad + 1:
                current = current + square[:, c + pre_pad - 1]
            if c > pre_pad:
                current = current - square[:, c - pre_pad]
            sums.append(current)
        ctx.scale = stack(sums, 1) * (alpha / size) + k
        output = ctx.scale.pow(-beta) * input
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        size, channels = ctx.size, input.size(1)
        # output * grad / scale, placed in a channel axis padded to C + size - 1, then summed over
        # each window of `size` padded channels c .. c + size - 1
        ratio = grad_output * output / ctx.scale
        lead = int(size - (size - 1) / 2)
        padded = cat([ratio.new_zeros(ratio.size(0), lead, *ratio.shape[2:]), ratio,
                      ratio.new_zeros(ratio.size(0), size - 1 - lead, *ratio.shape[2:])], 1)
        windows = stack([padded[:, c:c + size].sum(1) for c in range(channels)], 1)
        grad_input = ctx.scale.pow(-ctx.beta) * grad_output - (2 * ctx.alpha * ctx.beta / size) * input * windows
        return grad_input, None, None, None, None
