"""Docstrings of the Tensor methods and properties that need more than a pointer to their namesake function
(`attach_tensor_methods` writes those pointers).
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
    # ---- views and shapes
    "T": r"""The tensor with its dimensions reversed (for a matrix, its transpose); a view.

Deprecated by torch for tensors of other than 2 dimensions: prefer :attr:`mT` or ``permute``.

Example::

    >>> x = torch.tensor([[1, 2, 3], [4, 5, 6]])
    >>> x.T
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
""",
    "H": r"""The conjugate transpose of a matrix (a 2-D tensor; for a real one, its transpose).

Example::

    >>> x = torch.tensor([[1 + 1j, 2 + 0j]])
    >>> x.H
    tensor([[1.-1.j],
            [2.-0.j]])
""",
    "mT": r"""The transpose of the last two dimensions (each matrix of a batch transposed); a view.

Example::

    >>> x = torch.arange(6).reshape(1, 2, 3)
    >>> x.mT.shape
    torch.Size([1, 3, 2])
""",
    "mH": r"""The conjugate transpose of the last two dimensions (:attr:`mT` conjugated).

Example::

    >>> x = torch.tensor([[1 + 1j, 2 - 1j]])
    >>> x.mH
    tensor([[1.-1.j],
            [2.+1.j]])
""",
    "imag": r"""The imaginary part of a complex tensor, as a view that can be written to.

A real tensor has none: reading it raises a RuntimeError.

Example::

    >>> x = torch.tensor([1 + 2j, 3 - 4j])
    >>> x.imag
    tensor([ 2., -4.])
""",
    "contiguous": r"""contiguous(memory_format=torch.contiguous_format) -> Tensor

This tensor if its memory is already laid out as `memory_format` asks, else a copy that is.

Args:
    memory_format (memory_format, optional): the layout wanted (default: row-major, C order).

Example::

    >>> x = torch.tensor([[1, 2], [3, 4]]).t()
    >>> x.is_contiguous(), x.contiguous().is_contiguous()
    (False, True)
""",
    "expand_as": r"""expand_as(other) -> Tensor

This tensor expanded (its size-1 dimensions repeated, without copying) to the shape of `other`.

Args:
    other (Tensor): the tensor whose shape to take.

Example::

    >>> x = torch.tensor([[1], [2]])
    >>> x.expand_as(torch.zeros(2, 3))
    tensor([[1, 1, 1],
            [2, 2, 2]])
""",
    "reshape_as": r"""reshape_as(other) -> Tensor

This tensor reshaped to the shape of `other` (a view where possible, as :meth:`reshape`).

Args:
    other (Tensor): the tensor whose shape to take.

Example::

    >>> torch.arange(4).reshape_as(torch.zeros(2, 2))
    tensor([[0, 1],
            [2, 3]])
""",
    "view_as": r"""view_as(other) -> Tensor

A view of this tensor with the shape of `other` (as :meth:`view`, which may refuse).

Args:
    other (Tensor): the tensor whose shape to take.

Example::

    >>> torch.arange(6).view_as(torch.zeros(3, 2))
    tensor([[0, 1],
            [2, 3],
            [4, 5]])
""",
    "repeat": r"""repeat(*repeats) -> Tensor

This tensor tiled: copied `repeats[i]` times along dimension i (new leading dimensions where
`repeats` has more entries than the tensor has dimensions).

Args:
    repeats (int...): the number of copies along each dimension (ints, or one sequence).

Example::

    >>> x = torch.tensor([1, 2])
    >>> x.repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
""",
    "sum_to_size": r"""sum_to_size(*size) -> Tensor

This tensor summed down to `size`, which must be broadcastable to its shape (the reduction a
gradient of a broadcast makes).

Args:
    size (int...): the target shape (ints, or one sequence).

Example::

    >>> x = torch.ones(2, 3)
    >>> x.sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
""",
    "unfold": r"""unfold(dimension, size, step) -> Tensor

A view holding every slice of length `size` along `dimension`, taken each `step` elements, as a
new last dimension.

Args:
    dimension (int): the dimension to slide along.
    size (int): the length of each slice.
    step (int): the distance between the starts of two slices.

Example::

    >>> torch.arange(5).unfold(0, 2, 1)
    tensor([[0, 1],
            [1, 2],
            [2, 3],
            [3, 4]])
""",
    # ---- new tensors with this one's dtype
    "new_tensor": r"""A new tensor holding a copy of `data`, with this tensor's dtype unless given.

