"""Docstrings of the `ndgrad.linalg` names that come from ndgrad/ops.
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
    "cholesky": r"""The Cholesky factor of a Hermitian positive-definite matrix (or batch): ``A = L @ L.mH``.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)`` (float or complex); only the lower triangle is read.
    upper (bool, optional): return the upper factor ``U = L.mH`` instead (``A = U.mH @ U``).

Returns:
    Tensor: the triangular factor. A matrix that is not positive-definite raises
    :class:`ndgrad.linalg.LinAlgError`.

Example::

    >>> A = torch.tensor([[4.0, 2.0], [2.0, 5.0]])
    >>> torch.linalg.cholesky(A)
    tensor([[2., 0.],
            [1., 2.]])
""",
    "cholesky_ex": r"""The Cholesky factor as :func:`cholesky` computes it, and an error code instead of an error.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.
    upper (bool, optional): return the upper factor instead of the lower one.
    check_errors (bool, optional): raise as :func:`cholesky` does where the factorization fails.

Returns:
    (Tensor, Tensor): a named tuple ``(L, info)``; ``info`` is 0 where the factorization succeeded,
    else the order of the first leading minor that is not positive-definite.

Example::

    >>> A = torch.tensor([[1.0, 2.0], [2.0, 1.0]])
    >>> torch.linalg.cholesky_ex(A).info
    tensor(2, dtype=torch.int32)
""",
    "cross": r"""The cross product of 3-vectors along `dim`, the inputs broadcast together.

Args:
    input (Tensor): the first vectors.
    other (Tensor): the second vectors.
    dim (int, optional): the dimension of size 3 holding the vectors (default: the last).

Returns:
    Tensor: the vectors perpendicular to both.

Example::

    >>> x = torch.tensor([1.0, 0.0, 0.0])
    >>> y = torch.tensor([0.0, 1.0, 0.0])
    >>> torch.linalg.cross(x, y)
    tensor([0., 0., 1.])
""",
    "det": r"""The determinant of a square matrix (or of each in a batch).

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.

Returns:
    Tensor: the determinants, of shape ``(*)``.

Example::

    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> torch.linalg.det(A)
    tensor(-2.)
""",
    "eig": r"""The eigenvalues and eigenvectors of a square matrix, which need not be symmetric: complex results.

Their gradient is defined only where the eigenvalues are distinct; the eigenvectors are normalized
to norm 1, their phase as LAPACK returns it.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.

Returns:
    (Tensor, Tensor): a named tuple ``(eigenvalues, eigenvectors)``, complex, with
    ``A @ V = V @ diag(L)``.

Example::

    >>> A = torch.tensor([[2.0, 0.0], [0.0, 3.0]])
    >>> torch.linalg.eig(A).eigenvalues
    tensor([2.+0.j, 3.+0.j])
""",
    "eigh": r"""The eigenvalues (ascending) and orthonormal eigenvectors of a Hermitian (symmetric) matrix.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``; only one triangle is read.
    UPLO (str, optional): ``"L"`` (default) reads the lower triangle, ``"U"`` the upper one.

Returns:
    (Tensor, Tensor): a named tuple ``(eigenvalues, eigenvectors)``: real eigenvalues, and the
    eigenvectors as columns.

Example::

    >>> A = torch.tensor([[2.0, 1.0], [1.0, 2.0]])
    >>> torch.linalg.eigh(A).eigenvalues
    tensor([1., 3.])
""",
    "eigvals": r"""The eigenvalues of a square matrix (complex), as :func:`eig` computes them.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.

Returns:
    Tensor: the complex eigenvalues, of shape ``(*, n)``.

Example::

    >>> A = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
    >>> torch.linalg.eigvals(A)
    tensor([0.+1.j, 0.-1.j])
""",
    "eigvalsh": r"""The eigenvalues, in ascending order, of a Hermitian (symmetric) matrix.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``; only one triangle is read.
    UPLO (str, optional): ``"L"`` (default) reads the lower triangle, ``"U"`` the upper one.

