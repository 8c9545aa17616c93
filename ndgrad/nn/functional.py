"""ndgrad.nn.functional: the functional neural-network ops (forwards live in ops/nn.py)."""
