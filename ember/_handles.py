"""RemovableHandle: what every register_*_hook returns (tensors, autograd nodes, modules,
optimizers); public as torch.utils.hooks.RemovableHandle."""
import itertools

_ids = itertools.count()


class RemovableHandle:
    """``remove()`` unregisters the hook: from each dict holding it under the handle's ``id``,
    or, for a list of hooks, the entry itself. Also a context manager that removes on exit."""

    def __init__(self, *containers, entry=None):
        self.id = next(_ids)
        self._containers = containers
        self._entry = entry

    def remove(self):
        for container in self._containers:
            if isinstance(container, dict):
                container.pop(self.id, None)
                continue
            for i, e in enumerate(container):
                if e is self._entry:
                    del container[i]
                    break

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
