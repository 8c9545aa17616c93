"""Docstrings of the Tensor methods and properties that need more than a pointer to their namesake function
(`attach_tensor_methods` writes those pointers).
See ndgrad/_docs/__init__.py for the format."""
DOCS = {
}
