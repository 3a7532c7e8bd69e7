"""Seed 002, the rest of the text as a program: accumulation, zeroing, no_grad, enable_grad, detach.

Fixed inputs (not random) so that the printed numbers can be compared with PyTorch's.
"""
import torch

w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]])

# Gradients accumulate into .grad across backward() calls
for step in range(3):
    loss = (x @ w).pow(2).mean()
    loss.backward()
    print(f"step {step}: loss={loss.item():.6f} grad={w.grad}")

# ... which is why a training loop zeroes them first (optimizer.zero_grad())
w.grad = None
(x @ w).sum().backward()
print("after reset:", w.grad)

# A non-scalar output needs an explicit gradient (the vector in the VJP)
w.grad.zero_()
out = x @ w
out.backward(gradient=torch.ones_like(out) * 0.5)
print("vjp:", w.grad)

# no_grad: nothing is recorded; enable_grad re-enables tracking inside it
with torch.no_grad():
    p = x @ w
    with torch.enable_grad():
        q = (x @ w).sum()
print(p.requires_grad, p.grad_fn, q.requires_grad, q.grad_fn is not None)

# detach(): same storage, no history, requires_grad=False
d = w.detach()
print(d.requires_grad, d.grad_fn, d.data_ptr() == w.data_ptr())
w.requires_grad_(False)
print(w.requires_grad)
