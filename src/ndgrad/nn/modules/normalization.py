"""Normalization layers: BatchNorm1d/2d/3d (with running statistics), InstanceNorm1d/2d/3d,
LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d (torch's legacy LRN) and
SyncBatchNorm (BatchNorm whose statistics a process group would share)."""
from ..._dtype import int64
from ...ops.creation import empty, tensor
from .. import functional as F, init
from . import _functions
from ..parameter import Parameter
from .module import Module
from .utils import _factory


class _NormBase(Module):
    """Running statistics and affine parameters shared by BatchNorm and InstanceNorm."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        dt = _factory(dtype)
        if affine:
            self.weight = Parameter(empty(num_features, dtype=dt))
            if bias:
                self.bias = Parameter(empty(num_features, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", empty(num_features, dtype=dt))
            self.register_buffer("running_var", empty(num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:   # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization: each channel is normalised by the mean and variance over the batch,
    ``(x - mean) / sqrt(var + eps) * weight + bias``.

    In training the batch statistics are used (biased variance) and the running statistics updated
    (``running = (1 - momentum) * running + momentum * batch``, with the unbiased variance); in evaluation
    the running statistics are used instead.

    Args:
        num_features (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics; ``None`` for
            a cumulative average. Default: ``0.1``.
        affine (bool): learn `weight` and `bias`. Default: ``True``.
        track_running_stats (bool): keep running statistics (else batch statistics are always used).
            Default: ``True``.
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Attributes:
        weight (Tensor): the learnable scale, of shape `(C)`, initialised to ones.
        bias (Tensor): the learnable shift, of shape `(C)`, initialised to zeros.
        running_mean (Tensor): a buffer of shape `(C)`, initialised to zeros.
        running_var (Tensor): a buffer of shape `(C)`, initialised to ones.

    Shape:
        Input: `(N, C)` or `(N, C, L)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.BatchNorm1d(2)
        >>> m(torch.tensor([[1.0, 10.0], [3.0, 30.0]]))
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]], grad_fn=<NativeBatchNormBackward0>)
        >>> m.running_mean
        tensor([0.2000, 2.0000])
    """
    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization: each channel is normalised by the mean and variance over the batch
    and the spatial dimensions, ``(x - mean) / sqrt(var + eps) * weight + bias``.

    In training the batch statistics are used (biased variance) and the running statistics updated
    (``running = (1 - momentum) * running + momentum * batch``, with the unbiased variance); in evaluation
    the running statistics are used instead.

    Args:
        num_features (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics; ``None`` for
            a cumulative average. Default: ``0.1``.
        affine (bool): learn `weight` and `bias`. Default: ``True``.
        track_running_stats (bool): keep running statistics (else batch statistics are always used).
            Default: ``True``.
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Attributes:
        weight (Tensor): the learnable scale, of shape `(C)`, initialised to ones.
        bias (Tensor): the learnable shift, of shape `(C)`, initialised to zeros.
        running_mean (Tensor): a buffer of shape `(C)`, initialised to zeros.
        running_var (Tensor): a buffer of shape `(C)`, initialised to ones.

    Shape:
        Input: `(N, C, H, W)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.BatchNorm2d(2)
        >>> m(torch.arange(8.0).view(2, 2, 1, 2)).flatten()
        tensor([-1.2127, -0.7276, -1.2127, -0.7276,  0.7276,  1.2127,  0.7276,  1.2127],
               grad_fn=<ViewBackward0>)
        >>> m.running_mean
        tensor([0.2500, 0.4500])
    """
    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization: each channel is normalised by the mean and variance over the batch
    and the spatial dimensions, ``(x - mean) / sqrt(var + eps) * weight + bias``.

    In training the batch statistics are used (biased variance) and the running statistics updated
    (``running = (1 - momentum) * running + momentum * batch``, with the unbiased variance); in evaluation
    the running statistics are used instead.

    Args:
        num_features (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics; ``None`` for
            a cumulative average. Default: ``0.1``.
        affine (bool): learn `weight` and `bias`. Default: ``True``.
        track_running_stats (bool): keep running statistics (else batch statistics are always used).
            Default: ``True``.
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Attributes:
        weight (Tensor): the learnable scale, of shape `(C)`, initialised to ones.
        bias (Tensor): the learnable shift, of shape `(C)`, initialised to zeros.
        running_mean (Tensor): a buffer of shape `(C)`, initialised to zeros.
        running_var (Tensor): a buffer of shape `(C)`, initialised to ones.

    Shape:
        Input: `(N, C, D, H, W)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.BatchNorm3d(2)
        >>> m(torch.arange(8.0).view(2, 2, 1, 1, 2)).flatten()
        tensor([-1.2127, -0.7276, -1.2127, -0.7276,  0.7276,  1.2127,  0.7276,  1.2127],
               grad_fn=<ViewBackward0>)
        >>> m.running_mean
        tensor([0.2500, 0.4500])
    """
    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _InstanceNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False,
                 device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        n = self._dims + 2
        if input.dim() not in (n - 1, n):
            raise ValueError(f"expected {n - 1}D or {n}D input (got {input.dim()}D input)")
        unbatched = input.dim() == n - 1
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization: each channel of each sample is normalised by its own mean and
    variance over the spatial dimensions, ``(x - mean) / sqrt(var + eps) * weight + bias``.

    Args:
        num_features (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new statistics in the running ones. Default: ``0.1``.
        affine (bool): learn a per-channel `weight` and `bias`. Default: ``False``.
        track_running_stats (bool): keep running statistics and use them in evaluation. Default: ``False``.
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Attributes:
        weight (Tensor): with `affine`, the learnable scale of shape `(C)`, initialised to ones.
        bias (Tensor): with `affine`, the learnable shift of shape `(C)`, initialised to zeros.

    Shape:
        Input: `(N, C, L)` or `(C, L)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.InstanceNorm1d(2)
        >>> m(torch.tensor([[[0.0, 2.0], [1.0, 5.0]]]))
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization: each channel of each sample is normalised by its own mean and
    variance over the spatial dimensions, ``(x - mean) / sqrt(var + eps) * weight + bias``.

    Args:
        num_features (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new statistics in the running ones. Default: ``0.1``.
        affine (bool): learn a per-channel `weight` and `bias`. Default: ``False``.
        track_running_stats (bool): keep running statistics and use them in evaluation. Default: ``False``.
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Attributes:
        weight (Tensor): with `affine`, the learnable scale of shape `(C)`, initialised to ones.
        bias (Tensor): with `affine`, the learnable shift of shape `(C)`, initialised to zeros.

    Shape:
        Input: `(N, C, H, W)` or `(C, H, W)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.InstanceNorm2d(2)
        >>> m(torch.tensor([[[0.0, 2.0], [1.0, 5.0]]]).view(1, 2, 1, 2)).flatten()
        tensor([-1.0000,  1.0000, -1.0000,  1.0000])
    """
    _dims = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization: each channel of each sample is normalised by its own mean and
    variance over the spatial dimensions, ``(x - mean) / sqrt(var + eps) * weight + bias``.

    Args:
        num_features (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new statistics in the running ones. Default: ``0.1``.
        affine (bool): learn a per-channel `weight` and `bias`. Default: ``False``.
        track_running_stats (bool): keep running statistics and use them in evaluation. Default: ``False``.
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Attributes:
        weight (Tensor): with `affine`, the learnable scale of shape `(C)`, initialised to ones.
        bias (Tensor): with `affine`, the learnable shift of shape `(C)`, initialised to zeros.

    Shape:
        Input: `(N, C, D, H, W)` or `(C, D, H, W)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.InstanceNorm3d(2)
        >>> m(torch.tensor([[[0.0, 2.0], [1.0, 5.0]]]).view(1, 2, 1, 1, 2)).flatten()
        tensor([-1.0000,  1.0000, -1.0000,  1.0000])
    """
    _dims = 3


class LayerNorm(Module):
    """Layer normalization: normalises over the last dimensions (`normalized_shape`) of each sample,
    ``(x - mean) / sqrt(var + eps) * weight + bias``, in training and evaluation alike.

    Args:
        normalized_shape (int or tuple): the shape of the trailing dimensions to normalise over.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        elementwise_affine (bool): learn a `weight` (and a `bias`) of shape `normalized_shape`.
            Default: ``True``.
        bias (bool): learn `bias` (with `elementwise_affine`). Default: ``True``.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Attributes:
        weight (Tensor): the learnable scale, initialised to ones.
        bias (Tensor): the learnable shift, initialised to zeros.

    Shape:
        Input: `(N, *)`, ending with `normalized_shape`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.LayerNorm(3)
        >>> m(torch.tensor([[1.0, 2.0, 3.0], [2.0, 2.0, 8.0]]))
        tensor([[-1.2247,  0.0000,  1.2247],
                [-0.7071, -0.7071,  1.4142]], grad_fn=<NativeLayerNormBackward0>)
    """
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) \
            else (normalized_shape,)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        dt = _factory(dtype)
        if elementwise_affine:
            self.weight = Parameter(empty(*self.normalized_shape, dtype=dt))
            if bias:
                self.bias = Parameter(empty(*self.normalized_shape, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalization: the channels are split in `num_groups` groups, and each group of each
    sample is normalised by its own mean and variance; then a per-channel affine transform.

    Args:
        num_groups (int): the number of groups; it divides `num_channels`.
        num_channels (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        affine (bool): learn a per-channel `weight` and `bias`. Default: ``True``.
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Attributes:
        weight (Tensor): the learnable scale, of shape `(C)`, initialised to ones.
        bias (Tensor): the learnable shift, of shape `(C)`, initialised to zeros.

    Shape:
        Input: `(N, C, *)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.GroupNorm(2, 4)
        >>> m(torch.tensor([[0.0, 2.0, 1.0, 1.0]]))
        tensor([[-1.0000,  1.0000,  0.0000,  0.0000]],
               grad_fn=<NativeGroupNormBackward0>)
    """
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        if affine:
            self.weight = Parameter(empty(num_channels, dtype=_factory(dtype)))
            init.ones_(self.weight)
            if bias:
                self.bias = Parameter(empty(num_channels, dtype=_factory(dtype)))
                init.zeros_(self.bias)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Root mean square normalization: divides the last dimensions (`normalized_shape`) by their root
    mean square, ``x / sqrt(mean(x ** 2) + eps) * weight``; no mean is subtracted.

    Args:
        normalized_shape (int or tuple): the shape of the trailing dimensions to normalise over.
        eps (float, optional): added to the mean square; ``None`` is the dtype's machine epsilon.
        elementwise_affine (bool): learn a `weight` of shape `normalized_shape`. Default: ``True``.

    Attributes:
        weight (Tensor): the learnable scale, initialised to ones.

    Shape:
        Input: `(N, *)`, ending with `normalized_shape`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.RMSNorm(2)
        >>> m(torch.tensor([[3.0, 4.0], [1.0, -1.0]]))
        tensor([[ 0.8485,  1.1314],
                [ 1.0000, -1.0000]], grad_fn=<MulBackward0>)
    """
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) \
            else (normalized_shape,)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(*self.normalized_shape, dtype=_factory(dtype)))
            init.ones_(self.weight)
        else:
            self.register_parameter("weight", None)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Local response normalization: divides each element by a power of the sum of squares over the
    `size` neighbouring channels, ``x / (k + alpha / size * sum(x ** 2)) ** beta``.

    Args:
        size (int): the number of neighbouring channels summed over.
        alpha (float): the multiplicative factor. Default: ``1e-4``.
        beta (float): the exponent. Default: ``0.75``.
        k (float): the additive factor. Default: ``1.0``.

    Shape:
        Input: `(N, C, *)`.
        Output: the shape of the input.

    Example::

        >>> m = torch.nn.LocalResponseNorm(2, alpha=1.0)
        >>> m(torch.tensor([[[1.0], [2.0], [3.0]]]))
        tensor([[[0.7378],
                 [0.7816],
                 [0.6620]]])
    """
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """torch's legacy cross-channel local response normalization of a 4-D input `(N, C, H, W)`:
    ``x / (k + alpha / size * s) ** beta``, `s` a running sum of squares over neighbouring channels
    as Lua torch computed it (close to, but not exactly, :class:`LocalResponseNorm`'s).

    Args:
        size (int): the number of neighbouring channels summed over.
        alpha (float): the multiplicative factor. Default: ``1e-4``.
        beta (float): the exponent. Default: ``0.75``.
        k (float): the additive factor. Default: ``1``.

    Example::

        >>> m = torch.nn.CrossMapLRN2d(3, alpha=1.0)
        >>> m(torch.ones(1, 4, 1, 1)).flatten()
        tensor([0.6817, 0.5946, 0.5297, 0.5946])
    """
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _functions.CrossMapLRN2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# ndgrad.distributed (a layer above nn, imported on first use) sets this to a function of a process
# group that returns its world size when the default group is initialized, else None
_distributed_world_size = None


class SyncBatchNorm(_BatchNorm):
    """Batch normalization whose batch statistics are gathered over the processes of a group, for
    inputs of any rank ≥ 2 `(N, C, *)` (the statistics are per channel `C`).

    Without an initialized process group of several processes (and always in evaluation) it is
    :class:`BatchNorm1d`'s computation. Synchronizing needs GPU tensors in torch; ndgrad's tensors
    live on the CPU, so a synchronizing call raises torch's error for CPU inputs.

    Args:
        num_features (int): the number of channels `C`.
        eps (float): added to the variance, for stability. Default: ``1e-5``.
        momentum (float, optional): the weight of the new batch in the running statistics; ``None`` for
            a cumulative average. Default: ``0.1``.
        affine (bool): learn `weight` and `bias`. Default: ``True``.
        track_running_stats (bool): keep running statistics. Default: ``True``.
        process_group (ProcessGroup, optional): the group to synchronize over (the default group if None).
        bias (bool): learn `bias` (with `affine`). Default: ``True``.

    Example::

        >>> m = torch.nn.SyncBatchNorm(2)
        >>> m(torch.tensor([[[1.0], [10.0]], [[3.0], [30.0]]])).flatten()
        tensor([-1.0000, -1.0000,  1.0000,  1.0000], grad_fn=<ViewBackward0>)
    """
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if self.training and _distributed_world_size is not None:   # eval never synchronizes
            world = _distributed_world_size(self.process_group)
            if world is not None:
                # torch checks the device before the group's size: only GPU-like inputs can synchronize
                if input.device.type not in ("cuda", "hpu", "xpu", "privateuseone"):
                    raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone")
                if world > 1:
                    raise NotImplementedError("SyncBatchNorm: synchronizing batch statistics across processes "
                                              "is not implemented in ndgrad")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """A copy of `module` whose BatchNorm layers (at any depth) are SyncBatchNorm layers sharing
        their parameters and running statistics.

        Example::

            >>> m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
            >>> torch.nn.SyncBatchNorm.convert_sync_batchnorm(m)[1]
            SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        """
        output = module
        if isinstance(module, _BatchNorm):
            output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                   module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                output.weight, output.bias = module.weight, module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return output


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d", "SyncBatchNorm"]