Returns:
    Tensor: the real eigenvalues, of shape ``(*, n)``.

Example::

    >>> A = torch.tensor([[2.0, 1.0], [1.0, 2.0]])
    >>> torch.linalg.eigvalsh(A)
    tensor([1., 3.])
""",
    "householder_product": r"""The first columns of the product of Householder reflectors ``H_i = I - tau_i v_i v_i^H``.

The vectors ``v_i`` are the columns of `A` below the diagonal (with an implicit 1 on it), as
:func:`ndgrad.geqrf` returns them: this rebuilds the Q of a QR decomposition.

Args:
    A (Tensor): the reflectors, of shape ``(*, m, n)`` with ``m >= n``.
    tau (Tensor): the scale factors, of shape ``(*, k)`` with ``k <= n``.

Returns:
    Tensor: the ``(*, m, n)`` matrix with orthonormal columns.

Example::

    >>> A = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    >>> torch.linalg.householder_product(A, torch.tensor([1.0, 0.0]))
    tensor([[ 0., -1.],
            [-1.,  0.]])
""",
    "inv": r"""The inverse of a square matrix (or of each in a batch).

Args:
    A (Tensor): the invertible matrices, of shape ``(*, n, n)``.

Returns:
    Tensor: the inverses. A singular matrix raises :class:`ndgrad.linalg.LinAlgError`.

Example::

    >>> A = torch.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> torch.linalg.inv(A)
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
""",
    "inv_ex": r"""The inverse as :func:`inv` computes it, and an error code instead of an error.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.
    check_errors (bool, optional): raise as :func:`inv` does where a matrix is singular.

Returns:
    (Tensor, Tensor): a named tuple ``(inverse, info)``; ``info`` is 0 for an invertible matrix.

Example::

    >>> A = torch.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> torch.linalg.inv_ex(A).info
    tensor(0, dtype=torch.int32)
""",
    "ldl_factor": r"""The compact LDL factorization of a symmetric (or Hermitian) matrix, with pivoting.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``; only the lower triangle is read.
    hermitian (bool, optional): treat complex `A` as Hermitian rather than symmetric.

Returns:
    (Tensor, Tensor): a named tuple ``(LD, pivots)`` for :func:`ldl_solve`. Not differentiable.

Example::

    >>> A = torch.tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> LD, pivots = torch.linalg.ldl_factor(A)
    >>> LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
""",
    "ldl_factor_ex": r"""The LDL factorization as :func:`ldl_factor` computes it, and an error code instead of an error.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.
    hermitian (bool, optional): treat complex `A` as Hermitian rather than symmetric.
    check_errors (bool, optional): raise where the factorization fails.

Returns:
    (Tensor, Tensor, Tensor): a named tuple ``(LD, pivots, info)``; ``info`` is 0 on success.

Example::

    >>> A = torch.tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> torch.linalg.ldl_factor_ex(A).info
    tensor(0, dtype=torch.int32)
""",
    "ldl_solve": r"""The solution X of ``A @ X = B`` from the LDL factorization of `A` that :func:`ldl_factor` gives.

Args:
    LD (Tensor): the compact factorization.
    pivots (Tensor): its pivots.
    B (Tensor): the right-hand sides, of shape ``(*, n, k)``.
    hermitian (bool, optional): as given to :func:`ldl_factor`.

Returns:
    Tensor: X, the shape of `B`. Not differentiable.

Example::

    >>> A = torch.tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> LD, pivots = torch.linalg.ldl_factor(A)
    >>> torch.linalg.ldl_solve(LD, pivots, torch.tensor([[6.0], [5.0]]))
    tensor([[1.],
            [1.]])
""",
    "lstsq": r"""The least-squares solution X minimizing ``||A @ X - B||`` (over each batch).

