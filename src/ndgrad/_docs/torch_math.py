"""Docstrings of the math ops of the `ndgrad` namespace: the objects defined in ndgrad/ops/pointwise.py,
reduction.py and special.py.
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
}
