"""Modules and functions traced by the fx tests, built the same way in torch or ember."""


def net(lib):
    """Leaf modules, a traced-through Sequential, a parameter, functional calls with keyword
    defaults, methods, attributes, indexing, operators (reflected too) and a tuple output."""
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 4)
            self.w = nn.Parameter(lib.ones(4))
            self.seq = nn.Sequential(nn.ReLU(), nn.Linear(4, 4))

        def forward(self, x, y=None):
            a = self.lin(x) + self.w
            b = F.relu(a).sum(dim=-1, keepdim=True)
            c = lib.cat([a, b], 1)[:, 0:2]
            d = self.seq(a)
            e = -d * 2 + 1.5 / d - d ** 2
            return c, e.relu(), lib.max(e, dim=1)[0], x.shape[0], lib.tanh(e) @ e.t()
    lib.manual_seed(0)
    return Net()


def small(lib):
    """x -> relu(x) + 1 through an nn.ReLU submodule."""
    class Small(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.relu = lib.nn.ReLU()

        def forward(self, x):
            return self.relu(x) + 1.0
    return Small()