Args:
    A (Tensor): the matrices, of shape ``(*, m, n)``.
    B (Tensor): the right-hand sides, of shape ``(*, m, k)``.
    rcond (float, optional): singular values below ``rcond`` times the largest count as zero
        (rank-revealing drivers only).
    driver (str, optional): the LAPACK driver: ``"gelsy"`` (default), ``"gels"``, ``"gelsd"`` or ``"gelss"``.

Returns:
    (Tensor, Tensor, Tensor, Tensor): a named tuple ``(solution, residuals, rank, singular_values)``;
    the last three are empty where the driver does not compute them.

Example::

    >>> A = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> B = torch.tensor([[1.0], [2.0], [4.0]])
    >>> torch.linalg.lstsq(A, B).solution
    tensor([[1.3333],
            [2.3333]])
""",
    "lu": r"""The LU decomposition with partial pivoting: ``A = P @ L @ U``.

Args:
    A (Tensor): the matrices, of shape ``(*, m, n)``.
    pivot (bool, optional): only ``True`` (partial pivoting) on the CPU, as in torch.

Returns:
    (Tensor, Tensor, Tensor): a named tuple ``(P, L, U)``: the permutation matrix, the unit lower
    triangular L and the upper triangular U.

Example::

    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> P, L, U = torch.linalg.lu(A)
    >>> U
    tensor([[3.0000, 4.0000],
            [0.0000, 0.6667]])
""",
    "lu_factor": r"""The LU decomposition with partial pivoting in compact form, for :func:`lu_solve`.

Args:
    A (Tensor): the matrices, of shape ``(*, m, n)``.
    pivot (bool, optional): only ``True`` on the CPU.

Returns:
    (Tensor, Tensor): a named tuple ``(LU, pivots)``: L below the diagonal (its unit diagonal
    implicit) and U on and above it; 1-based row swaps. A singular matrix, alone or in a batch,
    raises a RuntimeError (as in torch, not a LinAlgError; use :func:`lu_factor_ex` to get a code
    instead).

Example::

    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> torch.linalg.lu_factor(A).pivots
    tensor([2, 2], dtype=torch.int32)
""",
    "lu_factor_ex": r"""The compact LU decomposition as :func:`lu_factor` computes it, with an error code
instead of an error.

Args:
    A (Tensor): the matrices, of shape ``(*, m, n)``.
    pivot (bool, optional): only ``True`` on the CPU.
    check_errors (bool, optional): raise a RuntimeError where a matrix is singular.

Returns:
    (Tensor, Tensor, Tensor): a named tuple ``(LU, pivots, info)``; ``info`` is 0 where U is invertible.

Example::

    >>> A = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    >>> torch.linalg.lu_factor_ex(A).info
    tensor(2, dtype=torch.int32)
""",
    "lu_solve": r"""The solution X of ``A @ X = B`` from the compact LU decomposition of `A` (:func:`lu_factor`).

Args:
    LU (Tensor): the compact decomposition.
    pivots (Tensor): its pivots.
    B (Tensor): the right-hand sides, of shape ``(*, n, k)``.
    left (bool, optional): solve ``X @ A = B`` instead when ``False``.
    adjoint (bool, optional): solve with the conjugate transpose of `A`.

Returns:
    Tensor: X.

Example::

    >>> A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
    >>> LU, pivots = torch.linalg.lu_factor(A)
    >>> torch.linalg.lu_solve(LU, pivots, torch.tensor([[3.0], [4.0]]))
    tensor([[1.],
            [1.]])
""",
    "matmul": r"""The matrix product of two tensors: the same as :func:`ndgrad.matmul`.

Args:
    input (Tensor): the first operand.
    other (Tensor): the second operand.

Returns:
    Tensor: the product (batched and broadcast as :func:`ndgrad.matmul` does).

Example::

    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> torch.linalg.matmul(A, torch.tensor([1.0, 1.0]))
    tensor([3., 7.])
""",
    "matrix_exp": r"""The matrix exponential ``sum(A**k / k!)`` of a square matrix (or of each in a batch).

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.

Returns:
    Tensor: the exponentials.

