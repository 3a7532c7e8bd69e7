"""Seed 004's examples 2 and 3: gradients through a small graph, leaf tensors, and gradient
accumulation across backward() calls."""
import ember as torch

# Create tensors with requires_grad=True
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)

# Perform computations
z = x * y
w = z + x

# Calculate the gradient
w.backward()

# Inspect the gradients
print(f"Gradient of x: {x.grad}")
print(f"Gradient of y: {y.grad}")
print(f"Gradient of z: {z.grad}")
print(f"Gradient of w: {w.grad}")  # Implicit gradient of w itself

# Check if leaf nodes (x,y) have stored gradients
print(f"\nis_leaf for x: {x.is_leaf}")
print(f"is_leaf for y: {y.is_leaf}")
print(f"is_leaf for z: {z.is_leaf}")
print(f"is_leaf for w: {w.is_leaf}")

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = x * y

# First backward pass
z.backward()
print(f"Gradient of x after 1st backward: {x.grad}")
print(f"Gradient of y after 1st backward: {y.grad}")

# Second backward pass
z = x * y  # Recreate the node: z was detached from the graph by the first backward.
z.backward()  # Note that in most practical case, backward() is called on the loss.
print(f"Gradient of x after 2nd backward: {x.grad}")
print(f"Gradient of y after 2nd backward: {y.grad}")

# Manually zero the gradient
x.grad.zero_()
y.grad.zero_()

z = x * y
z.backward()

print(f"Gradient of x after 3nd backward: {x.grad}")
print(f"Gradient of y after 3nd backward: {y.grad}")
