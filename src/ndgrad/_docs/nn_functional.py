"""Docstrings of the `ndgrad.nn.functional` names that come from ndgrad/ops (those defined in
ndgrad/nn/functional/ carry theirs inline).
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
}
