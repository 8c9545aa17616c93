"""nn.functional.scaled_dot_product_attention: the public form in ops/attention.py."""
from ...ops.attention import scaled_dot_product_attention  # noqa: F401

__all__ = ["scaled_dot_product_attention"]
