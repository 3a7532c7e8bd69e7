"""torch.fx.passes: analyses run over a GraphModule (shape_prop)."""
