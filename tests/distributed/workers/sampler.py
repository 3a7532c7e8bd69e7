"""Worker: DistributedSampler takes rank and world size from the process group."""
import json

import ember.distributed as dist
from ember.utils.data import DistributedSampler

dist.init_process_group("mpi")
sampler = DistributedSampler(list(range(23)), seed=5)
sampler.set_epoch(2)
print(json.dumps({"rank": dist.get_rank(), "indices": list(sampler)}), flush=True)
dist.destroy_process_group()
print(f"PASS {sampler.rank}", flush=True)
