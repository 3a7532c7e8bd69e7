"""Worker: DistributedSampler takes rank and world size from the process group."""
import json

import ember
import ember.distributed as dist
from ember.utils.data import DistributedSampler

dist.init_process_group("mpi")
sampler = DistributedSampler(list(range(23)), seed=5)
sampler.set_epoch(2)
mine = ember.tensor(list(sampler))
everyone = [ember.zeros_like(mine) for _ in range(dist.get_world_size())]
dist.all_gather(everyone, mine)  # one line from rank 0: ranks' output lines may interleave
if dist.get_rank() == 0:
    print(json.dumps([t.tolist() for t in everyone]), flush=True)
dist.destroy_process_group()
print(f"PASS {sampler.rank}", flush=True)
