"""Seed 002, example 2: inspecting grad_fn of intermediate and leaf tensors."""
import torch

# We need intermediate tensors to inspect their grad_fn
w = torch.randn(5, 3, requires_grad=True)
x = torch.randn(1, 5)
y = x @ w
z = y.mean()

# The seed prints the objects themselves (<MmBackward0 object at 0x...>); their addresses change
# from run to run, so this program prints the node names.
print(f"y originated from: {y.grad_fn.name()}")
# Output: y originated from: MmBackward0
print(f"z originated from: {z.grad_fn.name()}")
# Output: z originated from: MeanBackward0
print(y.grad_fn.next_functions[1][0].name())
# Output: torch::autograd::AccumulateGrad (the name torch gives it too)

# Leaf tensors created by the user don't have grad_fn
print(f"w.grad_fn: {w.grad_fn}")
# Output: w.grad_fn: None
print(f"x.grad_fn: {x.grad_fn}")
# Output: x.grad_fn: None
