"""DistributedDataParallel (ember/nn/parallel/distributed.py) on a one-rank world (MPI's
singleton start, in a child process): gradients equal the plain module's, no_sync accumulates,
the first backward after it averages everything, state_dict keys gain the 'module.' prefix, and a
module without trainable parameters is refused with torch's message. Training on several ranks:
tests/distributed/test_ddp.py."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

_SCRIPT = """
import numpy as np
import ember
import ember.distributed as dist

dist.init_process_group('mpi')
ember.manual_seed(0)
plain = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Tanh(), ember.nn.Linear(4, 1))
wrapped = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Tanh(), ember.nn.Linear(4, 1))
wrapped.load_state_dict(plain.state_dict())
ddp = ember.nn.parallel.DistributedDataParallel(wrapped, bucket_cap_mb=0.00001)
assert ddp.module is wrapped
assert sorted(ddp.state_dict()) == sorted('module.' + k for k in plain.state_dict())
x = ember.randn(5, 3)
for _ in range(2):
    plain(x).pow(2).sum().backward()
with ddp.no_sync():
    ddp(x).pow(2).sum().backward()
    assert not ddp.require_backward_grad_sync
assert ddp.require_backward_grad_sync
ddp(x).pow(2).sum().backward()
for p, q in zip(plain.parameters(), wrapped.parameters()):
    np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-6)
try:
    ember.nn.parallel.DistributedDataParallel(ember.nn.ReLU())
except RuntimeError as e:
    assert "doesn't have any parameter that requires a gradient" in str(e)
else:
    raise AssertionError('no error')
print('ok')
"""


def test_one_rank_ddp_equals_the_plain_module():
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                          cwd=str(ROOT), timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
