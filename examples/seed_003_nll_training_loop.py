"""Seed 003's loop-ready code: zero_grad, forward, F.nll_loss on log-probabilities, backward,
step, over a small classifier and a fixed batch."""
import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember import optim

torch.manual_seed(1)
network = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3), nn.LogSoftmax(dim=1))
data = torch.randn(32, 8)
target = (data[:, 0] > 0).long() + (data[:, 1] > 0).long()  # classes 0, 1, 2
optimizer = optim.SGD(network.parameters(), lr=0.1)

for epoch in range(20):
    optimizer.zero_grad()
    output = network(data)
    loss = F.nll_loss(output, target)
    loss.backward()
    optimizer.step()
    if epoch % 5 == 4:
        print(f"epoch {epoch + 1}: loss {loss.item():.5f}")

print(network)
print(f"accuracy: {(output.argmax(dim=1) == target).float().mean().item():.4f}")
