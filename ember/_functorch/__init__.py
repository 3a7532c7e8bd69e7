"""torch._functorch: what the ``functorch`` package imports (its deprecated API over torch.func)."""
