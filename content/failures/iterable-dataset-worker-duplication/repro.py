"""An IterableDataset without sharding yields every sample once per DataLoader worker.

Run: python repro.py

CPU only; each variant takes 1-3 s.

    python repro.py
        A stream of 8 records with __len__ = 8, num_workers=2, and len(loader) called (as
        progress bars, HF Trainer and Lightning do). Each worker iterates its own copy of
        the dataset, so 16 samples arrive, every record twice, and the DataLoader warns:
        "Length of IterableDataset ... was reported to be 8(when accessing len(dataloader)),
        but 9 samples have been fetched. For multiprocessing data-loading, this could be
        caused by not properly configuring the IterableDataset replica at each worker."
    python repro.py --no-len
        The same stream without __len__: nothing is printed by PyTorch; only the counts
        at the end show the duplication.
    python repro.py --fixed
        __iter__ shards the stream with get_worker_info() (and by rank when
        torch.distributed is initialised): 8 samples, each once, no warning.

Exit code 1 when duplicates were delivered, 0 otherwise. Captured output is in logs/.
"""

import argparse
import collections
import sys

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Records(IterableDataset):
    """Stands in for a reader over files, a database cursor or a streaming source."""

    def __init__(self, n=8, shard=False):
        self.n = n
        self.shard = shard

    def __iter__(self):
        ids = range(self.n)
        if self.shard:
            rank, world = (dist.get_rank(), dist.get_world_size()) if dist.is_initialized() else (0, 1)
            info = get_worker_info()
            wid, nw = (info.id, info.num_workers) if info is not None else (0, 1)
            ids = ids[rank * nw + wid :: world * nw]  # one disjoint slice per (rank, worker)
        for i in ids:
            yield torch.tensor(i)


class RecordsWithLen(Records):
    def __len__(self):
        return self.n


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--no-len", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    ds = Records(shard=args.fixed) if args.no_len else RecordsWithLen(shard=args.fixed)
    loader = DataLoader(ds, batch_size=None, num_workers=2)
    if not args.no_len:
        print(f"len(loader) = {len(loader)}", flush=True)
    seen = [int(x) for x in loader]
    counts = collections.Counter(seen)
    dupes = sorted(k for k, c in counts.items() if c > 1)
    print(f"fetched {len(seen)} samples, {len(counts)} distinct, duplicated ids: {dupes}", flush=True)
    print(f"order: {seen}", flush=True)
    sys.exit(1 if dupes else 0)


if __name__ == "__main__":
    main()
