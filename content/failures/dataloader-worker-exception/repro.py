"""An exception raised inside a DataLoader worker is re-raised in the main process, wrapped.

Run: python repro.py

CPU only, one process plus two DataLoader workers; every variant takes 1-3 s.

    python repro.py
        Record 5 of the dataset is corrupt and its parser raises ValueError inside
        worker 0. The main process raises "ValueError: Caught ValueError in DataLoader
        worker process 0." with the worker's traceback embedded after
        "Original Traceback (most recent call last):".
    python repro.py --num-workers 0
        Same dataset, no workers: the ValueError is raised directly, with a normal
        traceback and no "Caught ... in DataLoader worker" wrapper.
    python repro.py --custom-exception
        The parser raises an exception class whose constructor needs two arguments.
        The wrapper cannot rebuild it, so the main process raises RuntimeError
        ("RuntimeError: Caught RecordError in DataLoader worker process 1.").
    python repro.py --init-fn
        worker_init_fn raises; the error surfaces at the first batch that worker owes.
    python repro.py --fixed
        __getitem__ catches the parse error, logs the index, returns None, and a
        collate_fn drops the None samples. All batches arrive; exit code 0.

Every variant except --fixed exits non-zero. Captured output of each is in logs/.
"""

import argparse
import sys

import torch
from torch.utils.data import DataLoader, Dataset, default_collate


class RecordError(Exception):
    """An exception whose constructor takes two arguments (like many library errors)."""

    def __init__(self, index, reason):
        super().__init__(f"record {index}: {reason}")
        self.index = index
        self.reason = reason


def parse(raw, index, custom):
    if raw == b"\xff\xfe":  # stands in for a truncated file, a bad JSON line, a corrupt image
        if custom:
            raise RecordError(index, "truncated payload")
        raise ValueError(f"cannot parse record {index}: unexpected bytes {raw!r}")
    return torch.tensor([float(x) for x in raw.decode().split(",")])


class Records(Dataset):
    def __init__(self, bad_index, custom=False, skip_bad=False):
        self.raw = [b"1,2,3"] * 12
        self.raw[bad_index] = b"\xff\xfe"
        self.custom = custom
        self.skip_bad = skip_bad

    def __len__(self):
        return len(self.raw)

    def __getitem__(self, index):
        if not self.skip_bad:
            return parse(self.raw[index], index, self.custom)
        try:
            return parse(self.raw[index], index, self.custom)
        except (ValueError, RecordError) as exc:
            print(f"skipping record {index}: {exc}", file=sys.stderr, flush=True)
            return None


def drop_none(batch):
    return default_collate([s for s in batch if s is not None])


def failing_init(worker_id):
    raise OSError(f"worker {worker_id}: cannot open shard file /data/shard-{worker_id:05d}.tar")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-workers", type=int, default=2)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--custom-exception", action="store_true")
    g.add_argument("--init-fn", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    # Batches are dealt round-robin: batch 2 (indices 4, 5) goes to worker 0,
    # batch 3 (indices 6, 7) to worker 1.
    bad_index = 7 if args.custom_exception else 5
    ds = Records(bad_index, custom=args.custom_exception, skip_bad=args.fixed)
    loader = DataLoader(
        ds,
        batch_size=2,
        num_workers=args.num_workers,
        worker_init_fn=failing_init if args.init_fn else None,
        collate_fn=drop_none if args.fixed else None,
    )
    for step, batch in enumerate(loader):
        print(f"step {step}: batch of {batch.shape[0]}", flush=True)
    print("epoch done", flush=True)


if __name__ == "__main__":
    main()
