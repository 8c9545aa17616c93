"""Docstrings of the other ops of the `ndgrad` namespace: creation, shape, indexing, linear algebra,
random sampling, convolution, pooling, normalization, losses... (objects from the other ndgrad/ops modules).
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
    "adjoint": r"""The conjugate transpose of the last two dimensions of `input`, as a view.

Args:
    input (Tensor): a tensor with at least two dimensions.

Returns:
    Tensor: a view; for real tensors the same as ``input.transpose(-2, -1)``.

Example::

    >>> x = torch.tensor([[1 + 2j, 3j], [4, 5 - 1j]])
    >>> torch.adjoint(x)
    tensor([[1.-2.j, 4.-0.j],
            [0.-3.j, 5.+1.j]])
""",
    "as_strided": r"""A view of `input`'s storage with the given sizes and strides.

Each element of the result is read at ``storage_offset + sum(index[d] * stride[d])`` of the
storage behind `input`. Misused strides can make elements overlap; prefer the ordinary view ops.

Args:
    input (Tensor): the tensor whose storage is viewed.
    size (tuple of ints): the shape of the result.
    stride (tuple of ints): the step in the storage for each dimension.
    storage_offset (int, optional): the first element's position in the storage (default: `input`'s).

Returns:
    Tensor: the view.

