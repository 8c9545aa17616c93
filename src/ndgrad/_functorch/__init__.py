"""torch._functorch: what the `functorch` package (shipped with torch) imports from torch: the
deprecated functorch.* spellings of torch.func, make_functional(_with_buffers) and make_fx."""
