"""torch.distributed used without a default process group.

CPU only, one process, no launcher: run it the way a multi-GPU script is often run by mistake.

Run: python repro.py

    (default)        A training script written for torchrun asks for its rank with
                     dist.get_rank(), but this process never called init_process_group (it was
                     started with plain `python`): ValueError "Default process group has not
                     been initialized, please make sure to call init_process_group."
    --ddp            The model is wrapped in DistributedDataParallel without a process group:
                     the same ValueError, raised from DDP's constructor.
    --sampler        A DistributedSampler is built without a process group: the same error
                     from DistributedSampler.__init__ (it asks for the world size and rank).
    --after-destroy  A process group (world_size=1) is created, destroyed, and a barrier runs
                     afterwards (e.g. in an exit hook): the same error.
    --spawn-worker   The group exists in the main process, but an IterableDataset asks for the
                     rank inside a DataLoader worker started with "spawn" (the default on macOS
                     and Windows; forkserver, the Linux default from Python 3.14, behaves the
                     same): the worker has no process group and the error is re-raised as
                     "Caught ValueError in DataLoader worker process 0".
    --fixed          The helpers below fall back to rank 0 / world size 1 when no group exists,
                     DDP is skipped, and the script finishes: exit code 0.

Every variant except --fixed exits with code 1.
"""

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler, IterableDataset


def get_rank_safe():
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def get_world_size_safe():
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


class RankShard(IterableDataset):
    def __iter__(self):
        rank, world = dist.get_rank(), dist.get_world_size()  # runs inside the worker process
        return iter(range(rank, 8, world))


def init_single_process_group():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29555")
    dist.init_process_group("gloo", rank=0, world_size=1)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    for flag in ("--ddp", "--sampler", "--after-destroy", "--spawn-worker", "--fixed"):
        g.add_argument(flag, action="store_true")
    args = p.parse_args()
    model = nn.Linear(4, 2)

    if args.ddp:
        model = nn.parallel.DistributedDataParallel(model)
    elif args.sampler:
        DistributedSampler(list(range(16)))
    elif args.after_destroy:
        init_single_process_group()
        dist.destroy_process_group()
        dist.barrier()
    elif args.spawn_worker:
        init_single_process_group()
        loader = DataLoader(RankShard(), batch_size=2, num_workers=1, multiprocessing_context="spawn")
        for batch in loader:
            print("batch", batch.tolist(), flush=True)
    elif args.fixed:
        rank, world = get_rank_safe(), get_world_size_safe()
        print(f"rank {rank} of {world}: single-process run, DDP skipped", flush=True)
        print("loss", model(torch.randn(3, 4)).pow(2).mean().item(), flush=True)
    else:
        rank = dist.get_rank()
        print(f"rank {rank}: starting", flush=True)


if __name__ == "__main__":
    main()