Example::

    >>> A = torch.tensor([[0.0, 1.0], [0.0, 0.0]])
    >>> torch.linalg.matrix_exp(A)
    tensor([[1., 1.],
            [0., 1.]])
""",
    "matrix_norm": r"""A matrix norm of `A` over the two dimensions `dim`.

Args:
    A (Tensor): the matrices.
    ord (int, float, inf or str, optional): ``"fro"`` (default), ``"nuc"`` (the sum of the singular
        values), ``2`` / ``-2`` (the largest / smallest singular value), ``1`` / ``-1`` (max / min
        column sum of absolute values), ``inf`` / ``-inf`` (max / min row sum).
    dim (tuple of two ints, optional): the matrix dimensions (default: the last two).
    keepdim (bool, optional): keep `dim` as dimensions of size 1.
    dtype (dtype, optional): cast `A` to it first.

Returns:
    Tensor: the norms (real).

Example::

    >>> A = torch.tensor([[1.0, -2.0], [3.0, 4.0]])
    >>> torch.linalg.matrix_norm(A), torch.linalg.matrix_norm(A, ord=1)
    (tensor(5.4772), tensor(6.))
""",
    "norm": r"""A vector norm or a matrix norm of `A`, chosen by `ord` and `dim`.

With an int `dim` (or `A` 1-D and no `dim`) it is :func:`vector_norm`, with two dims (or `A` 2-D
and no `dim`) :func:`matrix_norm`; with neither `ord` nor `dim`, the 2-norm of all the elements.

Args:
    A (Tensor): the input.
    ord (int, float, inf or str, optional): the norm's order (see the two functions).
    dim (int or tuple of ints, optional): the dimensions to reduce.
    keepdim (bool, optional): keep `dim` as dimensions of size 1.
    dtype (dtype, optional): cast `A` to it first.

Returns:
    Tensor: the norms.

Example::

    >>> torch.linalg.norm(torch.tensor([3.0, 4.0]))
    tensor(5.)
""",
    "qr": r"""The QR decomposition ``A = Q @ R``, Q with orthonormal columns and R upper triangular.

Args:
    A (Tensor): the matrices, of shape ``(*, m, n)``.
    mode (str, optional): ``"reduced"`` (default: Q is ``(*, m, k)`` with ``k = min(m, n)``),
        ``"complete"`` (Q square) or ``"r"`` (R only; Q empty, not differentiable).

Returns:
    (Tensor, Tensor): a named tuple ``(Q, R)``.

Example::

    >>> A = torch.tensor([[3.0, 1.0], [4.0, 2.0]])
    >>> Q, R = torch.linalg.qr(A)
    >>> torch.dist(Q @ R, A) < 1e-5
    tensor(True)
""",
    "slogdet": r"""The sign and the log of the absolute value of the determinant, stable where the
determinant itself under- or overflows.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.

Returns:
    (Tensor, Tensor): a named tuple ``(sign, logabsdet)``: ``det(A) = sign * exp(logabsdet)``
    (sign 0 and logabsdet -inf for a singular matrix).

Example::

    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> torch.linalg.slogdet(A)
    torch.return_types.linalg_slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(0.6931))
""",
    "solve": r"""The solution X of the square system ``A @ X = B`` (batched, broadcast).

Args:
    A (Tensor): the invertible matrices, of shape ``(*, n, n)``.
    B (Tensor): the right-hand sides, of shape ``(*, n, k)`` or ``(*, n)`` (vectors).
    left (bool, optional): solve ``X @ A = B`` instead when ``False``.

Returns:
    Tensor: X, the shape of `B`. A singular `A` raises :class:`ndgrad.linalg.LinAlgError`.

Example::

    >>> A = torch.tensor([[3.0, 1.0], [1.0, 2.0]])
    >>> torch.linalg.solve(A, torch.tensor([9.0, 8.0]))
    tensor([2., 3.])
""",
    "solve_ex": r"""The solution as :func:`solve` computes it, and an error code instead of an error.

