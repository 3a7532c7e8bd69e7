"""Seed 004: fit y = 2x + 1 with nn.Linear, MSELoss and SGD, printing the loss as it trains.

Runs unchanged under PyTorch: swap the import below for ``import torch``.
"""
import ember as torch
import ember.nn as nn
from ember import optim


# Define a simple linear regression model
class LinearRegression(nn.Module):
    def __init__(self, input_size, output_size):
        super(LinearRegression, self).__init__()
        self.linear = nn.Linear(input_size, output_size)

    def forward(self, x):
        return self.linear(x)


torch.manual_seed(0)  # the seed leaves torch unseeded (a random start); seeded, both agree

# Create dummy data
X = torch.randn(100, 1, requires_grad=True)  # Notice requires_grad=True for the inputs
# The seed builds y from X itself; its graph through X is then freed by the first backward()
# and PyTorch (like ember) refuses the second. y is data, so it is built from X.detach().
y = 2 * X.detach() + 1 + torch.randn(100, 1) * 0.1

# Create a linear regression model
model = LinearRegression(1, 1)

# Define the loss function and optimizer
criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=0.01)

# Training loop
for epoch in range(100):
    # Forward pass
    outputs = model(X)
    loss = criterion(outputs, y)

    # Backward pass and optimization
    optimizer.zero_grad()  # Clear the gradients of all optimized variables
    loss.backward()  # Perform backpropagation implicitly
    optimizer.step()  # Updates model parameters based on backpropagation results

    if (epoch + 1) % 10 == 0:
        print(f'Epoch: {epoch+1}, Loss: {loss.item():.4f}')


print("\nFinal parameters after training:")
for name, param in model.named_parameters():
    if param.requires_grad:
        print(f"{name}: {param.data.item():.4f}")
