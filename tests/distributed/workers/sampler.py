"""Worker: DistributedSampler takes rank and world size from the process group.

Each rank writes its indices to its own file in the directory given as argument (two ranks'
stdout can interleave mid-line, so stdout is not parsed)."""
import json
import sys
from pathlib import Path

import ember.distributed as dist
from ember.utils.data import DistributedSampler

dist.init_process_group("mpi")
sampler = DistributedSampler(list(range(23)), seed=5)
sampler.set_epoch(2)
rank = dist.get_rank()
Path(sys.argv[1], f"rank{rank}.json").write_text(json.dumps({"rank": rank,
                                                             "indices": list(sampler)}))
dist.destroy_process_group()
print(f"PASS {sampler.rank}", flush=True)