Args:
    A (Tensor): the matrices, of shape ``(*, n, n)``.
    B (Tensor): the right-hand sides.
    left (bool, optional): solve ``X @ A = B`` instead when ``False``.
    check_errors (bool, optional): raise where `A` is singular.

Returns:
    (Tensor, Tensor): a named tuple ``(result, info)``; ``info`` is 0 for an invertible `A`.

Example::

    >>> A = torch.tensor([[3.0, 1.0], [1.0, 2.0]])
    >>> torch.linalg.solve_ex(A, torch.tensor([9.0, 8.0]))
    torch.return_types.linalg_solve_ex(
    result=tensor([2., 3.]),
    info=tensor(0, dtype=torch.int32))
""",
    "solve_triangular": r"""The solution X of ``A @ X = B`` for a triangular `A` (only its triangle is read).

Args:
    A (Tensor): the triangular matrices, of shape ``(*, n, n)``.
    B (Tensor): the right-hand sides, of shape ``(*, n, k)``.
    upper (bool): whether `A` is upper (``True``) or lower triangular; keyword only, required.
    left (bool, optional): solve ``X @ A = B`` instead when ``False``.
    unitriangular (bool, optional): take `A`'s diagonal as all ones.

Returns:
    Tensor: X.

Example::

    >>> A = torch.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> torch.linalg.solve_triangular(A, torch.tensor([[4.0], [8.0]]), upper=True)
    tensor([[1.],
            [2.]])
""",
    "svd": r"""The singular value decomposition ``A = U @ diag(S) @ Vh``.

The gradient is defined where the singular values are distinct (and, for complex `A`, where the
loss does not depend on the vectors' phases).

Args:
    A (Tensor): the matrices, of shape ``(*, m, n)``.
    full_matrices (bool, optional): U and Vh square (default) rather than ``k = min(m, n)`` columns / rows.
    driver (str, optional): must be ``None`` on the CPU (the drivers are cuSOLVER's; another raises).

Returns:
    (Tensor, Tensor, Tensor): a named tuple ``(U, S, Vh)``, S real and descending.

Example::

    >>> A = torch.tensor([[3.0, 0.0], [0.0, -2.0]])
    >>> torch.linalg.svd(A).S
    tensor([3., 2.])
""",
    "svdvals": r"""The singular values of a matrix (or batch), in descending order.

Args:
    A (Tensor): the matrices, of shape ``(*, m, n)``.
    driver (str, optional): must be ``None`` on the CPU (the drivers are cuSOLVER's; another raises).

Returns:
    Tensor: the real singular values, of shape ``(*, min(m, n))``.

Example::

    >>> torch.linalg.svdvals(torch.tensor([[3.0, 0.0], [0.0, -2.0]]))
    tensor([3., 2.])
""",
    "vecdot": r"""The dot product of vectors along `dim`, the first one conjugated (for complex inputs).

Args:
    x (Tensor): the first vectors.
    y (Tensor): the second vectors (broadcast with `x`).
    dim (int, optional): the dimension holding the vectors (default: the last).

Returns:
    Tensor: the products, with `dim` reduced.

Example::

    >>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> torch.linalg.vecdot(x, torch.tensor([1.0, 1.0]))
    tensor([3., 7.])
""",
    "vector_norm": r"""The vector norm ``sum(|x| ** ord) ** (1 / ord)`` over `dim` (all elements by default).

Args:
    x (Tensor): the input.
    ord (int, float or inf, optional): the order (default 2); ``inf`` / ``-inf`` the max / min of
        ``|x|``, ``0`` the number of nonzeros.
    dim (int or tuple of ints, optional): the dimensions to reduce (default: all).
    keepdim (bool, optional): keep `dim` as dimensions of size 1.
    dtype (dtype, optional): cast `x` to it first.

Returns:
    Tensor: the norms (real).

Example::

    >>> x = torch.tensor([3.0, -4.0])
    >>> torch.linalg.vector_norm(x), torch.linalg.vector_norm(x, ord=1)
    (tensor(5.), tensor(7.))
""",
}
