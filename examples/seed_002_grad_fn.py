"""Seed 002, example 2: inspecting grad_fn of intermediate and leaf tensors."""
import torch

# We need intermediate tensors to inspect their grad_fn
w = torch.randn(5, 3, requires_grad=True)
x = torch.randn(1, 5)
y = x @ w
z = y.mean()

print(f"y originated from: {y.grad_fn}")
# Output: y originated from: <MmBackward0 object at 0x...>
print(f"z originated from: {z.grad_fn}")
# Output: z originated from: <MeanBackward0 object at 0x...>

# Leaf tensors created by the user don't have grad_fn
print(f"w.grad_fn: {w.grad_fn}")
# Output: w.grad_fn: None
print(f"x.grad_fn: {x.grad_fn}")
# Output: x.grad_fn: None
