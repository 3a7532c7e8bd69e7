"""Shared inputs of the ops/api tests: fixed draws, so every file compares the same arrays."""
import numpy as np

R = np.random.default_rng(0)
A, B = R.standard_normal((3, 4)), R.standard_normal((3, 4))
C = R.standard_normal((2, 3, 4))
POS = R.uniform(0.5, 2.0, (3, 4))
I = np.array([[3, 1, 10], [-4, 0, 7]])
IDX = np.array([[0, 2], [1, 1], [3, 0]])
