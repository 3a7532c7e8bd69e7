"""nn.CTCLoss vs torch: its options, repr, and the loss it returns (formulas: F.ctc_loss)."""
import numpy as np
import torch

import ember

PADDED = np.array([[1, 2, 2, 0], [3, 1, 0, 0], [0, 0, 0, 0]])


def test_module():
    for lib in (ember, torch):
        loss = lib.nn.CTCLoss(blank=1, reduction="sum", zero_infinity=True)
        assert (loss.blank, loss.reduction, loss.zero_infinity) == (1, "sum", True)
    assert repr(ember.nn.CTCLoss()) == repr(torch.nn.CTCLoss())
    x = np.random.default_rng(0).standard_normal((7, 3, 5))
    values = [lib.nn.CTCLoss(blank=4)(lib.tensor(x).log_softmax(2), lib.tensor(PADDED % 4),
                                       (7, 5, 7), (3, 2, 3)).item()
              for lib in (ember, torch)]
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12)
