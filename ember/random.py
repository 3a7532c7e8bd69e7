"""Random number generators: Generator objects, manual_seed and the default generator."""
import numpy as np


class Generator:
    """A seedable source of random numbers (NumPy's PCG64 underneath)."""

    def __init__(self, device="cpu"):
        self._seed = 67280421310721  # torch's default seed
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed):
        """Reseed; returns self."""
        seed = int(seed)
        if seed < 0:
            seed += 1 << 64
        self._seed = seed
        self._rng = np.random.Generator(np.random.PCG64(seed))
        return self

    def seed(self):
        """Reseed from the OS entropy pool; returns the new seed."""
        s = int(np.random.SeedSequence().entropy) % (1 << 63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The generator state as a uint8 tensor (round-trips through set_state)."""
        import json

        from ._tensor import Tensor
        blob = json.dumps(self._rng.bit_generator.state).encode()
        return Tensor._make(np.frombuffer(blob, dtype=np.uint8).copy())

    def set_state(self, state):
        import json
        data = state._data if hasattr(state, "_data") else np.asarray(state)
        self._rng.bit_generator.state = json.loads(bytes(data.astype(np.uint8)).decode())
        return self

    @property
    def device(self):
        from ._tensor import device
        return device("cpu")


default_generator = Generator()


def _rng(generator=None):
    return (generator or default_generator)._rng


def manual_seed(seed):
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)
