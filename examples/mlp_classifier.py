"""A small MLP classifier trained with dropout, label smoothing and SGD momentum on synthetic
data; under ``import torch`` instead of ember it prints the same numbers."""
import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember import optim

torch.manual_seed(0)
features, classes = 20, 4
centers = torch.randn(classes, features) * 2
labels = torch.randint(0, classes, (256,))
inputs = centers[labels] + torch.randn(256, features)

model = nn.Sequential(nn.Linear(features, 64), nn.GELU(), nn.Dropout(0.2),
                      nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, classes))
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(30):
    model.train()
    for start in range(0, 256, 64):
        x, y = inputs[start:start + 64], labels[start:start + 64]
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
    if epoch % 5 == 4:
        model.eval()
        with torch.no_grad():
            logits = model(inputs)
            accuracy = (logits.argmax(1) == labels).float().mean().item()
            probs = F.softmax(logits, dim=1)
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}, accuracy {accuracy:.4f}, "
              f"mean max prob {probs.max(1).values.mean().item():.4f}")

print(model)
