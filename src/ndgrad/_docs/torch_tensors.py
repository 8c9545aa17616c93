"""Docstrings of the other ops of the `ndgrad` namespace: creation, shape, indexing, linear algebra,
random sampling, convolution, pooling, normalization, losses... (objects from the other ndgrad/ops modules).
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
}