Example::

    >>> x = torch.arange(6.)
    >>> torch.as_strided(x, (2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
""",
    "as_strided_scatter": r"""A copy of `input` where the elements that :func:`ndgrad.as_strided` with the same
arguments would view are replaced by `src`.

Args:
    input (Tensor): the tensor to copy.
    src (Tensor): the values to write, of shape `size`.
    size (tuple of ints): the shape of the strided view.
    stride (tuple of ints): the strides of the strided view.
    storage_offset (int, optional): the view's first element in the storage.

Returns:
    Tensor: a new tensor shaped like `input`.

Example::

    >>> torch.as_strided_scatter(torch.zeros(4), torch.ones(2), (2,), (2,))
    tensor([1., 0., 1., 0.])
""",
    "atleast_1d": r"""Each input as a tensor with at least one dimension (a scalar becomes a one-element vector).

Args:
    tensors (Tensor or sequence of Tensors): the inputs.

Returns:
    Tensor or tuple of Tensors: one result for one input, else a tuple.

Example::

    >>> torch.atleast_1d(torch.tensor(3.))
    tensor([3.])
    >>> torch.atleast_1d(torch.tensor(1), torch.tensor([2, 3]))
    (tensor([1]), tensor([2, 3]))
""",
    "atleast_2d": r"""Each input as a tensor with at least two dimensions (a vector of n becomes a 1 x n matrix).

Args:
    tensors (Tensor or sequence of Tensors): the inputs.

Returns:
    Tensor or tuple of Tensors: one result for one input, else a tuple.

Example::

    >>> torch.atleast_2d(torch.tensor([1., 2.]))
    tensor([[1., 2.]])
""",
    "atleast_3d": r"""Each input as a tensor with at least three dimensions (a vector of n becomes 1 x n x 1, a matrix
m x n becomes m x n x 1).

Args:
    tensors (Tensor or sequence of Tensors): the inputs.

Returns:
    Tensor or tuple of Tensors: one result for one input, else a tuple.

Example::

    >>> torch.atleast_3d(torch.tensor([1., 2.])).shape
    torch.Size([1, 2, 1])
""",
    "broadcast_tensors": r"""The inputs expanded to their common broadcast shape (views, no copy).

Args:
    tensors (Tensor): tensors whose shapes broadcast together.

Returns:
    tuple of Tensors: one view per input, all of the broadcast shape.

Example::

    >>> a, b = torch.broadcast_tensors(torch.tensor([[1], [2]]), torch.tensor([10, 20, 30]))
    >>> a
    tensor([[1, 1, 1],
            [2, 2, 2]])
    >>> b.shape
    torch.Size([2, 3])
""",
    "broadcast_to": r"""broadcast_to(input, size) -> Tensor

`input` expanded to `size` by broadcasting (a view; the same as ``input.expand(size)``).

Args:
    input (Tensor): the tensor to broadcast.
    size (tuple of ints): the target shape; ``-1`` keeps a dimension's size.

Returns:
    Tensor: a view of shape `size`.

Example::

    >>> torch.broadcast_to(torch.tensor([1, 2, 3]), (2, 3))
    tensor([[1, 2, 3],
            [1, 2, 3]])
""",
    "cartesian_prod": r"""The cartesian product of 1-D tensors: each row is one combination, the last input varying fastest.

Args:
    tensors (Tensor): one-dimensional tensors.

Returns:
    Tensor: of shape (product of the lengths, number of inputs); with one input, that input.

Example::

    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
""",
    "cat": r"""The tensors joined along an existing dimension `dim`.

All tensors must have the same shape except in `dim` (1-D empty tensors are skipped); their dtypes
are promoted to a common one.

Args:
    tensors (sequence of Tensors): the tensors to join.
    dim (int, optional): the dimension to join along.

Returns:
    Tensor: the joined tensor.

Example::

    >>> x = torch.tensor([[1, 2], [3, 4]])
    >>> torch.cat([x, x], dim=0)
    tensor([[1, 2],
            [3, 4],
            [1, 2],
            [3, 4]])
    >>> torch.cat((x, x), dim=1)
    tensor([[1, 2, 1, 2],
            [3, 4, 3, 4]])
""",
    "chunk": r"""`input` split into `chunks` pieces along `dim` (views); the last may be smaller, and fewer
pieces come back when the size does not allow that many.

Args:
    input (Tensor): the tensor to split.
    chunks (int): the number of pieces wanted.
    dim (int, optional): the dimension to split.

Returns:
    tuple of Tensors: the pieces.

Example::

    >>> torch.chunk(torch.arange(5), 3)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
""",
    "column_stack": r"""The tensors placed side by side as columns: 0-D and 1-D inputs become columns, the
others are joined along dimension 1.

Args:
    tensors (sequence of Tensors): the tensors to stack.

Returns:
    Tensor: the result.

Example::

    >>> torch.column_stack((torch.tensor([1, 2]), torch.tensor([3, 4])))
    tensor([[1, 3],
            [2, 4]])
""",
    "concat": r"""Alias of :func:`ndgrad.cat`.

Example::

    >>> torch.concat((torch.tensor([1]), torch.tensor([2, 3])))
    tensor([1, 2, 3])
""",
    "concatenate": r"""Alias of :func:`ndgrad.cat` (NumPy's name; the dimension is called `axis`).

Example::

    >>> torch.concatenate((torch.tensor([[1]]), torch.tensor([[2]])), axis=1)
    tensor([[1, 2]])
""",
    "diagflat": r"""A 2-D tensor with the elements of `input` (flattened) on its `offset`-th diagonal and zeros elsewhere.

Args:
    input (Tensor): the diagonal values.
    offset (int, optional): 0 the main diagonal, > 0 above it, < 0 below.

Returns:
    Tensor: a square matrix.

Example::

    >>> torch.diagflat(torch.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
""",
    "diagonal": r"""A view of the diagonal of `input` in the plane of dimensions `dim1` and `dim2`; that
diagonal becomes the last dimension.

Args:
    input (Tensor): a tensor with at least two dimensions.
    offset (int, optional): 0 the main diagonal, > 0 above it, < 0 below.
    dim1 (int, optional): the first dimension of the plane.
    dim2 (int, optional): the second dimension of the plane.

Returns:
    Tensor: the view.

Example::

    >>> x = torch.arange(9).reshape(3, 3)
    >>> torch.diagonal(x)
    tensor([0, 4, 8])
    >>> torch.diagonal(x, offset=1)
    tensor([1, 5])
""",
    "diagonal_scatter": r"""A copy of `input` whose diagonal (as chosen by :func:`ndgrad.diagonal`) is replaced by `src`.

Args:
    input (Tensor): the tensor to copy.
    src (Tensor): the new diagonal.
    offset (int, optional): which diagonal.
    dim1 (int, optional): the first dimension of the plane.
    dim2 (int, optional): the second dimension of the plane.

Returns:
    Tensor: a new tensor shaped like `input`.

Example::

    >>> torch.diagonal_scatter(torch.zeros(2, 2), torch.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
""",
    "dsplit": r"""`input` split along its third dimension (depth), as :func:`ndgrad.tensor_split` with ``dim=2``;
`sections` must divide that dimension when it is an int.

Args:
    input (Tensor): a tensor with at least three dimensions.
    sections (int or list of ints): the number of equal pieces, or the indices to split before.

Returns:
    tuple of Tensors: the pieces (views).

Example::

    >>> [p.shape for p in torch.dsplit(torch.zeros(1, 2, 4), 2)]
    [torch.Size([1, 2, 2]), torch.Size([1, 2, 2])]
""",
    "dstack": r"""The tensors joined along the third dimension (depth), after :func:`ndgrad.atleast_3d`.

Args:
    tensors (sequence of Tensors): the tensors to join.

Returns:
    Tensor: the result.

Example::

    >>> torch.dstack((torch.tensor([1, 2]), torch.tensor([3, 4])))
    tensor([[[1, 3],
             [2, 4]]])
""",
    "expand": r"""expand(*sizes) -> Tensor

A view of the tensor with its size-1 dimensions repeated to `sizes`, without copying (the repeated
elements share memory). ``-1`` keeps a dimension's size; new leading dimensions may be added.
(Torch has it only as the method ``Tensor.expand``.)

Args:
    sizes (ints or torch.Size): the target shape.

Returns:
    Tensor: the view.

Example::

    >>> torch.tensor([[1], [2]]).expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
""",
    "flatten": r"""`input` with the dimensions from `start_dim` to `end_dim` merged into one (a view when possible).

Args:
    input (Tensor): the input.
    start_dim (int, optional): the first dimension to merge.
    end_dim (int, optional): the last dimension to merge.

Returns:
    Tensor: the flattened tensor; a 0-D input gives a one-element vector.

Example::

    >>> x = torch.zeros(2, 3, 4)
    >>> torch.flatten(x).shape
    torch.Size([24])
    >>> torch.flatten(x, start_dim=1).shape
    torch.Size([2, 12])
""",
    "flip": r"""A copy of `input` with the order of its elements reversed along each dimension in `dims`.

Args:
    input (Tensor): the input.
    dims (int or tuple of ints): the dimensions to reverse.

Returns:
    Tensor: the reversed copy.

Example::

    >>> torch.flip(torch.tensor([[1, 2], [3, 4]]), [0, 1])
    tensor([[4, 3],
            [2, 1]])
""",
    "fliplr": r"""`input` reversed left to right (along dimension 1); it must have at least two dimensions.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the reversed copy.

Example::

    >>> torch.fliplr(torch.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1],
            [4, 3]])
""",
    "flipud": r"""`input` reversed upside down (along dimension 0).

Args:
    input (Tensor): a tensor with at least one dimension.

Returns:
    Tensor: the reversed copy.

Example::

    >>> torch.flipud(torch.tensor([[1, 2], [3, 4]]))
    tensor([[3, 4],
            [1, 2]])
""",
    "hsplit": r"""`input` split horizontally: along dimension 1, or 0 for a 1-D tensor (see :func:`ndgrad.tensor_split`).

Args:
    input (Tensor): the input.
    sections (int or list of ints): the number of equal pieces, or the indices to split before.

Returns:
    tuple of Tensors: the pieces (views).

Example::

    >>> torch.hsplit(torch.arange(4), 2)
    (tensor([0, 1]), tensor([2, 3]))
""",
    "hstack": r"""The tensors joined horizontally: along dimension 1, or 0 for 1-D tensors.

Args:
    tensors (sequence of Tensors): the tensors to join.

Returns:
    Tensor: the result.

Example::

    >>> torch.hstack((torch.tensor([1, 2]), torch.tensor([3])))
    tensor([1, 2, 3])
""",
    "is_same_size": r"""Whether `input` and `other` have the same shape.

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.

Returns:
    bool: ``True`` when the shapes are equal.

Example::

    >>> torch.is_same_size(torch.zeros(2, 3), torch.ones(2, 3))
    True
""",
    "is_signed": r"""Whether the dtype of `input` can hold negative values (every dtype but ``uint8`` and ``bool``).

Args:
    input (Tensor): the input.

Returns:
    bool: ``True`` for a signed dtype.

Example::

    >>> torch.is_signed(torch.tensor([1], dtype=torch.uint8))
    False
""",
    "moveaxis": r"""Alias of :func:`ndgrad.movedim`.

Example::

    >>> torch.moveaxis(torch.zeros(2, 3, 4), 0, -1).shape
    torch.Size([3, 4, 2])
""",
    "movedim": r"""A view of `input` with the dimensions in `source` moved to the positions in `destination`;
the other dimensions keep their order.

Args:
    input (Tensor): the input.
    source (int or tuple of ints): the dimensions to move.
    destination (int or tuple of ints): where they go.

Returns:
    Tensor: the view.

Example::

    >>> torch.movedim(torch.zeros(2, 3, 4), 1, 0).shape
    torch.Size([3, 2, 4])
""",
    "narrow": r"""A view of `input` restricted to `length` elements of dimension `dim` from `start`.

Args:
    input (Tensor): the input.
    dim (int): the dimension to narrow.
    start (int or Tensor): the first element kept.
    length (int): how many elements are kept.

Returns:
    Tensor: the view.

Example::

    >>> torch.narrow(torch.arange(9).reshape(3, 3), 1, 1, 2)
    tensor([[1, 2],
            [4, 5],
            [7, 8]])
""",
    "permute": r"""A view of `input` with its dimensions in the order `dims`.

Args:
    input (Tensor): the input.
    dims (tuple of ints): a permutation of the dimensions.

Returns:
    Tensor: the view.

Example::

    >>> torch.permute(torch.zeros(2, 3, 4), (2, 0, 1)).shape
    torch.Size([4, 2, 3])
""",
    "ravel": r"""`input` as a 1-D tensor (a view when its memory is contiguous, else a copy).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the flattened tensor.

Example::

    >>> torch.ravel(torch.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
""",
    "reshape": r"""`input`'s elements with the shape `shape`: a view when the strides allow one, else a copy.

One dimension may be ``-1``; it is inferred from the number of elements.

Args:
    input (Tensor): the input.
    shape (tuple of ints): the new shape.

Returns:
    Tensor: the reshaped tensor.

Example::

    >>> torch.reshape(torch.arange(6), (2, 3))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    >>> torch.reshape(torch.arange(6), (-1, 2)).shape
    torch.Size([3, 2])
""",
    "roll": r"""`input` with its elements shifted cyclically by `shifts` along `dims` (elements pushed off
one end come back at the other); without `dims`, the tensor is shifted as if flattened.

Args:
    input (Tensor): the input.
    shifts (int or tuple of ints): the number of places to shift, per dimension.
    dims (int or tuple of ints, optional): the dimensions to shift.

Returns:
    Tensor: the shifted copy.

Example::

    >>> torch.roll(torch.tensor([1, 2, 3, 4]), 1)
    tensor([4, 1, 2, 3])
    >>> torch.roll(torch.tensor([[1, 2], [3, 4]]), -1, dims=1)
    tensor([[2, 1],
            [4, 3]])
""",
    "row_stack": r"""Alias of :func:`ndgrad.vstack`.

Example::

    >>> torch.row_stack((torch.tensor([1, 2]), torch.tensor([3, 4])))
    tensor([[1, 2],
            [3, 4]])
""",
    "split_with_sizes": r"""`input` split along `dim` into pieces of the given sizes (views); the sizes must add up
to the dimension's size.

Args:
    input (Tensor): the input.
    split_sizes (list of ints): the size of each piece.
    dim (int, optional): the dimension to split.

Returns:
    tuple of Tensors: the pieces.

Example::

    >>> torch.split_with_sizes(torch.arange(5), [2, 3])
    (tensor([0, 1]), tensor([2, 3, 4]))
""",
    "squeeze": r"""squeeze(input, dim=None) -> Tensor

A view of `input` without its dimensions of size 1 (only those in `dim`, when given; a listed
dimension whose size is not 1 is left as it is).

Args:
    input (Tensor): the input.
    dim (int or tuple of ints, optional): the dimensions to remove.

Returns:
    Tensor: the view.

Example::

    >>> x = torch.zeros(2, 1, 3, 1)
    >>> torch.squeeze(x).shape
    torch.Size([2, 3])
    >>> torch.squeeze(x, 1).shape
    torch.Size([2, 3, 1])
""",
    "stack": r"""The tensors joined along a new dimension `dim`; all must have the same shape.

Args:
    tensors (sequence of Tensors): the tensors to join.
    dim (int, optional): the position of the new dimension.

Returns:
    Tensor: a tensor with one dimension more than the inputs.

Example::

    >>> a, b = torch.tensor([1, 2]), torch.tensor([3, 4])
    >>> torch.stack((a, b))
    tensor([[1, 2],
            [3, 4]])
    >>> torch.stack((a, b), dim=1)
    tensor([[1, 3],
            [2, 4]])
""",
    "swapaxes": r"""Alias of :func:`ndgrad.transpose`.

Example::

    >>> torch.swapaxes(torch.zeros(2, 3), 0, 1).shape
    torch.Size([3, 2])
""",
    "swapdims": r"""Alias of :func:`ndgrad.transpose`.

Example::

    >>> torch.swapdims(torch.zeros(2, 3), 0, 1).shape
    torch.Size([3, 2])
""",
    "t": r"""`input` transposed when it has two dimensions (a view); a 0-D or 1-D tensor comes back as it is.

Args:
    input (Tensor): a tensor with at most two dimensions.

Returns:
    Tensor: the view.

Example::

    >>> torch.t(torch.tensor([[1, 2, 3]]))
    tensor([[1],
            [2],
            [3]])
""",
    "tensor_split": r"""`input` split along `dim` into views: into `indices` nearly equal pieces when it is an int
(the first pieces one element larger), or before each index of a list.

Args:
    input (Tensor): the input.
    indices (int or list of ints): the number of pieces, or the split points.
    dim (int, optional): the dimension to split.

Returns:
    tuple of Tensors: the pieces.

Example::

    >>> torch.tensor_split(torch.arange(5), 2)
    (tensor([0, 1, 2]), tensor([3, 4]))
    >>> torch.tensor_split(torch.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3]), tensor([4]))
""",
    "tile": r"""`input` repeated `dims[i]` times along each dimension i. When `dims` has fewer entries than
`input` has dimensions, ones are put in front of it; when it has more, `input` gets leading dimensions of size 1.

Args:
    input (Tensor): the input.
    dims (tuple of ints): the repetitions per dimension.

Returns:
    Tensor: the tiled copy.

Example::

    >>> torch.tile(torch.tensor([1, 2]), (2, 2))
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
""",
    "transpose": r"""A view of `input` with dimensions `dim0` and `dim1` swapped.

Args:
    input (Tensor): the input.
    dim0 (int): the first dimension.
    dim1 (int): the second dimension.

Returns:
    Tensor: the view (it shares memory with `input`).

Example::

    >>> torch.transpose(torch.tensor([[1, 2, 3]]), 0, 1)
    tensor([[1],
            [2],
            [3]])
""",
    "unflatten": r"""`input` with dimension `dim` expanded into the dimensions `sizes` (one may be ``-1``).

Args:
    input (Tensor): the input.
    dim (int): the dimension to expand.
    sizes (tuple of ints): the new dimensions; their product is the size of `dim`.

Returns:
    Tensor: a view.

Example::

    >>> torch.unflatten(torch.zeros(2, 6), 1, (2, 3)).shape
    torch.Size([2, 2, 3])
""",
    "unsafe_split": r"""The same as :func:`ndgrad.split` with an int size; torch names it unsafe because its
outputs are not tracked as views for in-place checks.

Example::

    >>> torch.unsafe_split(torch.arange(4), 2)
    (tensor([0, 1]), tensor([2, 3]))
""",
    "unsafe_split_with_sizes": r"""The same as :func:`ndgrad.split_with_sizes`, its outputs not tracked as views
for in-place checks.

Example::

    >>> torch.unsafe_split_with_sizes(torch.arange(3), [1, 2])
    (tensor([0]), tensor([1, 2]))
""",
    "unsqueeze": r"""A view of `input` with a new dimension of size 1 at position `dim`.

Args:
    input (Tensor): the input.
    dim (int): where the new dimension goes (negative counts from the end of the result).

Returns:
    Tensor: the view.

Example::

    >>> torch.unsqueeze(torch.tensor([1, 2]), 0)
    tensor([[1, 2]])
    >>> torch.unsqueeze(torch.tensor([1, 2]), 1)
    tensor([[1],
            [2]])
""",
    "view": r"""view(*shape) -> Tensor

A view of the tensor with the shape `shape`, sharing its memory; the strides must allow it (else
use :func:`ndgrad.reshape`). One dimension may be ``-1``. Given a dtype instead of a shape, the
bytes are reinterpreted as that dtype. (Torch has it only as the method ``Tensor.view``.)

Args:
    shape (ints or torch.Size or dtype): the new shape, or the new dtype.

Returns:
    Tensor: the view.

Example::

    >>> x = torch.arange(4)
    >>> x.view(2, 2)
    tensor([[0, 1],
            [2, 3]])
    >>> x.view(-1, 1).shape
    torch.Size([4, 1])
""",
    "view_as_complex": r"""A complex view of a real tensor whose last dimension has size 2 (real and imaginary parts).

Args:
    input (Tensor): a float32 or float64 tensor with last dimension 2.

Returns:
    Tensor: a complex view with that last dimension removed.

Example::

    >>> torch.view_as_complex(torch.tensor([[1., 2.], [3., 4.]]))
    tensor([1.+2.j, 3.+4.j])
""",
    "view_as_real": r"""A real view of a complex tensor, with a new last dimension of size 2 (real and imaginary parts).

Args:
    input (Tensor): a complex tensor.

Returns:
    Tensor: the real view.

Example::

    >>> torch.view_as_real(torch.tensor([1 + 2j]))
    tensor([[1., 2.]])
""",
    "vsplit": r"""`input` split vertically, along dimension 0 (see :func:`ndgrad.tensor_split`); it needs at
least two dimensions.

Args:
    input (Tensor): the input.
    sections (int or list of ints): the number of equal pieces, or the indices to split before.

Returns:
    tuple of Tensors: the pieces (views).

Example::

    >>> torch.vsplit(torch.arange(4).reshape(2, 2), 2)
    (tensor([[0, 1]]), tensor([[2, 3]]))
""",
    "vstack": r"""The tensors joined vertically, along dimension 0, after :func:`ndgrad.atleast_2d`.

Args:
    tensors (sequence of Tensors): the tensors to join.

Returns:
    Tensor: the result.

Example::

    >>> torch.vstack((torch.tensor([1, 2]), torch.tensor([3, 4])))
    tensor([[1, 2],
            [3, 4]])
""",
    "argwhere": r"""The indices of the nonzero elements of `input`, one row per element.

Args:
    input (Tensor): the input.

Returns:
    Tensor: an int64 tensor of shape (number of nonzeros, ``input.dim()``).

Example::

    >>> torch.argwhere(torch.tensor([[1, 0], [0, 2]]))
    tensor([[0, 0],
            [1, 1]])
""",
    "bucketize": r"""For each element of `input`, the index of the bucket of `boundaries` it falls in.

With ``right=False`` the index is the first ``i`` with ``value <= boundaries[i]``; with
``right=True``, the first with ``value < boundaries[i]``.

Args:
    input (Tensor or Scalar): the values.
    boundaries (Tensor): a 1-D increasing tensor.
    out_int32 (bool, optional): return int32 instead of int64.
    right (bool, optional): which side of a boundary equal values go.

Returns:
    Tensor: the bucket indices, shaped like `input`.

Example::

    >>> b = torch.tensor([1, 3, 5])
    >>> torch.bucketize(torch.tensor([0, 3, 6]), b)
    tensor([0, 1, 3])
    >>> torch.bucketize(torch.tensor([0, 3, 6]), b, right=True)
    tensor([0, 2, 3])
""",
    "gather": r"""Values of `input` picked along `dim` by `index`: ``out[i][j] = input[index[i][j]][j]`` for
``dim=0`` (and alike for other dimensions and ranks).

Args:
    input (Tensor): the source.
    dim (int): the dimension to index along.
    index (Tensor): int64 indices, with as many dimensions as `input`.
    sparse_grad (bool, optional): make the gradient of `input` a sparse COO tensor (uncoalesced, one
        entry per gathered element).

Returns:
    Tensor: a tensor shaped like `index`.

Example::

    >>> x = torch.tensor([[1, 2], [3, 4]])
    >>> torch.gather(x, 1, torch.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
""",
    "index_add": r"""A copy of `input` with ``alpha * source`` added at the positions `index` of dimension `dim`
(repeated indices accumulate).

Args:
    input (Tensor): the tensor to copy.
    dim (int): the dimension indexed.
    index (Tensor): 1-D int indices, one per slice of `source` along `dim`.
    source (Tensor): the values to add.
    alpha (Number, optional): the factor on `source`.

Returns:
    Tensor: the result.

Example::

    >>> torch.index_add(torch.zeros(3), 0, torch.tensor([0, 2, 0]), torch.tensor([1., 2., 3.]))
    tensor([4., 0., 2.])
""",
    "index_copy": r"""A copy of `input` whose slices at the positions `index` of dimension `dim` are replaced by
those of `source`.

Args:
    input (Tensor): the tensor to copy.
    dim (int): the dimension indexed.
    index (Tensor): 1-D int indices.
    source (Tensor): the new slices.

Returns:
    Tensor: the result.

Example::

    >>> torch.index_copy(torch.zeros(3), 0, torch.tensor([2, 0]), torch.tensor([5., 6.]))
    tensor([6., 0., 5.])
""",
    "index_fill": r"""A copy of `input` whose slices at the positions `index` of dimension `dim` are filled with `value`.

Args:
    input (Tensor): the tensor to copy.
    dim (int): the dimension indexed.
    index (Tensor): 1-D int indices.
    value (Number or 0-D Tensor): the fill value.

Returns:
    Tensor: the result.

Example::

    >>> torch.index_fill(torch.zeros(2, 3), 1, torch.tensor([0, 2]), 7.)
    tensor([[7., 0., 7.],
            [7., 0., 7.]])
""",
    "index_put": r"""A copy of `input` with ``input[indices] = values`` (advanced indexing with a tuple of index
tensors); with ``accumulate=True`` the values are added, repeated indices accumulating.

Args:
    input (Tensor): the tensor to copy.
    indices (tuple of Tensors): one index tensor per indexed dimension (int or bool).
    values (Tensor): the values, broadcastable to the indexed shape.
    accumulate (bool, optional): add instead of replace.

Returns:
    Tensor: the result.

Example::

    >>> i = (torch.tensor([0, 0, 2]),)
    >>> torch.index_put(torch.zeros(3), i, torch.tensor(1.), accumulate=True)
    tensor([2., 0., 1.])
""",
    "index_reduce": r"""A copy of `input` where the slices of `source` are combined into the positions `index` of `dim`
with the reduction `reduce`: ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.

Args:
    input (Tensor): the tensor to copy.
    dim (int): the dimension indexed.
    index (Tensor): 1-D int indices.
    source (Tensor): the values to reduce.
    reduce (str): the reduction.
    include_self (bool, optional): whether `input`'s own values take part.

Returns:
    Tensor: the result.

Example::

    >>> x = torch.tensor([1., 1., 1.])
    >>> torch.index_reduce(x, 0, torch.tensor([0, 0]), torch.tensor([4., 6.]), "amax")
    tensor([6., 1., 1.])
""",
    "index_select": r"""The slices of `input` at the positions `index` of dimension `dim`, in that order (a copy).

Args:
    input (Tensor): the source.
    dim (int): the dimension indexed.
    index (Tensor): 1-D int indices.

Returns:
    Tensor: the selected slices.

Example::

    >>> x = torch.tensor([[1, 2], [3, 4], [5, 6]])
    >>> torch.index_select(x, 0, torch.tensor([2, 0]))
    tensor([[5, 6],
            [1, 2]])
""",
    "masked_fill": r"""A copy of `input` with `value` wherever the boolean `mask` (broadcast to `input`) is ``True``.

Args:
    input (Tensor): the tensor to copy.
    mask (BoolTensor): where to write.
    value (Number or 0-D Tensor): the fill value.

Returns:
    Tensor: the result.

Example::

    >>> x = torch.tensor([1., 2., 3.])
    >>> torch.masked_fill(x, x > 1, 0.)
    tensor([1., 0., 0.])
""",
    "masked_scatter": r"""A copy of `input` where the positions in which `mask` is ``True`` take, in order, the
first elements of `source`.

Args:
    input (Tensor): the tensor to copy.
    mask (BoolTensor): where to write (broadcast to `input`).
    source (Tensor): the values, at least as many as ``True`` entries.

Returns:
    Tensor: the result.

Example::

    >>> mask = torch.tensor([True, False, True])
    >>> torch.masked_scatter(torch.zeros(3), mask, torch.tensor([7., 8., 9.]))
    tensor([7., 0., 8.])
""",
    "masked_select": r"""The elements of `input` where `mask` is ``True``, as a 1-D tensor (`input` and `mask` broadcast).

Args:
    input (Tensor): the source.
    mask (BoolTensor): which elements to take.

Returns:
    Tensor: a new 1-D tensor.

Example::

    >>> x = torch.tensor([[1, 2], [3, 4]])
    >>> torch.masked_select(x, x > 1)
    tensor([2, 3, 4])
""",
    "nonzero": r"""The indices of the nonzero elements of `input`.

Args:
    input (Tensor): the input.
    as_tuple (bool, optional): ``False``: one int64 tensor with a row per nonzero element;
        ``True``: a tuple with one 1-D index tensor per dimension (usable as ``input[...]``).

Returns:
    Tensor or tuple of Tensors: the indices.

Example::

    >>> x = torch.tensor([[0, 1], [2, 0]])
    >>> torch.nonzero(x)
    tensor([[0, 1],
            [1, 0]])
    >>> torch.nonzero(x, as_tuple=True)
    (tensor([0, 1]), tensor([1, 0]))
""",
    "put": r"""A copy of `input` with `source` written at the flat positions `index` (as if `input` were 1-D);
with ``accumulate=True`` the values are added.

Args:
    input (Tensor): the tensor to copy.
    index (Tensor): int indices into the flattened tensor.
    source (Tensor): the values, as many as `index`.
    accumulate (bool, optional): add instead of replace.

Returns:
    Tensor: the result.

Example::

    >>> torch.put(torch.zeros(2, 2), torch.tensor([0, 3]), torch.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
""",
    "scatter": r"""scatter(input, dim, index, src, *, reduce=None) -> Tensor

A copy of `input` with the values of `src` written at `index` along `dim`: for ``dim=0``,
``out[index[i][j]][j] = src[i][j]`` (the reverse of :func:`ndgrad.gather`). `src` may be a scalar
value. With repeated indices, which value wins is unspecified.

Args:
    input (Tensor): the tensor to copy.
    dim (int): the dimension indexed.
    index (Tensor): int64 indices.
    src (Tensor or Scalar): the values.
    reduce (str, optional): ``"add"`` or ``"multiply"`` to combine instead of replace.

Returns:
    Tensor: the result.

Example::

    >>> torch.scatter(torch.zeros(2, 3), 1, torch.tensor([[2], [0]]), torch.tensor([[5.], [6.]]))
    tensor([[0., 0., 5.],
            [6., 0., 0.]])
""",
    "scatter_add": r"""A copy of `input` with the values of `src` added at `index` along `dim`, repeated indices
accumulating (see :func:`ndgrad.scatter`).

Args:
    input (Tensor): the tensor to copy.
    dim (int): the dimension indexed.
    index (Tensor): int64 indices.
    src (Tensor): the values to add.

Returns:
    Tensor: the result.

Example::

    >>> torch.scatter_add(torch.zeros(3), 0, torch.tensor([0, 0, 2]), torch.tensor([1., 2., 3.]))
    tensor([3., 0., 3.])
""",
    "scatter_reduce": r"""A copy of `input` where the values of `src` are combined at `index` along `dim` with `reduce`:
``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.

Args:
    input (Tensor): the tensor to copy.
    dim (int): the dimension indexed.
    index (Tensor): int64 indices.
    src (Tensor): the values.
    reduce (str): the reduction.
    include_self (bool, optional): whether `input`'s values at the targets take part.

Returns:
    Tensor: the result.

Example::

    >>> src, i = torch.tensor([1., 5., 2.]), torch.tensor([0, 0, 1])
    >>> torch.scatter_reduce(torch.zeros(2), 0, i, src, "amax", include_self=False)
    tensor([5., 2.])
""",
    "select": r"""A view of `input` at position `index` of dimension `dim`, that dimension removed
(``torch.select(x, 0, i)`` is ``x[i]``).

Args:
    input (Tensor): the input.
    dim (int): the dimension.
    index (int): the position.

Returns:
    Tensor: the view.

Example::

    >>> torch.select(torch.tensor([[1, 2], [3, 4]]), 1, 0)
    tensor([1, 3])
""",
    "select_scatter": r"""A copy of `input` whose slice at `index` of dimension `dim` is replaced by `src`.

Args:
    input (Tensor): the tensor to copy.
    src (Tensor): the new slice (shaped like ``torch.select(input, dim, index)``).
    dim (int): the dimension.
    index (int): the position.

Returns:
    Tensor: the result.

Example::

    >>> torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 1)
    tensor([[0., 0.],
            [1., 1.]])
""",
    "slice_scatter": r"""A copy of `input` whose slice ``start:end:step`` of dimension `dim` is replaced by `src`.

Args:
    input (Tensor): the tensor to copy.
    src (Tensor): the new values, shaped like the slice.
    dim (int, optional): the dimension sliced.
    start (int, optional): the slice's start.
    end (int, optional): the slice's end.
    step (int, optional): the slice's step.

Returns:
    Tensor: the result.

Example::

    >>> torch.slice_scatter(torch.zeros(4), torch.ones(2), start=0, step=2)
    tensor([1., 0., 1., 0.])
""",
    "take": r"""The elements of `input` at the flat positions `index`, as if `input` were 1-D.

Args:
    input (Tensor): the source.
    index (LongTensor): the positions; negative ones count from the end.

Returns:
    Tensor: a tensor shaped like `index`.

Example::

    >>> torch.take(torch.tensor([[1, 2], [3, 4]]), torch.tensor([0, 3]))
    tensor([1, 4])
""",
    "take_along_dim": r"""Values of `input` picked along `dim` at `indices`, `indices` broadcast against
`input` (as returned by :func:`ndgrad.argmax` or :func:`ndgrad.argsort` with the same `dim`);
without `dim`, `input` is taken as flattened.

Args:
    input (Tensor): the source.
    indices (LongTensor): the positions.
    dim (int, optional): the dimension.

Returns:
    Tensor: the picked values.

Example::

    >>> x = torch.tensor([[3, 1], [2, 4]])
    >>> torch.take_along_dim(x, torch.argsort(x, dim=1), dim=1)
    tensor([[1, 3],
            [2, 4]])
""",
    "addbmm": r"""``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``: the batched matrix products summed
over the batch, added to `input`.

Args:
    input (Tensor): broadcastable to (n, p).
    batch1 (Tensor): (b, n, m).
    batch2 (Tensor): (b, m, p).
    beta (Number, optional): the factor on `input`.
    alpha (Number, optional): the factor on the products.

Returns:
    Tensor: an (n, p) tensor.

Example::

    >>> b = torch.ones(2, 1, 3)
    >>> torch.addbmm(torch.zeros(1, 1), b, b.transpose(1, 2))
    tensor([[6.]])
""",
    "addmm": r"""``beta * input + alpha * (mat1 @ mat2)``.

Args:
    input (Tensor): broadcastable to (n, p).
    mat1 (Tensor): (n, m).
    mat2 (Tensor): (m, p).
    beta (Number, optional): the factor on `input`.
    alpha (Number, optional): the factor on the product.

Returns:
    Tensor: an (n, p) tensor.

Example::

    >>> a = torch.tensor([[1., 2.], [3., 4.]])
    >>> torch.addmm(torch.ones(2), a, torch.eye(2), alpha=2)
    tensor([[3., 5.],
            [7., 9.]])
""",
    "addmv": r"""``beta * input + alpha * (mat @ vec)``.

Args:
    input (Tensor): broadcastable to (n,).
    mat (Tensor): (n, m).
    vec (Tensor): (m,).
    beta (Number, optional): the factor on `input`.
    alpha (Number, optional): the factor on the product.

Returns:
    Tensor: an (n,) tensor.

Example::

    >>> torch.addmv(torch.tensor([1., 1.]), torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([1., 1.]))
    tensor([4., 8.])
""",
    "addr": r"""``beta * input + alpha * outer(vec1, vec2)``.

Args:
    input (Tensor): broadcastable to (n, m).
    vec1 (Tensor): (n,).
    vec2 (Tensor): (m,).
    beta (Number, optional): the factor on `input`.
    alpha (Number, optional): the factor on the outer product.

Returns:
    Tensor: an (n, m) tensor.

Example::

    >>> torch.addr(torch.zeros(2, 2), torch.tensor([1., 2.]), torch.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
""",
    "baddbmm": r"""``beta * input + alpha * (batch1 @ batch2)``, batch by batch.

Args:
    input (Tensor): broadcastable to (b, n, p).
    batch1 (Tensor): (b, n, m).
    batch2 (Tensor): (b, m, p).
    beta (Number, optional): the factor on `input`.
    alpha (Number, optional): the factor on the products.

Returns:
    Tensor: a (b, n, p) tensor.

Example::

    >>> b = torch.ones(2, 1, 3)
    >>> torch.baddbmm(torch.ones(2, 1, 1), b, b.transpose(1, 2), beta=0.5)
    tensor([[[3.5000]],
    <BLANKLINE>
            [[3.5000]]])
""",
    "bilinear": r"""The bilinear form ``y[k] = input1 @ weight[k] @ input2 + bias[k]`` for each output feature k
(see :class:`ndgrad.nn.Bilinear`).

Args:
    input1 (Tensor): (..., n1).
    input2 (Tensor): (..., n2).
    weight (Tensor): (out, n1, n2).
    bias (Tensor, optional): (out,).

Returns:
    Tensor: (..., out).

Example::

    >>> w = torch.ones(1, 2, 2)
    >>> torch.bilinear(torch.tensor([[1., 2.]]), torch.tensor([[3., 4.]]), w)
    tensor([[21.]])
""",
    "bmm": r"""The matrix product of each pair of matrices in two batches (no broadcasting; see
:func:`ndgrad.matmul` for that).

Args:
    input (Tensor): (b, n, m).
    mat2 (Tensor): (b, m, p).

Returns:
    Tensor: (b, n, p).

Example::

    >>> a = torch.arange(4.).reshape(1, 2, 2)
    >>> torch.bmm(a, a)
    tensor([[[ 2.,  3.],
             [ 6., 11.]]])
""",
    "chain_matmul": r"""The product of two or more matrices, in the order given (deprecated in torch for
:func:`ndgrad.linalg.multi_dot`).

Args:
    matrices (Tensor): 2-D tensors whose shapes chain.

Returns:
    Tensor: the product.

Example::

    >>> a = torch.tensor([[1., 2.]])
    >>> torch.chain_matmul(a, a.t(), a)
    tensor([[ 5., 10.]])
""",
    "dot": r"""The dot product of two 1-D tensors of the same size and dtype (no conjugation).

Args:
    input (Tensor): the first vector.
    tensor (Tensor): the second vector.

Returns:
    Tensor: a 0-D tensor.

Example::

    >>> torch.dot(torch.tensor([1, 2]), torch.tensor([3, 4]))
    tensor(11)
""",
    "ger": r"""Alias of :func:`ndgrad.outer` (deprecated in torch).

Example::

    >>> torch.ger(torch.tensor([1, 2]), torch.tensor([1, 10]))
    tensor([[ 1, 10],
            [ 2, 20]])
""",
    "matmul": r"""The matrix product of two tensors, by their number of dimensions: vector dot vector,
matrix times matrix, matrix times vector (or vector times matrix), and for more dimensions a batched
product whose batch dimensions broadcast.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.

Returns:
    Tensor: the product (``input @ other``).

Example::

    >>> a = torch.tensor([[1., 2.], [3., 4.]])
    >>> torch.matmul(a, torch.tensor([1., 1.]))
    tensor([3., 7.])
    >>> torch.matmul(torch.ones(5, 1, 2, 3), torch.ones(4, 3, 2)).shape
    torch.Size([5, 4, 2, 2])
""",
    "mm": r"""The product of two matrices (2-D tensors only; see :func:`ndgrad.matmul` for the general case).

Args:
    input (Tensor): (n, m).
    mat2 (Tensor): (m, p).

Returns:
    Tensor: (n, p).

Example::

    >>> torch.mm(torch.tensor([[1., 2.]]), torch.tensor([[3.], [4.]]))
    tensor([[11.]])
""",
    "mv": r"""The product of a matrix and a vector.

Args:
    input (Tensor): (n, m).
    vec (Tensor): (m,).

Returns:
    Tensor: (n,).

Example::

    >>> torch.mv(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([1., -1.]))
    tensor([-1., -1.])
""",
    "outer": r"""The outer product of two vectors: ``out[i][j] = input[i] * vec2[j]``.

Args:
    input (Tensor): (n,).
    vec2 (Tensor): (m,).

Returns:
    Tensor: (n, m).

Example::

    >>> torch.outer(torch.tensor([1, 2]), torch.tensor([1, 10, 100]))
    tensor([[  1,  10, 100],
            [  2,  20, 200]])
""",
    "vdot": r"""The dot product of two 1-D tensors, the first conjugated (they differ from
:func:`ndgrad.dot` only for complex tensors).

Args:
    input (Tensor): the first vector (conjugated).
    other (Tensor): the second vector.

Returns:
    Tensor: a 0-D tensor.

Example::

    >>> torch.vdot(torch.tensor([1j, 2]), torch.tensor([1j, 1]))
    tensor(3.+0.j)
""",
    "cholesky": r"""The Cholesky factor of a symmetric (Hermitian) positive-definite matrix, or of each in a batch
(torch advises :func:`ndgrad.linalg.cholesky` instead).

Args:
    input (Tensor): (..., n, n).
    upper (bool, optional): return the upper factor U (``input = U^H U``) instead of the lower L
        (``input = L L^H``).

Returns:
    Tensor: the triangular factor.

Example::

    >>> torch.cholesky(torch.tensor([[4., 2.], [2., 2.]]))
    tensor([[2., 0.],
            [1., 1.]])
""",
    "cholesky_inverse": r"""The inverse of a positive-definite matrix given its Cholesky factor.

Args:
    input (Tensor): the triangular factor, (..., n, n).
    upper (bool, optional): whether the factor is upper (else lower) triangular.

Returns:
    Tensor: the inverse of ``L @ L^H`` (or ``U^H @ U``).

Example::

    >>> torch.cholesky_inverse(torch.tensor([[2., 0.], [1., 1.]]))
    tensor([[ 0.5000, -0.5000],
            [-0.5000,  1.0000]])
""",
    "det": r"""Alias of :func:`ndgrad.linalg.det`: the determinant of a square matrix (or batch of them).

Example::

    >>> torch.det(torch.tensor([[2., 1.], [0., 3.]]))
    tensor(6.)
""",
    "frobenius_norm": r"""The Frobenius norm (square root of the sum of squared absolute values) over the
dimensions `dim` (a deprecated torch op; see :func:`ndgrad.linalg.matrix_norm`).

Args:
    input (Tensor): the input.
    dim (tuple of ints): the dimensions to reduce.
    keepdim (bool, optional): keep the reduced dimensions with size 1.

Returns:
    Tensor: the norm.

Example::

    >>> torch.frobenius_norm(torch.tensor([[3., 4.]]), dim=(0, 1))
    tensor(5.)
""",
    "geqrf": r"""The QR decomposition in LAPACK's compact form: R in the upper triangle, the Householder
reflectors that make Q below the diagonal and in `tau` (see :func:`ndgrad.orgqr`).

Args:
    input (Tensor): (..., m, n).

Returns:
    (Tensor, Tensor): the named tuple ``(a, tau)``.

Example::

    >>> a, tau = torch.geqrf(torch.tensor([[3., 1.], [4., 2.]]))
    >>> torch.allclose(torch.orgqr(a, tau) @ a.triu(), torch.tensor([[3., 1.], [4., 2.]]))
    True
""",
    "inverse": r"""Alias of :func:`ndgrad.linalg.inv`: the inverse of a square invertible matrix (or batch).

Example::

    >>> torch.inverse(torch.tensor([[2., 0.], [0., 4.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
""",
    "lu_solve": r"""The solution X of ``A X = B`` given the LU factorization of A (from :func:`ndgrad.linalg.lu_factor`).

Args:
    input (Tensor): B, (..., n, k).
    LU_data (Tensor): the packed LU factors of A.
    LU_pivots (Tensor): the pivots.

Returns:
    Tensor: X, (..., n, k).

Example::

    >>> A = torch.tensor([[2., 1.], [1., 3.]])
    >>> LU, piv = torch.linalg.lu_factor(A)
    >>> torch.lu_solve(torch.tensor([[3.], [4.]]), LU, piv)
    tensor([[1.],
            [1.]])
""",
    "lu_unpack": r"""The P, L and U matrices of a packed LU factorization (from :func:`ndgrad.linalg.lu_factor`),
with ``A = P @ L @ U``.

Args:
    LU_data (Tensor): the packed factors.
    LU_pivots (Tensor): the pivots.
    unpack_data (bool, optional): compute L and U.
    unpack_pivots (bool, optional): compute P.

Returns:
    (Tensor, Tensor, Tensor): the named tuple ``(P, L, U)``.

Example::

    >>> A = torch.tensor([[1., 2.], [3., 4.]])
    >>> P, L, U = torch.lu_unpack(*torch.linalg.lu_factor(A))
    >>> P @ L @ U
    tensor([[1., 2.],
            [3., 4.]])
""",
    "matrix_exp": r"""Alias of :func:`ndgrad.linalg.matrix_exp`: the matrix exponential of a square matrix (or batch).

Example::

    >>> torch.matrix_exp(torch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
""",
    "orgqr": r"""The matrix Q of a QR decomposition from the Householder form that :func:`ndgrad.geqrf`
returns (alias of :func:`ndgrad.linalg.householder_product`).

Args:
    A (Tensor): the reflectors, (..., m, n).
    tau (Tensor): their scale factors, (..., k).

Returns:
    Tensor: Q, (..., m, n).

Example::

    >>> a, tau = torch.geqrf(torch.eye(2))
    >>> torch.orgqr(a, tau).abs()
    tensor([[1., 0.],
            [0., 1.]])
""",
    "pinverse": r"""The pseudo-inverse (Moore-Penrose) of a matrix or batch, through its SVD (an alias of
:func:`ndgrad.linalg.pinv` with a relative cutoff).

Args:
    input (Tensor): (..., m, n).
    rcond (float, optional): singular values below ``rcond`` times the largest count as zero.

Returns:
    Tensor: (..., n, m).

Example::

    >>> torch.pinverse(torch.tensor([[2., 0.], [0., 0.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
""",
    "qr": r"""The QR decomposition ``input = Q R`` of a matrix or batch (torch advises :func:`ndgrad.linalg.qr`).

Args:
    input (Tensor): (..., m, n).
    some (bool, optional): ``True`` the reduced decomposition, ``False`` the complete one.

Returns:
    (Tensor, Tensor): the named tuple ``(Q, R)``.

Example::

    >>> A = torch.tensor([[1., 2.], [3., 4.]])
    >>> Q, R = torch.qr(A)
    >>> torch.allclose(Q @ R, A)
    True
""",
    "slogdet": r"""The sign and the log of the absolute value of the determinant (alias of
:func:`ndgrad.linalg.slogdet`; stable where the determinant under- or overflows).

Args:
    input (Tensor): (..., n, n).

Returns:
    (Tensor, Tensor): the named tuple ``(sign, logabsdet)``.

Example::

    >>> torch.slogdet(torch.tensor([[-1., 0.], [0., 1.]]))
    torch.return_types.slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(0.))
""",
    "trace": r"""The sum of the main diagonal of a 2-D tensor.

Args:
    input (Tensor): a matrix.

Returns:
    Tensor: a 0-D tensor.

Example::

    >>> torch.trace(torch.tensor([[1, 2], [3, 4]]))
    tensor(5)
""",
    "triangular_solve": r"""The solution X of ``A X = b`` for a triangular A (deprecated in torch for
:func:`ndgrad.linalg.solve_triangular`).

Args:
    input (Tensor): b, (..., n, k).
    A (Tensor): the triangular matrix, (..., n, n).
    upper (bool, optional): whether A is upper (else lower) triangular.
    transpose (bool, optional): solve with A transposed.
    unitriangular (bool, optional): take A's diagonal as ones.

Returns:
    (Tensor, Tensor): the named tuple ``(solution, cloned_coefficient)``.

Example::

    >>> A = torch.tensor([[2., 1.], [0., 1.]])
    >>> torch.triangular_solve(torch.tensor([[3.], [1.]]), A).solution
    tensor([[1.],
            [1.]])
""",
    "celu": r"""CELU, elementwise: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

Args:
    input (Tensor): the input.
    alpha (float, optional): the scale of the negative part.

Returns:
    Tensor: the result.

Example::

    >>> torch.celu(torch.tensor([-1., 2.]))
    tensor([-0.6321,  2.0000])
""",
    "celu_": r"""celu_(input, alpha=1.0) -> Tensor

In-place version of :func:`ndgrad.celu`.

Example::

    >>> x = torch.tensor([-1., 2.])
    >>> torch.celu_(x, 2.)
    tensor([-0.7869,  2.0000])
""",
    "embedding_renorm_": r"""embedding_renorm_(weight, indices, max_norm, norm_type) -> Tensor

Rescales in place the rows of `weight` named in `indices` whose `norm_type`-norm exceeds
`max_norm` to that norm (what :func:`ndgrad.nn.functional.embedding` does with ``max_norm``).

Args:
    weight (Tensor): the embedding matrix, modified in place.
    indices (Tensor): the rows to check.
    max_norm (float): the largest norm allowed.
    norm_type (float): the p of the p-norm.

Returns:
    Tensor: `weight`.

Example::

    >>> w = torch.tensor([[3., 4.], [0., 1.]])
    >>> torch.embedding_renorm_(w, torch.tensor([0]), 1.0, 2.0)
    tensor([[0.6000, 0.8000],
            [0.0000, 1.0000]])
""",
    "hardshrink": r"""Hard shrinkage, elementwise: `x` where ``|x| > lambd``, else 0.

Args:
    input (Tensor): the input.
    lambd (float, optional): the threshold.

Returns:
    Tensor: the result.

Example::

    >>> torch.hardshrink(torch.tensor([-1., 0.3, 0.6]))
    tensor([-1.0000,  0.0000,  0.6000])
""",
    "log_softmax": r"""The logarithm of :func:`ndgrad.softmax` along `dim`, computed stably.

Args:
    input (Tensor): the input.
    dim (int): the dimension normalized.
    dtype (dtype, optional): cast `input` to this dtype first.

Returns:
    Tensor: the result.

Example::

    >>> torch.log_softmax(torch.tensor([0., 0.]), 0)
    tensor([-0.6931, -0.6931])
""",
    "prelu": r"""PReLU, elementwise: `x` where ``x >= 0``, else ``weight * x``; `weight` has one element or one
per channel (dimension 1).

Args:
    input (Tensor): the input.
    weight (Tensor): the learnable slopes.

Returns:
    Tensor: the result.

Example::

    >>> torch.prelu(torch.tensor([-2., 3.]), torch.tensor([0.25]))
    tensor([-0.5000,  3.0000])
""",
    "relu": r"""ReLU, elementwise: ``max(0, x)``.

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.relu(torch.tensor([-1., 0., 2.]))
    tensor([0., 0., 2.])
""",
    "relu_": r"""In-place version of :func:`ndgrad.relu`.

Example::

    >>> x = torch.tensor([-1., 2.])
    >>> _ = torch.relu_(x)
    >>> x
    tensor([0., 2.])
""",
    "rrelu": r"""Randomized leaky ReLU: negative values are multiplied by a slope drawn uniformly from
[`lower`, `upper`] per element in training, by ``(lower + upper) / 2`` otherwise.

Args:
    input (Tensor): the input.
    lower (float, optional): the smallest slope.
    upper (float, optional): the largest slope.
    training (bool, optional): draw random slopes.
    inplace (bool, optional): write into `input`.

Returns:
    Tensor: the result.

Example::

    >>> torch.rrelu(torch.tensor([-2., 3.]))
    tensor([-0.4583,  3.0000])
""",
    "rrelu_": r"""In-place version of :func:`ndgrad.rrelu`.

Example::

    >>> x = torch.tensor([-2., 3.])
    >>> _ = torch.rrelu_(x)
    >>> x
    tensor([-0.4583,  3.0000])
""",
    "selu": r"""SELU, elementwise: ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with the fixed
constants alpha ≈ 1.6733 and scale ≈ 1.0507 (self-normalizing networks).

Args:
    input (Tensor): the input.

Returns:
    Tensor: the result.

Example::

    >>> torch.selu(torch.tensor([-1., 2.]))
    tensor([-1.1113,  2.1014])
""",
    "selu_": r"""In-place version of :func:`ndgrad.selu`.

Example::

    >>> x = torch.tensor([0., 1.])
    >>> _ = torch.selu_(x)
    >>> x
    tensor([0.0000, 1.0507])
""",
    "softmax": r"""Softmax along `dim`: ``exp(x_i) / sum_j exp(x_j)``, so the slices along `dim` are positive
and sum to 1.

Args:
    input (Tensor): the input.
    dim (int): the dimension normalized.
    dtype (dtype, optional): cast `input` to this dtype first.

Returns:
    Tensor: the result.

Example::

    >>> torch.softmax(torch.tensor([1., 2.]), dim=0)
    tensor([0.2689, 0.7311])
""",
    "threshold": r"""`x` where ``x > threshold``, else `value`, elementwise.

Args:
    input (Tensor): the input.
    threshold (float): the threshold.
    value (float): the replacement.

Returns:
    Tensor: the result.

Example::

    >>> torch.threshold(torch.tensor([-1., 0.5, 2.]), 1., 0.)
    tensor([0., 0., 2.])
""",
    "threshold_": r"""threshold_(input, threshold, value) -> Tensor

In-place version of :func:`ndgrad.threshold`.

Example::

    >>> x = torch.tensor([-1., 2.])
    >>> _ = torch.threshold_(x, 0., 5.)
    >>> x
    tensor([5., 2.])
""",
    "alpha_dropout": r"""Alpha dropout (for SELU networks): in training, zeroes elements with probability `p` by
setting them to SELU's negative limit, then rescales so mean and variance are kept; the identity
when `train` is ``False``.

Args:
    input (Tensor): the input.
    p (float): the probability to drop an element.
    train (bool): whether to apply it.

Returns:
    Tensor: the result.

Example::

    >>> torch.alpha_dropout(torch.ones(3), 0.5, False)
    tensor([1., 1., 1.])
""",
    "alpha_dropout_": r"""In-place version of :func:`ndgrad.alpha_dropout`.

Example::

    >>> torch.alpha_dropout_(torch.ones(2), 0.5, False)
    tensor([1., 1.])
""",
    "dropout": r"""Dropout: in training each element is zeroed with probability `p` and the others are scaled by
``1 / (1 - p)``; the identity when `train` is ``False``. (The same seed drops torch's elements.)

Args:
    input (Tensor): the input.
    p (float): the probability to drop an element.
    train (bool): whether to apply it.

Returns:
    Tensor: the result.

Example::

    >>> _ = torch.manual_seed(0)
    >>> y = torch.dropout(torch.ones(1000), 0.5, True)
    >>> y.unique()
    tensor([0., 2.])
""",
    "dropout_": r"""In-place version of :func:`ndgrad.dropout`.

Example::

    >>> torch.dropout_(torch.ones(2), 0.5, False)
    tensor([1., 1.])
""",
    "feature_alpha_dropout": r"""Alpha dropout of whole channels: in training, each channel (dimension 1, all its
elements at once) is dropped with probability `p` as in :func:`ndgrad.alpha_dropout`.

Args:
    input (Tensor): (N, C, ...) input.
    p (float): the probability to drop a channel.
    train (bool): whether to apply it.

Returns:
    Tensor: the result.

Example::

    >>> torch.feature_alpha_dropout(torch.ones(1, 2, 2), 0.5, False)
    tensor([[[1., 1.],
             [1., 1.]]])
""",
    "feature_alpha_dropout_": r"""In-place version of :func:`ndgrad.feature_alpha_dropout`.

Example::

    >>> torch.feature_alpha_dropout_(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
""",
    "feature_dropout": r"""Dropout of whole channels: in training, each channel (dimension 1) is zeroed with
probability `p` and the others scaled by ``1 / (1 - p)`` (see :class:`ndgrad.nn.Dropout2d`).

Args:
    input (Tensor): (N, C, ...) input.
    p (float): the probability to drop a channel.
    train (bool): whether to apply it.

Returns:
    Tensor: the result.

Example::

    >>> y = torch.feature_dropout(torch.ones(1, 8, 3), 0.5, True)
    >>> bool(((y == 0).all(2) | (y == 2).all(2)).all())   # whole channels dropped or kept
    True
""",
    "feature_dropout_": r"""In-place version of :func:`ndgrad.feature_dropout`.

Example::

    >>> torch.feature_dropout_(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
""",
    "native_dropout": r"""Dropout that also returns its mask (the op behind :func:`ndgrad.dropout`).

Args:
    input (Tensor): the input.
    p (float): the probability to drop an element.
    train (bool): whether to apply it.

Returns:
    (Tensor, Tensor): the result, and the boolean mask of the kept elements.

Example::

    >>> torch.native_dropout(torch.ones(3), 0.0, True)
    (tensor([1., 1., 1.]), tensor([True, True, True]))
""",
    "conv1d": r"""A 1-D convolution (cross-correlation, as in deep learning) of `input` with the filters `weight`.

Args:
    input (Tensor): (N, C_in, L) or (C_in, L).
    weight (Tensor): (C_out, C_in / groups, kL).
    bias (Tensor, optional): (C_out,).
    stride (int or tuple, optional): the step of the filter.
    padding (int, tuple or str, optional): zeros added on both sides, or ``"valid"`` / ``"same"``.
    dilation (int or tuple, optional): the spacing between filter taps.
    groups (int, optional): split the channels into this many independent groups.

Returns:
    Tensor: (N, C_out, L_out).

Example::

    >>> x = torch.tensor([[[1., 2., 4., 7.]]])
    >>> torch.conv1d(x, torch.tensor([[[-1., 1.]]]))
    tensor([[[1., 2., 3.]]])
""",
    "conv2d": r"""A 2-D convolution (cross-correlation) of `input` with the filters `weight`.

Args:
    input (Tensor): (N, C_in, H, W) or (C_in, H, W).
    weight (Tensor): (C_out, C_in / groups, kH, kW).
    bias (Tensor, optional): (C_out,).
    stride (int or tuple, optional): the step of the filter.
    padding (int, tuple or str, optional): zeros added on each side, or ``"valid"`` / ``"same"``.
    dilation (int or tuple, optional): the spacing between filter taps.
    groups (int, optional): split the channels into this many independent groups.

Returns:
    Tensor: (N, C_out, H_out, W_out).

Example::

    >>> torch.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2), padding=1).shape
    torch.Size([1, 1, 4, 4])
    >>> torch.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2))
    tensor([[[[4., 4.],
              [4., 4.]]]])
""",
    "conv3d": r"""A 3-D convolution (cross-correlation) of `input` with the filters `weight`.

Args:
    input (Tensor): (N, C_in, D, H, W) or (C_in, D, H, W).
    weight (Tensor): (C_out, C_in / groups, kD, kH, kW).
    bias (Tensor, optional): (C_out,).
    stride (int or tuple, optional): the step of the filter.
    padding (int, tuple or str, optional): zeros added on each side, or ``"valid"`` / ``"same"``.
    dilation (int or tuple, optional): the spacing between filter taps.
    groups (int, optional): split the channels into this many independent groups.

Returns:
    Tensor: (N, C_out, D_out, H_out, W_out).

Example::

    >>> torch.conv3d(torch.ones(1, 1, 2, 2, 2), torch.ones(1, 1, 2, 2, 2))
    tensor([[[[[8.]]]]])
""",
    "conv_tbc": r"""A 1-D convolution over time-batch-channel input (sequence first), with symmetric zero padding `pad`.

Args:
    input (Tensor): (T, N, C_in).
    weight (Tensor): (kT, C_in, C_out).
    bias (Tensor): (C_out,).
    pad (int, optional): zeros added at both ends of time.

Returns:
    Tensor: (T_out, N, C_out).

Example::

    >>> torch.conv_tbc(torch.ones(3, 1, 1), torch.ones(2, 1, 1), torch.zeros(1)).flatten()
    tensor([2., 2.])
""",
    "conv_transpose1d": r"""A 1-D transposed convolution (the gradient of :func:`ndgrad.conv1d` with respect to its input):
each input element adds a scaled copy of the filter to the output.

Args:
    input (Tensor): (N, C_in, L) or (C_in, L).
    weight (Tensor): (C_in, C_out / groups, kL).
    bias (Tensor, optional): (C_out,).
    stride (int or tuple, optional): the step between the copies.
    padding (int or tuple, optional): removed from both ends of the output.
    output_padding (int or tuple, optional): added to one end of the output.
    groups (int, optional): the number of channel groups.
    dilation (int or tuple, optional): the spacing between filter taps.

Returns:
    Tensor: (N, C_out, L_out).

Example::

    >>> torch.conv_transpose1d(torch.tensor([[[1., 2.]]]), torch.tensor([[[1., 1.]]]))
    tensor([[[1., 3., 2.]]])
""",
    "conv_transpose2d": r"""A 2-D transposed convolution (the gradient of :func:`ndgrad.conv2d` with respect to its input).

Args:
    input (Tensor): (N, C_in, H, W) or (C_in, H, W).
    weight (Tensor): (C_in, C_out / groups, kH, kW).
    bias (Tensor, optional): (C_out,).
    stride (int or tuple, optional): the step between the copies of the filter.
    padding (int or tuple, optional): removed from each side of the output.
    output_padding (int or tuple, optional): added to one side of the output.
    groups (int, optional): the number of channel groups.
    dilation (int or tuple, optional): the spacing between filter taps.

Returns:
    Tensor: (N, C_out, H_out, W_out).

Example::

    >>> torch.conv_transpose2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2), stride=2).shape
    torch.Size([1, 1, 4, 4])
""",
    "conv_transpose3d": r"""A 3-D transposed convolution (the gradient of :func:`ndgrad.conv3d` with respect to its input).

Args:
    input (Tensor): (N, C_in, D, H, W) or (C_in, D, H, W).
    weight (Tensor): (C_in, C_out / groups, kD, kH, kW).
    bias (Tensor, optional): (C_out,).
    stride (int or tuple, optional): the step between the copies of the filter.
    padding (int or tuple, optional): removed from each side of the output.
    output_padding (int or tuple, optional): added to one side of the output.
    groups (int, optional): the number of channel groups.
    dilation (int or tuple, optional): the spacing between filter taps.

Returns:
    Tensor: (N, C_out, D_out, H_out, W_out).

Example::

    >>> torch.conv_transpose3d(torch.ones(1, 1, 1, 1, 1), torch.ones(1, 1, 2, 2, 2)).shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "convolution": r"""The general convolution that the conv ops call: any number of spatial dimensions, ordinary or
transposed, every argument explicit (lists with one entry per spatial dimension).

Args:
    input (Tensor): (N, C_in, ...).
    weight (Tensor): the filters.
    bias (Tensor or None): (C_out,).
    stride (list of ints): the steps.
    padding (list of ints): the zero padding.
    dilation (list of ints): the tap spacing.
    transposed (bool): a transposed convolution.
    output_padding (list of ints): extra output size, for a transposed one.
    groups (int): the number of channel groups.

Returns:
    Tensor: the result.

Example::

    >>> x, w = torch.tensor([[[1., 2., 3.]]]), torch.tensor([[[1., 1.]]])
    >>> torch.convolution(x, w, None, [1], [0], [1], False, [0], 1)
    tensor([[[3., 5.]]])
""",
    "mkldnn_convolution": r"""A convolution with torch's oneDNN (MKL-DNN) argument order; ndgrad computes it with its own
convolution (there is no oneDNN here).

Args:
    self (Tensor): (N, C_in, ...).
    weight (Tensor): the filters.
    bias (Tensor or None): (C_out,).
    padding (list of ints): the zero padding.
    stride (list of ints): the steps.
    dilation (list of ints): the tap spacing.
    groups (int): the number of channel groups.

Returns:
    Tensor: the result.

Example::

    >>> torch.mkldnn_convolution(torch.ones(1, 1, 3), torch.ones(1, 1, 2), None, [0], [1], [1], 1)
    tensor([[[2., 2.]]])
""",
    "batch_norm": r"""Batch normalization: each channel (dimension 1) normalized by its mean and variance over the
batch and spatial dimensions (in training, which also updates the running statistics in place), or by
`running_mean` and `running_var` (in evaluation), then scaled by `weight` and shifted by `bias`.

Args:
    input (Tensor): (N, C, ...).
    weight (Tensor or None): (C,) scale.
    bias (Tensor or None): (C,) shift.
    running_mean (Tensor or None): (C,) running mean.
    running_var (Tensor or None): (C,) running variance.
    training (bool): use the batch statistics.
    momentum (float): the weight of the new statistics in the running ones.
    eps (float): added to the variance.
    cudnn_enabled (bool): ignored (CPU only).

Returns:
    Tensor: the normalized input.

Example::

    >>> x = torch.tensor([[1., 2.], [3., 6.]])
    >>> torch.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
""",
    "group_norm": r"""Group normalization: the channels are split into `num_groups` groups, each normalized per
sample over its channels and spatial dimensions, then scaled and shifted per channel.

Args:
    input (Tensor): (N, C, ...).
    num_groups (int): the number of groups (it divides C).
    weight (Tensor, optional): (C,) scale.
    bias (Tensor, optional): (C,) shift.
    eps (float, optional): added to the variance.
    cudnn_enabled (bool, optional): ignored.

Returns:
    Tensor: the normalized input.

Example::

    >>> torch.group_norm(torch.tensor([[1., 3.]]), 1)
    tensor([[-1.0000,  1.0000]])
""",
    "instance_norm": r"""Instance normalization: each channel of each sample normalized over its spatial dimensions
(see :func:`ndgrad.batch_norm` for the arguments; `use_input_stats` plays the part of `training`).

Args:
    input (Tensor): (N, C, ...).
    weight, bias, running_mean, running_var (Tensor or None): as for batch norm, (C,) each.
    use_input_stats (bool): normalize by the instance's statistics.
    momentum (float): the weight of the new statistics in the running ones.
    eps (float): added to the variance.
    cudnn_enabled (bool): ignored.

Returns:
    Tensor: the normalized input.

Example::

    >>> torch.instance_norm(torch.tensor([[[1., 3.]]]), None, None, None, None, True, 0.1, 1e-5, False)
    tensor([[[-1.0000,  1.0000]]])
""",
    "layer_norm": r"""Layer normalization over the last dimensions (those of `normalized_shape`), per sample,
then an elementwise scale and shift.

Args:
    input (Tensor): (..., \*normalized_shape).
    normalized_shape (list of ints): the trailing shape normalized.
    weight (Tensor, optional): scale, of shape `normalized_shape`.
    bias (Tensor, optional): shift, of shape `normalized_shape`.
    eps (float, optional): added to the variance.
    cudnn_enable (bool, optional): ignored.

Returns:
    Tensor: the normalized input.

Example::

    >>> torch.layer_norm(torch.tensor([[1., 3.]]), [2])
    tensor([[-1.0000,  1.0000]])
""",
    "native_batch_norm_backward": r"""The gradients of batch normalization with respect to its input, weight and bias, from
the saved statistics (the backward op of torch's ``aten.native_batch_norm``; torch exposes it only
under ``torch.ops.aten``).

Args:
    grad_out (Tensor): the gradient of the output.
    input (Tensor): the input of the forward.
    weight (Tensor or None): the scale.
    running_mean, running_var (Tensor or None): the running statistics (used out of training).
    save_mean (Tensor or None): the batch mean saved in training.
    save_invstd (Tensor or None): the saved inverse standard deviation.
    train (bool): whether the forward used batch statistics.
    eps (float): added to the variance.
    output_mask (list of 3 bools, optional): which gradients to compute.

Returns:
    (Tensor, Tensor, Tensor): the gradients (``None`` where not asked).

Example::

    >>> g = torch.native_batch_norm_backward(torch.ones(2, 1), torch.tensor([[1.], [3.]]), None, None,
    ...                                      None, torch.tensor([2.]), torch.tensor([1.]), True, 1e-5)
    >>> g[2]
    tensor([2.])
""",
    "native_group_norm": r"""Group normalization with explicit sizes, that also returns the statistics
(the op behind :func:`ndgrad.group_norm`).

Args:
    input (Tensor): (N, C, ...).
    weight (Tensor or None): (C,) scale.
    bias (Tensor or None): (C,) shift.
    N (int): the batch size.
    C (int): the number of channels.
    HxW (int): the number of elements per channel.
    group (int): the number of groups.
    eps (float): added to the variance.

Returns:
    (Tensor, Tensor, Tensor): the output, and the mean and inverse standard deviation, (N, group).

Example::

    >>> out, mean, rstd = torch.native_group_norm(torch.tensor([[1., 3.]]), None, None, 1, 2, 1, 1, 1e-5)
    >>> mean
    tensor([[2.]])
""",
    "native_group_norm_backward": r"""The gradients of :func:`ndgrad.native_group_norm` with respect to its input, weight
and bias, from the saved statistics (torch exposes it only under ``torch.ops.aten``).

Args:
    grad_out (Tensor): the gradient of the output.
    input (Tensor): the input of the forward.
    mean (Tensor): the saved mean, (N, group).
    rstd (Tensor): the saved inverse standard deviation, (N, group).
    weight (Tensor or None): the scale.
    N, C, HxW, group (int): the sizes of the forward.
    output_mask (list of 3 bools, optional): which gradients to compute.

Returns:
    (Tensor, Tensor, Tensor): the gradients (``None`` where not asked).

Example::

    >>> x = torch.tensor([[1., 3.]])
    >>> g = torch.native_group_norm_backward(torch.ones(1, 2), x, torch.tensor([[2.]]), torch.tensor([[1.]]),
    ...                                      None, 1, 2, 1, 1)
    >>> g[1]
    tensor([-1.,  1.])
""",
    "native_layer_norm": r"""Layer normalization that also returns the statistics (the op behind :func:`ndgrad.layer_norm`).

Args:
    input (Tensor): (..., \*normalized_shape).
    normalized_shape (list of ints): the trailing shape normalized.
    weight (Tensor or None): scale.
    bias (Tensor or None): shift.
    eps (float): added to the variance.

Returns:
    (Tensor, Tensor, Tensor): the output, and the mean and inverse standard deviation (with size 1
    in the normalized dimensions).

Example::

    >>> out, mean, rstd = torch.native_layer_norm(torch.tensor([[1., 3.]]), [2], None, None, 1e-5)
    >>> out, mean
    (tensor([[-1.0000,  1.0000]]), tensor([[2.]]))
""",
    "native_layer_norm_backward": r"""The gradients of :func:`ndgrad.native_layer_norm` with respect to its input, weight
and bias, from the saved statistics (torch exposes it only under ``torch.ops.aten``).

Args:
    grad_out (Tensor): the gradient of the output.
    input (Tensor): the input of the forward.
    normalized_shape (list of ints): the trailing shape normalized.
    mean (Tensor): the saved mean.
    rstd (Tensor): the saved inverse standard deviation.
    weight (Tensor or None): the scale.
    bias (Tensor or None): the shift.
    output_mask (list of 3 bools, optional): which gradients to compute.

Returns:
    (Tensor, Tensor, Tensor): the gradients (``None`` where not asked).

Example::

    >>> x = torch.tensor([[1., 3.]])
    >>> g = torch.native_layer_norm_backward(torch.ones(1, 2), x, [2], torch.tensor([[2.]]),
    ...                                      torch.tensor([[1.]]), None, None)
    >>> g[0]
    tensor([[0., 0.]])
""",
    "rms_norm": r"""RMS normalization over the last dimensions: ``x / sqrt(mean(x**2) + eps)``, times `weight`.

Args:
    input (Tensor): (..., \*normalized_shape).
    normalized_shape (list of ints): the trailing shape normalized.
    weight (Tensor, optional): scale, of shape `normalized_shape`.
    eps (float, optional): added to the mean square (default: the dtype's machine epsilon).

Returns:
    Tensor: the normalized input.

Example::

    >>> torch.rms_norm(torch.tensor([[3., 4.]]), [2])
    tensor([[0.8485, 1.1314]])
""",
    "adaptive_avg_pool1d": r"""1-D average pooling to a fixed output length: the windows are chosen to cover the input.

Args:
    input (Tensor): (N, C, L) or (C, L).
    output_size (int or tuple): the output length.

Returns:
    Tensor: (N, C, output_size).

Example::

    >>> torch.adaptive_avg_pool1d(torch.tensor([[[1., 2., 3., 4.]]]), 2)
    tensor([[[1.5000, 3.5000]]])
""",
    "adaptive_max_pool1d": r"""1-D max pooling to a fixed output length, with the indices of the maxima.

Args:
    input (Tensor): (N, C, L) or (C, L).
    output_size (int or tuple): the output length.

Returns:
    (Tensor, Tensor): the maxima and their positions in `input`'s last dimension.

Example::

    >>> torch.adaptive_max_pool1d(torch.tensor([[[1., 2., 3., 4.]]]), 2)
    (tensor([[[2., 4.]]]), tensor([[[1, 3]]]))
""",
    "avg_pool1d": r"""1-D average pooling: the mean of each window of `kernel_size` elements.

Args:
    input (Tensor): (N, C, L) or (C, L).
    kernel_size (int or tuple): the window size.
    stride (int or tuple, optional): the step (default: `kernel_size`).
    padding (int or tuple, optional): zeros added on both sides.
    ceil_mode (bool, optional): round the output length up instead of down.
    count_include_pad (bool, optional): count the padding zeros in the mean.

Returns:
    Tensor: the pooled input.

Example::

    >>> torch.avg_pool1d(torch.tensor([[[1., 2., 3., 4.]]]), 2)
    tensor([[[1.5000, 3.5000]]])
""",
    "max_pool1d": r"""1-D max pooling: the largest element of each window.

Torch's top-level form takes no `return_indices`: the positions of the maxima come from
:func:`ndgrad.max_pool1d_with_indices` or ``nn.functional.max_pool1d(..., return_indices=True)``.

Args:
    input (Tensor): (N, C, L) or (C, L).
    kernel_size (int or tuple): the window size.
    stride (int or tuple, optional): the step (default: `kernel_size`).
    padding (int or tuple, optional): implicit -inf added on both sides.
    dilation (int or tuple, optional): the spacing of the window's elements.
    ceil_mode (bool, optional): round the output length up instead of down.

Returns:
    Tensor: the pooled input.

Example::

    >>> torch.max_pool1d(torch.tensor([[[1., 3., 2., 4.]]]), 2)
    tensor([[[3., 4.]]])
""",
    "max_pool1d_with_indices": r""":func:`ndgrad.max_pool1d` that also returns the positions of the maxima.

Example::

    >>> torch.max_pool1d_with_indices(torch.tensor([[[1., 3., 2., 4.]]]), 2)
    (tensor([[[3., 4.]]]), tensor([[[1, 3]]]))
""",
    "max_pool2d": r"""2-D max pooling: the largest element of each window.

Torch's top-level form takes no `return_indices`: the positions of the maxima come from
``nn.functional.max_pool2d(..., return_indices=True)``.

Args:
    input (Tensor): (N, C, H, W) or (C, H, W).
    kernel_size (int or tuple): the window size.
    stride (int or tuple, optional): the step (default: `kernel_size`).
    padding (int or tuple, optional): implicit -inf added on each side.
    dilation (int or tuple, optional): the spacing of the window's elements.
    ceil_mode (bool, optional): round the output size up instead of down.

Returns:
    Tensor: the pooled input.

Example::

    >>> torch.max_pool2d(torch.arange(16.).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
""",
    "max_pool3d": r"""3-D max pooling: the largest element of each window (arguments as :func:`ndgrad.max_pool2d`,
over three spatial dimensions).

Example::

    >>> torch.max_pool3d(torch.arange(8.).reshape(1, 2, 2, 2), 2)
    tensor([[[[7.]]]])
""",
    "binary_cross_entropy_with_logits": r"""Binary cross entropy between the targets and the sigmoid of `input` (logits),
computed stably.

Args:
    input (Tensor): the logits.
    target (Tensor): the targets in [0, 1], shaped like `input`.
    weight (Tensor, optional): a weight per element (broadcast).
    pos_weight (Tensor, optional): a weight on the positive term, per class.
    reduction (int, optional): 0 none, 1 mean, 2 sum (the ATen enum; the nn.functional version
        takes a string).

Returns:
    Tensor: the loss.

Example::

    >>> torch.binary_cross_entropy_with_logits(torch.tensor([0.]), torch.tensor([1.]))
    tensor([0.6931])
""",
    "cosine_embedding_loss": r"""The cosine embedding loss: ``1 - cos(x1, x2)`` for target 1,
``max(0, cos(x1, x2) - margin)`` for target -1, per sample.

Args:
    input1 (Tensor): (N, D).
    input2 (Tensor): (N, D).
    target (Tensor): (N,), 1 or -1.
    margin (float, optional): the margin for dissimilar pairs.
    reduction (int, optional): 0 none, 1 mean, 2 sum.

Returns:
    Tensor: the loss.

Example::

    >>> torch.cosine_embedding_loss(torch.tensor([[1., 0.]]), torch.tensor([[0., 1.]]), torch.tensor([1]))
    tensor([1.])
""",
    "ctc_loss": r"""The connectionist temporal classification loss between sequences of log-probabilities and
shorter target sequences (alignments summed over).

Args:
    log_probs (Tensor): (T, N, C) log-probabilities.
    targets (Tensor): (N, S) padded targets, or their concatenation.
    input_lengths (list or Tensor): the length of each input sequence.
    target_lengths (list or Tensor): the length of each target.
    blank (int, optional): the blank label.
    reduction (int, optional): 0 none (the default, as torch's binding reads it), 1 mean over the
        target lengths (a 0-dim result), 2 sum.
    zero_infinity (bool, optional): replace infinite losses (impossible alignments) by zero.

Returns:
    Tensor: the loss.

Example::

    >>> log_probs = torch.zeros(2, 1, 2).log_softmax(2)
    >>> torch.ctc_loss(log_probs, torch.tensor([[1]]), [2], [1], 0, 0)
    tensor([0.2877])
""",
    "hinge_embedding_loss": r"""The hinge embedding loss: `x` where the target is 1, ``max(0, margin - x)`` where it is -1.

Args:
    input (Tensor): the input (often distances).
    target (Tensor): 1 or -1, shaped like `input`.
    margin (float, optional): the margin.
    reduction (int, optional): 0 none, 1 mean, 2 sum.

Returns:
    Tensor: the loss.

Example::

    >>> torch.hinge_embedding_loss(torch.tensor([0.5, 2.]), torch.tensor([1, -1]))
    tensor([0.5000, 0.0000])
""",
    "kl_div": r"""The pointwise Kullback-Leibler divergence ``target * (log(target) - input)``, `input` given as
log-probabilities.

Args:
    input (Tensor): log-probabilities.
    target (Tensor): probabilities (log-probabilities with ``log_target=True``).
    reduction (int, optional): 0 none, 1 mean, 2 sum.
    log_target (bool, optional): whether `target` is in log space.

Returns:
    Tensor: the divergence.

Example::

    >>> torch.kl_div(torch.tensor([0., 0.]), torch.tensor([0.5, 0.5]))
    tensor([-0.3466, -0.3466])
""",
    "margin_ranking_loss": r"""The margin ranking loss ``max(0, -target * (input1 - input2) + margin)``: target 1 asks for
``input1 > input2``, -1 for the reverse.

Args:
    input1 (Tensor): the first scores.
    input2 (Tensor): the second scores.
    target (Tensor): 1 or -1.
    margin (float, optional): the margin.
    reduction (int, optional): 0 none, 1 mean, 2 sum.

Returns:
    Tensor: the loss.

Example::

    >>> torch.margin_ranking_loss(torch.tensor([1., 2.]), torch.tensor([2., 1.]), torch.tensor([1., 1.]))
    tensor([1., 0.])
""",
    "poisson_nll_loss": r"""The negative log likelihood of `target` under a Poisson distribution of rate `input`.

Args:
    input (Tensor): the rates (their logs with `log_input`).
    target (Tensor): the counts.
    log_input (bool): the loss is ``exp(input) - target * input``; else ``input - target * log(input + eps)``.
    full (bool): add Stirling's approximation of ``log(target!)``.
    eps (float): keeps the log finite.
    reduction (int): 0 none, 1 mean, 2 sum.

Returns:
    Tensor: the loss.

Example::

    >>> torch.poisson_nll_loss(torch.tensor([0., 1.]), torch.tensor([1., 2.]), True, False, 1e-8, 1)
    tensor(0.8591)
""",
    "affine_grid_generator": r"""The sampling grid of an affine transform for :func:`ndgrad.grid_sampler`
(see :func:`ndgrad.nn.functional.affine_grid`).

Args:
    theta (Tensor): (N, 2, 3) or (N, 3, 4) affine matrices.
    size (list of ints): the target size, (N, C, H, W) or (N, C, D, H, W).
    align_corners (bool): whether -1 and 1 are the centers of the corner pixels (else their edges).

Returns:
    Tensor: (N, H, W, 2) or (N, D, H, W, 3) coordinates in [-1, 1].

Example::

    >>> theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])
    >>> torch.affine_grid_generator(theta, [1, 1, 1, 2], False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
""",
    "grid_sampler": r"""Samples `input` at the coordinates of `grid` (in [-1, 1]), for 4-D or 5-D inputs
(see :func:`ndgrad.nn.functional.grid_sample`).

Args:
    input (Tensor): (N, C, H, W) or (N, C, D, H, W).
    grid (Tensor): (N, H_out, W_out, 2) or (N, D_out, H_out, W_out, 3).
    interpolation_mode (int): 0 bilinear, 1 nearest, 2 bicubic.
    padding_mode (int): 0 zeros, 1 border, 2 reflection.
    align_corners (bool): whether -1 and 1 are the centers of the corner pixels.

Returns:
    Tensor: the sampled values.

Example::

    >>> x = torch.arange(4.).reshape(1, 1, 2, 2)
    >>> torch.grid_sampler(x, torch.zeros(1, 1, 1, 2), 0, 0, False)
    tensor([[[[1.5000]]]])
""",
    "grid_sampler_2d": r""":func:`ndgrad.grid_sampler` for 4-D inputs.

Example::

    >>> x = torch.arange(4.).reshape(1, 1, 2, 2)
    >>> torch.grid_sampler_2d(x, torch.tensor([[[[-1., -1.]]]]), 0, 0, True)
    tensor([[[[0.]]]])
""",
    "grid_sampler_3d": r""":func:`ndgrad.grid_sampler` for 5-D inputs.

Example::

    >>> x = torch.arange(8.).reshape(1, 1, 2, 2, 2)
    >>> torch.grid_sampler_3d(x, torch.zeros(1, 1, 1, 1, 3), 0, 0, False)
    tensor([[[[[3.5000]]]]])
""",
    "grid_sampler_2d_backward": r"""The gradients of :func:`ndgrad.grid_sampler_2d` with respect to its input and grid
(torch exposes it only under ``torch.ops.aten``).

Args:
    grad_output (Tensor): the gradient of the output.
    input, grid (Tensor): the forward's inputs.
    interpolation_mode, padding_mode (int), align_corners (bool): as in the forward.
    output_mask (list of 2 bools): which gradients to compute.

Returns:
    (Tensor, Tensor): the gradients (``None`` where not asked).

Example::

    >>> x = torch.arange(4.).reshape(1, 1, 2, 2)
    >>> gx, gg = torch.grid_sampler_2d_backward(torch.ones(1, 1, 1, 1), x, torch.zeros(1, 1, 1, 2),
    ...                                         0, 0, False, [True, True])
    >>> gg
    tensor([[[[1., 2.]]]])
""",
    "grid_sampler_3d_backward": r"""The gradients of :func:`ndgrad.grid_sampler_3d` with respect to its input and grid
(torch exposes it only under ``torch.ops.aten``).

Args:
    grad_output (Tensor): the gradient of the output.
    input, grid (Tensor): the forward's inputs.
    interpolation_mode, padding_mode (int), align_corners (bool): as in the forward.
    output_mask (list of 2 bools): which gradients to compute.

Returns:
    (Tensor, Tensor): the gradients (``None`` where not asked).

Example::

    >>> x = torch.arange(8.).reshape(1, 1, 2, 2, 2)
    >>> gx, gg = torch.grid_sampler_3d_backward(torch.ones(1, 1, 1, 1, 1), x, torch.zeros(1, 1, 1, 1, 3),
    ...                                         0, 0, False, [True, True])
    >>> gx.shape
    torch.Size([1, 1, 2, 2, 2])
""",
    "pixel_shuffle": r"""Rearranges (N, C r², H, W) into (N, C, H r, W r): the channels of each group fill an r x r block.

Args:
    self (Tensor): (..., C r², H, W).
    upscale_factor (int): r.

Returns:
    Tensor: (..., C, H r, W r).

Example::

    >>> torch.pixel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
""",
    "pixel_unshuffle": r"""The inverse of :func:`ndgrad.pixel_shuffle`: (N, C, H r, W r) into (N, C r², H, W).

Args:
    self (Tensor): (..., C, H r, W r).
    downscale_factor (int): r.

Returns:
    Tensor: (..., C r², H, W).

Example::

    >>> torch.pixel_unshuffle(torch.arange(4.).reshape(1, 1, 2, 2), 2).shape
    torch.Size([1, 4, 1, 1])
""",
    "embedding": r"""The rows of `weight` at `indices` (a lookup table; see :func:`ndgrad.nn.functional.embedding`).

Args:
    weight (Tensor): (num_embeddings, dim).
    indices (Tensor): int indices of any shape.
    padding_idx (int, optional): the row whose gradient stays zero (-1: none).
    scale_grad_by_freq (bool, optional): scale the gradient by the inverse frequency of each index.
    sparse (bool, optional): a sparse gradient for `weight`.

Returns:
    Tensor: (\*indices.shape, dim).

Example::

    >>> w = torch.tensor([[0., 0.], [1., 2.]])
    >>> torch.embedding(w, torch.tensor([1, 0, 1]))
    tensor([[1., 2.],
            [0., 0.],
            [1., 2.]])
""",
    "embedding_bag": r"""Sums, means or maxima of bags of embedding rows, without making the intermediate rows
(see :func:`ndgrad.nn.functional.embedding_bag`).

Args:
    weight (Tensor): (num_embeddings, dim).
    indices (Tensor): 1-D indices of all the bags, concatenated.
    offsets (Tensor): where each bag starts in `indices`.
    scale_grad_by_freq (bool, optional): scale the gradient by the inverse index frequency.
    mode (int, optional): 0 sum, 1 mean, 2 max.
    sparse (bool, optional): a sparse gradient.
    per_sample_weights (Tensor, optional): weights of the rows (sum mode).
    include_last_offset (bool, optional): whether `offsets` ends with the total length.
    padding_idx (int, optional): an index left out of the bags.

Returns:
    (Tensor, Tensor, Tensor, Tensor): the bags' values, then bookkeeping tensors for the backward.

Example::

    >>> w = torch.tensor([[0., 0.], [1., 2.]])
    >>> torch.embedding_bag(w, torch.tensor([1, 0, 1]), torch.tensor([0, 2]))[0]
    tensor([[1., 2.],
            [1., 2.]])
""",
    "embedding_dense_backward": r"""The dense gradient of :func:`ndgrad.embedding` with respect to its weight: the rows of
`grad_output` summed by index (torch exposes it only under ``torch.ops.aten``).

Args:
    grad_output (Tensor): (\*indices.shape, dim).
    indices (Tensor): the forward's indices.
    num_weights (int): the number of rows of the weight.
    padding_idx (int): a row left without gradient (-1: none).
    scale_grad_by_freq (bool): scale by the inverse index frequency.

Returns:
    Tensor: (num_weights, dim).

Example::

    >>> torch.embedding_dense_backward(torch.ones(3, 2), torch.tensor([1, 0, 1]), 2, -1, False)
    tensor([[1., 1.],
            [2., 2.]])
""",
    "rnn_relu_cell": r"""One step of an Elman RNN with ReLU: ``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

Args:
    input (Tensor): (N, input_size).
    hx (Tensor): (N, hidden_size) hidden state.
    w_ih (Tensor): (hidden_size, input_size).
    w_hh (Tensor): (hidden_size, hidden_size).
    b_ih, b_hh (Tensor, optional): (hidden_size,) biases.

Returns:
    Tensor: the next hidden state.

Example::

    >>> torch.rnn_relu_cell(torch.ones(1, 2), torch.ones(1, 1), torch.ones(1, 2), torch.ones(1, 1))
    tensor([[3.]])
""",
    "rnn_tanh_cell": r"""One step of an Elman RNN with tanh: ``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

Args:
    input (Tensor): (N, input_size).
    hx (Tensor): (N, hidden_size) hidden state.
    w_ih (Tensor): (hidden_size, input_size).
    w_hh (Tensor): (hidden_size, hidden_size).
    b_ih, b_hh (Tensor, optional): (hidden_size,) biases.

Returns:
    Tensor: the next hidden state.

Example::

    >>> torch.rnn_tanh_cell(torch.zeros(1, 2), torch.zeros(1, 1), torch.ones(1, 2), torch.ones(1, 1))
    tensor([[0.]])
""",
    "cdist": r"""The p-norm distance between each row of `x1` and each row of `x2` (batched over leading dimensions).

Args:
    x1 (Tensor): (..., P, M).
    x2 (Tensor): (..., R, M).
    p (float, optional): the norm, >= 0.
    compute_mode (str, optional): for p = 2, whether to use matrix products (faster, less exact).

Returns:
    Tensor: (..., P, R).

Example::

    >>> torch.cdist(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.], [1., 0.]]))
    tensor([[5., 1.]])
""",
    "pdist": r"""The p-norm distance between every pair of rows of `input` (the upper triangle of the
distance matrix, row by row).

Args:
    input (Tensor): (N, M).
    p (float, optional): the norm.

Returns:
    Tensor: (N (N - 1) / 2,).

Example::

    >>> torch.pdist(torch.tensor([[0., 0.], [3., 4.], [0., 1.]]))
    tensor([5.0000, 1.0000, 4.2426])
""",
    "constant_pad_nd": r"""`input` padded with `value`: `pad` lists (before, after) counts from the last dimension
backwards; negative counts crop.

Args:
    self (Tensor): the input.
    pad (list of ints): an even number of counts.
    value (Number, optional): the fill value.

Returns:
    Tensor: the padded tensor.

Example::

    >>> torch.constant_pad_nd(torch.tensor([1., 2.]), [1, 2], 9.)
    tensor([9., 1., 2., 9., 9.])
""",
    "bartlett_window": r"""The Bartlett (triangular) window: ``1 - |2n / N - 1|`` for n in [0, N), N = `window_length`
(periodic) or `window_length` - 1 (symmetric).

Args:
    window_length (int): the number of points.
    periodic (bool, optional): a window for spectral analysis (one period of a periodic function)
        instead of a symmetric one for filter design.
    dtype (dtype, optional): a floating dtype (default: the default dtype).
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.

Returns:
    Tensor: a 1-D tensor of `window_length` points.

Example::

    >>> torch.bartlett_window(5)
    tensor([0.0000, 0.4000, 0.8000, 0.8000, 0.4000])
""",
    "blackman_window": r"""The Blackman window: ``0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)`` for n in [0, N),
N = `window_length` (periodic) or `window_length` - 1 (symmetric).

Args:
    window_length (int): the number of points.
    periodic (bool, optional): periodic (spectral analysis) or symmetric (filter design).
    dtype (dtype, optional): a floating dtype (default: the default dtype).
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.

Returns:
    Tensor: a 1-D tensor of `window_length` points.

Example::

    >>> torch.blackman_window(4, periodic=False)[1:3]
    tensor([0.6300, 0.6300])
""",
    "hamming_window": r"""hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, device=None, requires_grad=False) -> Tensor

The Hamming window: ``alpha - beta cos(2 pi n / N)`` for n in [0, N), N = `window_length`
(periodic) or `window_length` - 1 (symmetric).

Args:
    window_length (int): the number of points.
    periodic (bool, optional): periodic (spectral analysis) or symmetric (filter design).
    alpha (float, optional): the constant term (given only with `periodic`, as in torch).
    beta (float, optional): the cosine's factor (given only with `periodic` and `alpha`).
    dtype (dtype, optional): a floating dtype (default: the default dtype).
    requires_grad (bool, optional): record operations on the result.

Returns:
    Tensor: a 1-D tensor of `window_length` points.

Example::

    >>> torch.hamming_window(4, periodic=False)
    tensor([0.0800, 0.7700, 0.7700, 0.0800])
    >>> torch.hamming_window(4, periodic=False, alpha=0.5, beta=0.5)
    tensor([0.0000, 0.7500, 0.7500, 0.0000])
""",
    "hann_window": r"""The Hann window: ``0.5 - 0.5 cos(2 pi n / N)`` for n in [0, N), N = `window_length` (periodic)
or `window_length` - 1 (symmetric).

Args:
    window_length (int): the number of points.
    periodic (bool, optional): periodic (spectral analysis) or symmetric (filter design).
    dtype (dtype, optional): a floating dtype (default: the default dtype).
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.

Returns:
    Tensor: a 1-D tensor of `window_length` points.

Example::

    >>> torch.hann_window(4, periodic=False)
    tensor([0.0000, 0.7500, 0.7500, 0.0000])
""",
    "kaiser_window": r"""kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None, requires_grad=False) -> Tensor

The Kaiser window: ``I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta)`` for n in [0, N), with I0
the modified Bessel function of order zero and N = `window_length` (periodic) or `window_length` - 1.

Args:
    window_length (int): the number of points.
    periodic (bool, optional): periodic (spectral analysis) or symmetric (filter design).
    beta (float, optional): the shape parameter (larger: narrower window); given only with
        `periodic`, as in torch.
    dtype (dtype, optional): a floating dtype (default: the default dtype).
    requires_grad (bool, optional): record operations on the result.

Returns:
    Tensor: a 1-D tensor of `window_length` points.

Example::

    >>> torch.kaiser_window(4, False, 0.)
    tensor([1., 1., 1., 1.])
    >>> torch.kaiser_window(3, periodic=False, beta=2.)
    tensor([0.4387, 1.0000, 0.4387])
""",
    "clone": r"""A copy of `input` with its own memory; the copy stays in the autograd graph (its gradient flows
back to `input`).

Args:
    input (Tensor): the input.
    memory_format (optional): the layout of the copy (default: keep `input`'s strides).

Returns:
    Tensor: the copy.

Example::

    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> torch.clone(x)
    tensor([1., 2.], grad_fn=<CloneBackward0>)
""",
    "copy_": r"""Copies the elements of `src` into the tensor in place (`src` is broadcast and cast to its dtype),
and returns it. Torch has it only as the method ``Tensor.copy_``.

Args:
    src (Tensor): the values.
    non_blocking (bool, optional): ignored (CPU only).

Returns:
    Tensor: the tensor itself.

Example::

    >>> torch.zeros(2).copy_(torch.tensor([1, 2]))
    tensor([1., 2.])
""",
    "full_like": r"""A tensor shaped like `input` filled with `fill_value` (dtype and device from `input` unless given).

Args:
    input (Tensor): gives the shape.
    fill_value (Scalar): the fill value.
    dtype (dtype, optional): the dtype.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    memory_format (optional): the memory layout.

Returns:
    Tensor: the new tensor.

Example::

    >>> torch.full_like(torch.zeros(2, dtype=torch.int64), 7)
    tensor([7, 7])
""",
    "to": r"""The tensor converted to another dtype (and/or device): ``to(dtype)``, ``to(device, dtype)`` or
``to(other)`` (other's dtype and device). Returns the tensor itself when nothing changes, unless
``copy=True``. Only the CPU device exists in ndgrad. Torch has it only as the method ``Tensor.to``.

Args:
    dtype (dtype, optional): the target dtype.
    device (optional): the target device (the CPU).
    non_blocking (bool, optional): ignored.
    copy (bool, optional): always return a new tensor.
    memory_format (optional): the memory layout.

Returns:
    Tensor: the converted tensor.

Example::

    >>> torch.tensor([1.5, -2.5]).to(torch.int64)
    tensor([ 1, -2])
    >>> x = torch.zeros(1)
    >>> x.to(torch.float32) is x
    True
""",
    "tril_indices": r"""The (row, column) indices of the lower triangle of a `row` x `col` matrix, row by row.

Args:
    row (int): the number of rows.
    col (int): the number of columns.
    offset (int, optional): the diagonal that bounds the triangle (> 0 above the main one).
    dtype (dtype, optional): int64 (default) or int32.

Returns:
    Tensor: a (2, N) tensor.

Example::

    >>> torch.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
""",
    "triu_indices": r"""The (row, column) indices of the upper triangle of a `row` x `col` matrix, row by row.

Args:
    row (int): the number of rows.
    col (int): the number of columns.
    offset (int, optional): the diagonal that bounds the triangle (> 0 above the main one).
    dtype (dtype, optional): int64 (default) or int32.

Returns:
    Tensor: a (2, N) tensor.

Example::

    >>> torch.triu_indices(2, 3, 1)
    tensor([[0, 0, 1],
            [1, 2, 2]])
""",
    "cauchy_": r"""Fills the tensor in place with samples of the Cauchy distribution
``sigma / (pi ((x - median)^2 + sigma^2))``. Torch has it only as a method. (The same seed
gives torch's numbers.)

Args:
    median (float, optional): the location.
    sigma (float, optional): the scale.
    generator (Generator, optional): the random generator.

Returns:
    Tensor: the tensor itself.

Example::

    >>> torch.empty(3).cauchy_().shape
    torch.Size([3])
""",
    "exponential_": r"""Fills the tensor in place with samples of the exponential distribution of rate `lambd`. Torch has
it only as a method.

Args:
    lambd (float, optional): the rate.
    generator (Generator, optional): the random generator.

Returns:
    Tensor: the tensor itself.

Example::

    >>> bool((torch.empty(100).exponential_() >= 0).all())
    True
""",
    "geometric_": r"""Fills the tensor in place with samples of the geometric distribution: the number of Bernoulli(p)
trials up to the first success (1, 2, ...). Torch has it only as a method.

Args:
    p (float): the success probability, in (0, 1).
    generator (Generator, optional): the random generator.

Returns:
    Tensor: the tensor itself.

Example::

    >>> bool((torch.empty(100).geometric_(0.5) >= 1).all())
    True
""",
    "log_normal_": r"""Fills the tensor in place with samples whose logarithm is normal with `mean` and `std`. Torch has
it only as a method.

Args:
    mean (float, optional): the mean of the logarithm.
    std (float, optional): the standard deviation of the logarithm.
    generator (Generator, optional): the random generator.

Returns:
    Tensor: the tensor itself.

Example::

    >>> bool((torch.empty(100).log_normal_() > 0).all())
    True
""",
    "normal_": r"""Fills the tensor in place with samples of the normal distribution. Torch has it only as a method.
(The same seed gives torch's numbers.)

Args:
    mean (float, optional): the mean.
    std (float, optional): the standard deviation.
    generator (Generator, optional): the random generator.

Returns:
    Tensor: the tensor itself.

Example::

    >>> torch.empty(10000).normal_(2., 0.5).mean().round()
    tensor(2.)
""",
    "uniform_": r"""Fills the tensor in place with samples of the uniform distribution on [from, to). Torch has it
only as a method.

Args:
    from_ (float, optional): the lower bound (``from`` in torch's signature, usable positionally only).
    to (float, optional): the upper bound.
    generator (Generator, optional): the random generator.

Returns:
    Tensor: the tensor itself.

Example::

    >>> x = torch.empty(100).uniform_(-1, 1)
    >>> bool((x >= -1).all() and (x < 1).all())
    True
""",
    "rand_like": r"""A tensor shaped like `input` of samples uniform on [0, 1) (see :func:`ndgrad.rand`).

Args:
    input (Tensor): gives the shape, and the dtype unless given.
    generator (Generator, optional): the random generator.
    dtype (dtype, optional): a floating dtype.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    memory_format (optional): the memory layout.

Returns:
    Tensor: the new tensor.

Example::

    >>> torch.rand_like(torch.zeros(2, 3)).shape
    torch.Size([2, 3])
""",
    "randn_like": r"""A tensor shaped like `input` of standard normal samples (see :func:`ndgrad.randn`).

Args:
    input (Tensor): gives the shape, and the dtype unless given.
    generator (Generator, optional): the random generator.
    dtype (dtype, optional): a floating or complex dtype.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    memory_format (optional): the memory layout.

Returns:
    Tensor: the new tensor.

Example::

    >>> torch.randn_like(torch.zeros(2), dtype=torch.float64).dtype
    torch.float64
""",
    "sparse_coo_tensor": r"""A sparse tensor in COO format: the nonzero `values` at the coordinates `indices`.

Args:
    indices (Tensor): (ndim, nnz) int coordinates.
    values (Tensor): (nnz, ...) the values (dense trailing dimensions allowed).
    size (tuple of ints, optional): the shape (default: the smallest that holds the indices).
    dtype (dtype, optional): the dtype of the values.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    check_invariants (bool, optional): check the indices against `size`.
    is_coalesced (bool, optional): declare the indices sorted and unique.

Returns:
    Tensor: a tensor with layout ``torch.sparse_coo``.

Example::

    >>> s = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([3., 4.]), (2, 2))
    >>> s.to_dense()
    tensor([[0., 3.],
            [4., 0.]])
""",
    "sparse_compressed_tensor": r"""A sparse tensor in a compressed format, the format chosen by `layout`
(``torch.sparse_csr``, ``sparse_csc``, ``sparse_bsr`` or ``sparse_bsc``).

Args:
    compressed_indices (Tensor): where each compressed row (or column) starts in `plain_indices`.
    plain_indices (Tensor): the column (or row) of each value (or block).
    values (Tensor): the values, or blocks for the block formats.
    size (tuple of ints, optional): the shape.
    dtype (dtype, optional): the dtype of the values.
    layout (layout): the format.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    check_invariants (bool, optional): check the indices.

Returns:
    Tensor: the sparse tensor.

Example::

    >>> s = torch.sparse_compressed_tensor(torch.tensor([0, 1, 2]), torch.tensor([1, 0]),
    ...                                    torch.tensor([3., 4.]), (2, 2), layout=torch.sparse_csr)
    >>> s.to_dense()
    tensor([[0., 3.],
            [4., 0.]])
""",
    "sparse_csr_tensor": r"""sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False, check_invariants=None) -> Tensor

A sparse tensor in CSR format (compressed sparse rows).

Args:
    crow_indices (Tensor): (rows + 1,): where each row starts in `col_indices`.
    col_indices (Tensor): the column of each value.
    values (Tensor): the values.
    size (tuple of ints, optional): the shape.
    dtype (dtype, optional): the dtype of the values.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    check_invariants (bool, optional): check the indices.

Returns:
    Tensor: a tensor with layout ``torch.sparse_csr``.

Example::

    >>> s = torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([1, 0]), torch.tensor([3., 4.]), (2, 2))
    >>> s.to_dense()
    tensor([[0., 3.],
            [4., 0.]])
""",
    "sparse_csc_tensor": r"""sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False, check_invariants=None) -> Tensor

A sparse tensor in CSC format (compressed sparse columns).

Args:
    ccol_indices (Tensor): (columns + 1,): where each column starts in `row_indices`.
    row_indices (Tensor): the row of each value.
    values (Tensor): the values.
    size (tuple of ints, optional): the shape.
    dtype (dtype, optional): the dtype of the values.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    check_invariants (bool, optional): check the indices.

Returns:
    Tensor: a tensor with layout ``torch.sparse_csc``.

Example::

    >>> s = torch.sparse_csc_tensor(ccol_indices=torch.tensor([0, 1, 2]), row_indices=torch.tensor([1, 0]),
    ...                             values=torch.tensor([3., 4.]), size=(2, 2))
    >>> s.to_dense()
    tensor([[0., 4.],
            [3., 0.]])
""",
    "sparse_bsr_tensor": r"""sparse_bsr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False, check_invariants=None) -> Tensor

A sparse tensor in BSR format: CSR whose entries are dense blocks.

Args:
    crow_indices (Tensor): where each block row starts in `col_indices`.
    col_indices (Tensor): the block column of each block.
    values (Tensor): (nnz, block rows, block columns) the blocks.
    size (tuple of ints, optional): the shape.
    dtype (dtype, optional): the dtype of the values.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    check_invariants (bool, optional): check the indices.

Returns:
    Tensor: a tensor with layout ``torch.sparse_bsr``.

Example::

    >>> s = torch.sparse_bsr_tensor(torch.tensor([0, 1]), torch.tensor([0]), torch.ones(1, 2, 2), (2, 2))
    >>> s.to_dense()
    tensor([[1., 1.],
            [1., 1.]])
""",
    "sparse_bsc_tensor": r"""sparse_bsc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False, check_invariants=None) -> Tensor

A sparse tensor in BSC format: CSC whose entries are dense blocks.

Args:
    ccol_indices (Tensor): where each block column starts in `row_indices`.
    row_indices (Tensor): the block row of each block.
    values (Tensor): (nnz, block rows, block columns) the blocks.
    size (tuple of ints, optional): the shape.
    dtype (dtype, optional): the dtype of the values.
    device (optional): only the CPU is supported.
    requires_grad (bool, optional): record operations on the result.
    check_invariants (bool, optional): check the indices.

Returns:
    Tensor: a tensor with layout ``torch.sparse_bsc``.

Example::

    >>> s = torch.sparse_bsc_tensor(torch.tensor([0, 1]), torch.tensor([0]), torch.ones(1, 2, 2), (2, 2))
    >>> s.to_dense()
    tensor([[1., 1.],
            [1., 1.]])
""",
    "to_padded_tensor": r"""A nested tensor as one dense tensor, each component padded with `padding` to the largest
size (or to `output_size`). In torch it is ``torch.nested.to_padded_tensor`` or the method.

Args:
    input (Tensor): a nested tensor.
    padding (float): the fill value.
    output_size (tuple of ints, optional): the padded shape.

Returns:
    Tensor: the dense tensor.

Example::

    >>> nt = torch.nested.nested_tensor([torch.tensor([1., 2.]), torch.tensor([3.])])
    >>> nt.to_padded_tensor(0.)
    tensor([[1., 2.],
            [3., 0.]])
""",
    "unbind": r"""unbind(input, dim=0) -> tuple of Tensors

The slices of `input` along `dim`, that dimension removed (views). For a nested tensor, its components.

Args:
    input (Tensor): the input.
    dim (int, optional): the dimension to split.

Returns:
    tuple of Tensors: the slices.

Example::

    >>> torch.unbind(torch.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
""",
}
