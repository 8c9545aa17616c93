"""ndgrad.nn: neural-network building blocks (functional ops so far)."""
from . import functional  # noqa: F401
