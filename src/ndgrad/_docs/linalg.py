"""Docstrings of the `ndgrad.linalg` names that come from ndgrad/ops.
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
}
