"""AdaptiveLogSoftmaxWithLoss: the clustered softmax of torch.nn.modules.adaptive."""
from ...ops.shape import cat
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module


class _ASMoutput(tuple):
    """AdaptiveLogSoftmaxWithLoss's result: (output, loss), also by name."""
    output = property(lambda self: self[0])
    loss = property(lambda self: self[1])

    def __new__(cls, output, loss):
        return super().__new__(cls, (output, loss))


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of many classes in clusters (Grave et al., 2016): a head scores the `cutoffs[0]`
    frequent classes and one entry per cluster; each cluster's classes get a smaller (div_value-reduced)
    projection. Cheap for large vocabularies whose class frequencies are very unequal (classes sorted by
    frequency, most frequent first).

    Args:
        in_features (int): the size of each input sample.
        n_classes (int): the number of classes.
        cutoffs (list of int): the increasing class indices where the clusters start, in ``[1, n_classes - 1]``.
        div_value (float): each cluster's projection is this many times smaller than the previous one's.
            Default: ``4.0``.
        head_bias (bool): a bias in the head. Default: ``False``.

    Shape:
        Input: `(N, in_features)` or `(in_features)`, with a target `(N)` or `()` of class indices.
        Output: a named tuple `(output, loss)`: the log-probability of each target `(N)`, and the mean
            negative log likelihood. `log_prob(input)` gives all the classes' `(N, n_classes)` and
            `predict(input)` the most likely class.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> asm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[2, 6], div_value=2.0)
        >>> x = torch.randn(4, 8)
        >>> out, loss = asm(x, torch.tensor([0, 3, 7, 9]))
        >>> out.shape, loss.shape
        (torch.Size([4]), torch.Size([]))
        >>> torch.allclose(asm.log_prob(x).exp().sum(1), torch.ones(4))
        True
        >>> asm.predict(x).shape
        torch.Size([4])
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > (n_classes - 1)
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features, self.n_classes, self.div_value, self.head_bias = in_features, n_classes, div_value, head_bias
        self.cutoffs = cutoffs + [n_classes]
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList(
            Sequential(Linear(in_features, int(in_features // (div_value ** (i + 1))), bias=False, dtype=dtype),
                       Linear(int(in_features // (div_value ** (i + 1))), self.cutoffs[i + 1] - self.cutoffs[i],
                              bias=False, dtype=dtype))
            for i in range(self.n_clusters))

    def forward(self, input, target):
        batched = input.dim() == 2
        if not batched:
            if target.dim() != 0:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{tuple(input.shape)}")
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        elif target.dim() != 1 or input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        output = input.new_zeros(target.shape[0])
        head_index = target.clone()   # the head's column each row reads: its class, or its cluster's entry
        bounds = [0] + self.cutoffs
        covered = 0
        for i in range(len(bounds) - 1):
            rows = ((target >= bounds[i]) & (target < bounds[i + 1])).nonzero().reshape(-1)
            covered += rows.numel()
            if i == 0 or rows.numel() == 0:
                continue
            logp = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            local = logp.gather(1, (target.index_select(0, rows) - bounds[i]).unsqueeze(1)).squeeze(1)
            output = output.index_copy(0, rows, local)
            head_index = head_index.index_fill(0, rows, self.shortlist_size + i - 1)
        if covered != target.shape[0]:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logp = F.log_softmax(self.head(input), dim=1)
        output = output + head_logp.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logp = F.log_softmax(head_output, dim=1)
        parts = [head_logp[:, :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            cluster_logp = F.log_softmax(cluster(input), dim=1)
            parts.append(cluster_logp + head_logp[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, 1)

    def log_prob(self, input):
        """log-probabilities of all n_classes classes, (N, n_classes)."""
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each row."""
        return self.log_prob(input).argmax(dim=-1)


__all__ = ["AdaptiveLogSoftmaxWithLoss"]
