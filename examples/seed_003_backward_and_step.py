"""Seed 003: one linear layer, CrossEntropyLoss with class-probability targets, the gradients
before and after backward(), then zero_grad/backward/step as a training loop."""
import ember as torch
from ember import optim

torch.manual_seed(0)
in_dim, out_dim = 5, 2

inputs = torch.randn(in_dim)
target = torch.tensor([1, 2], dtype=torch.float32)

model = torch.nn.Linear(in_dim, out_dim, bias=True)
out = model(inputs)

loss = torch.nn.CrossEntropyLoss()
computed_loss = loss(out, target)

for p in model.parameters():
    print(p.grad)

computed_loss.backward()

for p in model.parameters():
    print(p.grad)

lr = 1e-3
optimizer = optim.SGD(model.parameters(), lr=lr)

for step in range(5):
    optimizer.zero_grad()
    output = model(inputs)
    step_loss = loss(output, target)
    step_loss.backward()
    optimizer.step()
    print(f"step {step}: loss {step_loss.item():.6f}")

print(model.weight)
print(model.bias)
