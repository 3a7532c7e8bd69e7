"""Peak memory of a training step (MLP 784 and LeNet), and growth over many steps, ember vs torch.

Each measurement runs in a fresh interpreter so neither library sees the other's allocations.
Peak: the process's resident high-water mark (VmHWM) over 5 steps, reset (Linux clear_refs) after
the model, optimizer and batch exist, minus the resident size at that moment — i.e. the memory a
step adds on top of what the user already holds (gradients, optimizer state, activations, temps).
Growth: resident size after step 10 000 minus after step 1 000 of a tiny MLP (Adam).
"""
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys
lib = __import__(sys.argv[1]); nn = lib.nn
workload = sys.argv[2]
def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key):
            return int(line.split()[1]) * 1024
lib.manual_seed(0)
if workload == 'mlp':
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    x, y = lib.randn(128, 784), lib.randint(0, 10, (128,))
elif workload == 'lenet':
    model = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
                          nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(256, 10))
    x, y = lib.randn(64, 1, 28, 28), lib.randint(0, 10, (64,))
else:
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                          nn.Linear(32, 1))
    x, y = lib.randn(32, 16), lib.randn(32, 1)
opt = (lib.optim.Adam(model.parameters(), lr=1e-3) if workload == 'tiny' else
       lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
loss_fn = nn.MSELoss() if workload == 'tiny' else nn.CrossEntropyLoss()
def step():
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
if workload == 'tiny':
    for _ in range(1000):
        step()
    before = status('VmRSS')
    for _ in range(9000):
        step()
    print(json.dumps({'growth': status('VmRSS') - before}))
else:
    base = status('VmRSS')
    with open('/proc/self/clear_refs', 'w') as f:
        f.write('5')  # reset the high-water mark to the current resident size
    for _ in range(5):
        step()
    print(json.dumps({'peak': status('VmHWM') - base}))
"""


def measure(lib, workload, key, repeats=3):
    values = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", CHILD, lib, workload], check=True,
                             capture_output=True, text=True).stdout
        values.append(json.loads(out.strip().splitlines()[-1])[key])
    return statistics.median(values)


def main():
    print("| workload | ember | torch | ratio | goal |\n|---|---|---|---|---|")
    for workload, name in (("mlp", "peak extra memory, MLP 784 SGD step"),
                           ("lenet", "peak extra memory, LeNet SGD step")):
        e, t = measure("ember", workload, "peak"), measure("torch", workload, "peak")
        print(f"| {name} | {e / 2**20:.1f} MB | {t / 2**20:.1f} MB | {e / max(t, 1):.2f} "
              "| <= 1.2 |")
    e, t = measure("ember", "tiny", "growth", 1), measure("torch", "tiny", "growth", 1)
    print(f"| RSS growth, tiny MLP Adam, steps 1 000 -> 10 000 | {e / 2**20:.2f} MB "
          f"| {t / 2**20:.2f} MB | - | no growth |")


if __name__ == "__main__":
    main()