Args:
    data (array_like): the values (a list, a scalar, an array, a tensor).
    dtype (dtype, optional): the dtype (default: this tensor's).
    device (device, optional): only the CPU.
    requires_grad (bool, optional): whether autograd records operations on the result.

Example::

    >>> x = torch.tensor([1.5], dtype=torch.float64)
    >>> x.new_tensor([1, 2])
    tensor([1., 2.], dtype=torch.float64)
""",
    "new_zeros": r"""A new tensor of zeros of the given size, with this tensor's dtype unless given.

Args:
    size (int...): the shape (ints, or one sequence).
    dtype (dtype, optional): the dtype (default: this tensor's).
    device (device, optional): only the CPU.
    requires_grad (bool, optional): whether autograd records operations on the result.

Example::

    >>> torch.tensor([1], dtype=torch.int32).new_zeros(2, 2)
    tensor([[0, 0],
            [0, 0]], dtype=torch.int32)
""",
    "new_ones": r"""A new tensor of ones of the given size, with this tensor's dtype unless given.

Args:
    size (int...): the shape (ints, or one sequence).
    dtype (dtype, optional): the dtype (default: this tensor's).
    device (device, optional): only the CPU.
    requires_grad (bool, optional): whether autograd records operations on the result.

Example::

    >>> torch.tensor([1.0]).new_ones(3)
    tensor([1., 1., 1.])
""",
    "new_full": r"""A new tensor of the given size filled with `fill_value`, with this tensor's dtype unless given.

Args:
    size (sequence of int): the shape.
    fill_value (Number): the value of every element.
    dtype (dtype, optional): the dtype (default: this tensor's).
    device (device, optional): only the CPU.
    requires_grad (bool, optional): whether autograd records operations on the result.

Example::

    >>> torch.tensor([1.0]).new_full((2,), 7)
    tensor([7., 7.])
""",
    "new_empty": r"""A new uninitialized tensor of the given size, with this tensor's dtype unless given.

Args:
    size (int...): the shape (ints, or one sequence).
    dtype (dtype, optional): the dtype (default: this tensor's).
    device (device, optional): only the CPU.
    requires_grad (bool, optional): whether autograd records operations on the result.

Example::

    >>> torch.tensor([1], dtype=torch.int16).new_empty(2, 3).shape
    torch.Size([2, 3])
""",
    "new_empty_strided": r"""A new uninitialized tensor of the given size and strides, with this tensor's dtype
unless given (as :func:`torch.empty_strided`).

Args:
    size (tuple of int): the shape.
    stride (tuple of int): the strides, in elements.
    dtype (dtype, optional): the dtype (default: this tensor's).
    device (device, optional): only the CPU.
    requires_grad (bool, optional): whether autograd records operations on the result.

Example::

    >>> torch.ones(1, dtype=torch.float64).new_empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
""",
    # ---- sparse tensors
    "to_dense": r"""to_dense(dtype=None, *, masked_grad=None) -> Tensor

A strided (dense) copy of a sparse tensor; a strided tensor itself.

Args:
    dtype (dtype, optional): the result's dtype (default: this tensor's).
    masked_grad (bool, optional): for a sparse input, whether its gradient keeps only the
        positions this tensor specifies (default: ``True``).

Example::

    >>> s = torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse()
    >>> s.to_dense()
    tensor([[0., 1.],
            [2., 0.]])
""",
    "to_sparse_csr": r"""to_sparse_csr(dense_dim=None) -> Tensor

This tensor in the compressed sparse row (CSR) layout.

Args:
    dense_dim (int, optional): how many trailing dimensions stay dense.

Example::

    >>> s = torch.tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csr()
    >>> s.crow_indices(), s.col_indices(), s.values()
    (tensor([0, 1, 3]), tensor([1, 0, 1]), tensor([1., 2., 3.]))
""",
    "to_sparse_csc": r"""to_sparse_csc(dense_dim=None) -> Tensor

This tensor in the compressed sparse column (CSC) layout.

Args:
    dense_dim (int, optional): how many trailing dimensions stay dense.

Example::

    >>> s = torch.tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csc()
    >>> s.ccol_indices(), s.row_indices(), s.values()
    (tensor([0, 1, 3]), tensor([1, 0, 1]), tensor([2., 1., 3.]))
""",
    "to_sparse_bsr": r"""to_sparse_bsr(blocksize, dense_dim=None) -> Tensor

This tensor in the block sparse row (BSR) layout: CSR over blocks of `blocksize`.

Args:
    blocksize (tuple of two ints): the block shape; it must divide the matrix's.
    dense_dim (int, optional): how many trailing dimensions stay dense.

Example::

    >>> x = torch.tensor([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    >>> s = x.to_sparse_bsr((2, 2))
    >>> s.crow_indices(), s.col_indices()
    (tensor([0, 1]), tensor([0]))
""",
    "to_sparse_bsc": r"""to_sparse_bsc(blocksize, dense_dim=None) -> Tensor

This tensor in the block sparse column (BSC) layout: CSC over blocks of `blocksize`.

Args:
    blocksize (tuple of two ints): the block shape; it must divide the matrix's.
    dense_dim (int, optional): how many trailing dimensions stay dense.

Example::

    >>> x = torch.tensor([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    >>> s = x.to_sparse_bsc((2, 2))
    >>> s.ccol_indices(), s.row_indices()
    (tensor([0, 1, 1]), tensor([0]))
""",
    "crow_indices": r"""The compressed row indices of a CSR or BSR tensor: row i's entries are at positions
``crow_indices[i]`` to ``crow_indices[i + 1]`` of :meth:`col_indices` and :meth:`values`.

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csr().crow_indices()
    tensor([0, 1, 3])
""",
    "col_indices": r"""The column index of each entry of a CSR or BSR tensor.

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csr().col_indices()
    tensor([1, 0, 1])
""",
    "ccol_indices": r"""The compressed column indices of a CSC or BSC tensor: column j's entries are at positions
``ccol_indices[j]`` to ``ccol_indices[j + 1]`` of :meth:`row_indices` and :meth:`values`.

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csc().ccol_indices()
    tensor([0, 1, 3])
""",
    "row_indices": r"""The row index of each entry of a CSC or BSC tensor.

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 3.0]]).to_sparse_csc().row_indices()
    tensor([1, 0, 1])
""",
    "indices": r"""The indices of a coalesced sparse COO tensor: a ``(sparse_dim, nnz)`` tensor, one column
per specified element.

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse().indices()
    tensor([[0, 1],
            [1, 0]])
""",
    "values": r"""values() -> Tensor

The specified values of a sparse tensor (a coalesced COO one, or CSR, CSC, BSR, BSC), or the
packed values of a nested tensor with jagged layout.

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse().values()
    tensor([1., 2.])
""",
    "coalesce": r"""A sparse COO tensor with its indices sorted and duplicates summed; this tensor if it is so already.

Example::

    >>> i = torch.tensor([[0, 0, 1], [1, 1, 0]])
    >>> s = torch.sparse_coo_tensor(i, torch.tensor([1.0, 2.0, 3.0]), (2, 2))
    >>> s.is_coalesced(), s.coalesce().values()
    (False, tensor([3., 3.]))
""",
    "is_coalesced": r"""Whether a sparse COO tensor is known to have sorted, unique indices (see :meth:`coalesce`).

Example::

    >>> torch.tensor([[0.0, 1.0]]).to_sparse().is_coalesced()
    True
""",
    "sparse_dim": r"""The number of sparse dimensions of a sparse tensor (0 for a strided one).

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse().sparse_dim()
    2
""",
    "dense_dim": r"""The number of dense dimensions of a sparse tensor: those its values keep (the
dimensions of a strided tensor).

Example::

    >>> torch.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse().dense_dim()
    0
""",
    "sparse_mask": r"""sparse_mask(mask) -> Tensor

The values of this strided tensor at the positions the sparse tensor `mask` specifies, as a sparse
tensor of `mask`'s layout.

Args:
    mask (Tensor): a sparse tensor (its values are ignored).

Example::

    >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mask = torch.tensor([[0.0, 1.0], [1.0, 0.0]]).to_sparse()
    >>> x.sparse_mask(mask).to_dense()
    tensor([[0., 2.],
            [3., 0.]])
""",
    # ---- nested tensors
    "offsets": r"""The offsets of the components of a nested tensor with jagged layout in its :meth:`values`:
component i is ``values[offsets[i]:offsets[i + 1]]``.

Example::

    >>> nt = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)
    >>> nt.offsets()
    tensor([0, 2, 5])
""",
    "lengths": r"""The lengths of the components of a jagged nested tensor made with explicit lengths
(:func:`ndgrad.nested.narrow`), or None where the offsets alone define them.

Example::

    >>> nt = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)
    >>> nt.lengths() is None
    True
""",
}
