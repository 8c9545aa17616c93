"""Registry entries for ndgrad.masked (see op_db/__init__.py for the format): reductions and
normalizations over the elements a bool mask keeps."""
from . import B, OpInfo, S

_M = B(3, 4, values=[[True, False, True, True], [False, False, True, False], [True, True, True, True]])
_ROW = B(4, values=[True, False, True, True])   # broadcast over the rows

OPS = [
    OpInfo("masked_sum", lambda T, x, m: T.masked.sum(x, 1, mask=m), [S(3, 4), _M], grad_fn="SumBackward1"),
    OpInfo("masked_sum_all", lambda T, x, m: T.masked.sum(x, mask=m), [S(3, 4), _ROW], grad_fn="SumBackward1"),
    OpInfo("masked_prod", lambda T, x, m: T.masked.prod(x, 0, keepdim=True, mask=m), [S(3, 4), _M],
           grad_fn="ProdBackward1"),
    OpInfo("masked_amax", lambda T, x, m: T.masked.amax(x, 1, mask=m), [S(3, 4), _M], grad_fn="AmaxBackward0"),
    OpInfo("masked_amin", lambda T, x, m: T.masked.amin(x, (0, 1), mask=m), [S(3, 4), _M], grad_fn="AminBackward0"),
    OpInfo("masked_mean", lambda T, x, m: T.masked.mean(x, 1, mask=m), [S(3, 4), _M], grad_fn="DivBackward0"),
    OpInfo("masked_var", lambda T, x, m: T.masked.var(x, 1, mask=m, keepdim=True), [S(3, 4), _ROW],
           grad_fn="DivBackward0"),
    OpInfo("masked_std", lambda T, x, m: T.masked.std(x, 1, unbiased=False, mask=m), [S(3, 4), _ROW],
           grad_fn="SqrtBackward0"),
    OpInfo("masked_norm", lambda T, x, m: T.masked.norm(x, 3.0, 1, mask=m), [S(3, 4), _M],
           grad_fn="LinalgVectorNormBackward0"),
    OpInfo("masked_logsumexp", lambda T, x, m: T.masked.logsumexp(x, 1, mask=m), [S(3, 4), _ROW],
           grad_fn="LogsumexpBackward0"),
    OpInfo("masked_softmax", lambda T, x, m: T.masked.softmax(x, 1, mask=m), [S(3, 4), _ROW],
           grad_fn="SoftmaxBackward0"),
    # masked-out outputs are -inf: compared where the mask keeps them
    OpInfo("masked_log_softmax", lambda T, x, m: T.where(m, T.masked.log_softmax(x, 0, mask=m), 0.0),
           [S(3, 4), _ROW], grad_fn="WhereBackward0"),
    OpInfo("masked_cumsum", lambda T, x, m: T.masked.cumsum(x, 1, mask=m), [S(3, 4), _M], grad_fn="CumsumBackward0"),
    OpInfo("masked_normalize", lambda T, x, m: T.masked.normalize(x, 2.0, 1, mask=m), [S(3, 4), _M],
           grad_fn="DivBackward0"),
    OpInfo("masked_median", lambda T, x, m: T.masked.median(x, 1, mask=m), [S(3, 4), _ROW],
           grad_fn="NanmedianBackward1"),
    # the second derivative at a masked-out (-inf) input is nan, in torch too: no gradgradcheck
    OpInfo("masked_logaddexp", lambda T, x, y, m: T.masked.logaddexp(x, y, input_mask=m),
           [S(3, 4), S(3, 4), _M], grad_fn="LogaddexpBackward0", gradgrad=False),
]
