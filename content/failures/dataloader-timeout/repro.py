"""DataLoader(timeout=N): the main process gives up when no batch arrives within N seconds.

Run: python repro.py

CPU only, one process plus two workers; each variant takes 5-10 s (the extra seconds
after the error are the DataLoader shutting down a worker that is still blocked).

    python repro.py
        Sample 4 blocks for 60 s (a stuck network-filesystem read, a lock taken before
        fork, a decoder waiting on a pipe). Batches 0 and 1 arrive, then
        "RuntimeError: DataLoader timed out after 3 seconds".
    python repro.py --slow-start
        No sample is stuck, but worker_init_fn takes 5 s (opening shards, building an index).
        The timeout also covers worker start-up, so the *first* batch already times out.
    python repro.py --num-workers 0
        timeout > 0 without workers is rejected when the iterator is created:
        "AssertionError: _SingleProcessDataLoaderIter requires timeout == 0".
    python repro.py --no-timeout
        The same stuck sample with the default timeout=0: the loop hangs silently. A
        faulthandler watchdog dumps the main thread's stack after 6 s and exits, to show
        where it waits (use py-spy dump --pid <pid> --subprocesses on a real job).

    python repro.py --slow-start --timeout 10
        The fix for start-up: a timeout above the 5 s worker start-up. Prints "epoch done",
        exit 0.

Every variant above the last exits non-zero. Captured output of the first three is in logs/.
"""

import argparse
import faulthandler
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Shards(Dataset):
    def __init__(self, stuck_index):
        self.stuck_index = stuck_index

    def __len__(self):
        return 12

    def __getitem__(self, index):
        if index == self.stuck_index:
            time.sleep(60)  # stands in for a read that never returns
        return torch.full((4,), float(index))


def slow_init(worker_id):
    time.sleep(5)  # e.g. every worker opens and indexes its shard files


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=3, help="DataLoader timeout in seconds")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--slow-start", action="store_true")
    g.add_argument("--no-timeout", action="store_true")
    args = p.parse_args()

    if args.no_timeout:
        faulthandler.dump_traceback_later(6, exit=True)
    loader = DataLoader(
        Shards(stuck_index=None if args.slow_start else 4),
        batch_size=2,
        num_workers=args.num_workers,
        timeout=0 if args.no_timeout else args.timeout,
        worker_init_fn=slow_init if args.slow_start else None,
    )
    start = time.monotonic()
    for step, batch in enumerate(loader):
        print(f"step {step}: batch {batch[:, 0].tolist()} at {time.monotonic() - start:.1f}s", flush=True)
    print("epoch done", flush=True)


if __name__ == "__main__":
    main()
