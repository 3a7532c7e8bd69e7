"""Seed 002, example 1: backward() from a scalar loss fills w.grad."""
import torch

# Example setup
w = torch.randn(5, 3, requires_grad=True)
x = torch.randn(1, 5)
# Ensure x does not require gradients if it's just input data
# x.requires_grad_(False) # or create it without requires_grad
y = x @ w  # y depends on w through matrix multiplication
z = y.mean()  # z is a scalar derived from y

# Compute gradients starting from z
z.backward()

# Gradient is now populated in w.grad
# The gradient d(z)/dw is computed and stored
print(w.grad.shape)
# Output: torch.Size([5, 3])
