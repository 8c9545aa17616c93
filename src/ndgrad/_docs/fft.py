"""Docstrings of the `ndgrad.fft` names that come from ndgrad/ops.
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
}
