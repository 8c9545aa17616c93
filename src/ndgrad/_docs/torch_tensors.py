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
    "atleast_1d": r"""atleast_1d(*tensors) -> Tensor or tuple of Tensors

Each input as a tensor with at least one dimension (a scalar becomes a one-element vector).

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
    "atleast_2d": r"""atleast_2d(*tensors) -> Tensor or tuple of Tensors

Each input as a tensor with at least two dimensions (a vector of n becomes a 1 x n matrix).

Args:
    tensors (Tensor or sequence of Tensors): the inputs.

Returns:
    Tensor or tuple of Tensors: one result for one input, else a tuple.

Example::

    >>> torch.atleast_2d(torch.tensor([1., 2.]))
    tensor([[1., 2.]])
""",
    "atleast_3d": r"""atleast_3d(*tensors) -> Tensor or tuple of Tensors

Each input as a tensor with at least three dimensions (a vector of n becomes 1 x n x 1, a matrix
m x n becomes m x n x 1).

Args:
    tensors (Tensor or sequence of Tensors): the inputs.

Returns:
    Tensor or tuple of Tensors: one result for one input, else a tuple.

Example::

    >>> torch.atleast_3d(torch.tensor([1., 2.])).shape
    torch.Size([1, 2, 1])
""",
    "broadcast_tensors": r"""broadcast_tensors(*tensors) -> tuple of Tensors

The inputs expanded to their common broadcast shape (views, no copy).

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
    "cartesian_prod": r"""cartesian_prod(*tensors) -> Tensor

The cartesian product of 1-D tensors: each row is one combination, the last input varying fastest.

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
    "cat": r"""cat(tensors, dim=0, *, out=None) -> Tensor

The tensors joined along an existing dimension `dim`.

All tensors must have the same shape except in `dim` (1-D empty tensors are skipped); their dtypes
are promoted to a common one.

Args:
    tensors (sequence of Tensors): the tensors to join.
    dim (int, optional): the dimension to join along.
    out (Tensor, optional): the output tensor.

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
    "stack": r"""stack(tensors, dim=0, *, out=None) -> Tensor

The tensors joined along a new dimension `dim`; all must have the same shape.

Args:
    tensors (sequence of Tensors): the tensors to join.
    dim (int, optional): the position of the new dimension.
    out (Tensor, optional): the output tensor.

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
    "tile": r"""`input` repeated `dims[i]` times along each dimension (missing leading entries count as 1;
shorter `dims` is padded with ones at the front).

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
}
