"""Ranks issue different collectives at the same point: DETAIL debug mode names both sides.

CPU only (gloo), two processes. Each rank syncs its step metrics in the order it recorded
them: "loss" is all-reduced, "best_step" is broadcast from rank 0. Rank 0 recorded loss
first, rank 1 recorded best_step first, so the first collective is an all_reduce on rank 0
and a broadcast on rank 1.

Run: torchrun --standalone --nproc_per_node=2 repro.py

    torchrun --standalone --nproc_per_node=2 repro.py
        TORCH_DISTRIBUTED_DEBUG=DETAIL (set by this script before torch is imported):
        both ranks raise at once with "Detected mismatch between collectives on ranks",
        "Op type: ALLREDUCEvs BROADCAST".
    torchrun --standalone --nproc_per_node=2 repro.py --no-debug
        Same bug without the debug wrapper: both ranks sit in their collective until the
        5 s gloo timeout ("Timed out waiting 5000ms for recv operation to complete").
    torchrun --standalone --nproc_per_node=2 repro.py --same-shape
        Both metrics are all-reduced, in a different order per rank. Same op, shape and
        dtype, so even DETAIL cannot see it: the job exits 0 with the two values swapped.
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        Metrics synced in sorted-name order on every rank: exit 0, correct values.

Every variant except --same-shape and --fixed exits non-zero.
"""

import os
import sys

if "--no-debug" not in sys.argv:
    # Must be in the environment before torch is imported; setting it later has no effect.
    os.environ.setdefault("TORCH_DISTRIBUTED_DEBUG", "DETAIL")

import argparse
import datetime

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--no-debug", action="store_true")
    g.add_argument("--same-shape", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank = dist.get_rank()

    def mean_all_reduce(t):
        dist.all_reduce(t)
        t /= dist.get_world_size()

    def from_rank0(t):
        dist.broadcast(t, src=0)

    # name -> (value recorded by this rank, how it is synced)
    loss = ("loss", torch.tensor([1.0 + rank]), mean_all_reduce)
    best = ("best_step", torch.tensor([100.0 + rank]), mean_all_reduce if args.same_shape else from_rank0)
    # Insertion order follows the order each rank happened to record its metrics.
    recorded = [loss, best] if rank == 0 else [best, loss]
    if args.fixed:
        recorded = sorted(recorded, key=lambda m: m[0])

    for _name, value, sync in recorded:
        sync(value)

    print(
        f"rank {rank}: loss={loss[1].item():.1f} (expected 1.5) "
        f"best_step={best[1].item():.1f} "
        f"(expected {100.5 if args.same_shape else 100.0})",
        flush=True,
    )
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
