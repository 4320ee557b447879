"""Collectives whose tensor size differs per rank: gloo abort, silent garbage, or a hang.

Run: torchrun --standalone --nproc_per_node=2 repro.py

CPU only (gloo), two processes. Rank 0 holds 2 predictions, rank 1 holds 3 (the
last, uneven evaluation batch).

    torchrun --standalone --nproc_per_node=2 repro.py
        dist.all_gather(out, x) with `out` sized like the local tensor. Rank 0's
        gloo thread hits `op.preamble.length <= op.nbytes` and the process is
        aborted (SIGABRT, no Python traceback); rank 1 sees the connection drop.
    TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun --standalone --nproc_per_node=2 repro.py
        Same code; the debug wrapper compares shapes first and both ranks raise
        "Detected mismatch between collectives on ranks".
    torchrun --standalone --nproc_per_node=2 repro.py --exact-sizes
        `out` sized per rank ([2], [3]): gloo refuses at once with
        "ProcessGroupGloo::allgather: invalid tensor size at index ...".
    torchrun --standalone --nproc_per_node=2 repro.py --into-tensor
        dist.all_gather_into_tensor with an output of world_size * local size:
        the same gloo abort on rank 0, and rank 1 keeps a silently corrupted result.
    torchrun --standalone --nproc_per_node=2 repro.py --all-reduce
        dist.all_reduce on the ragged tensors: rank 0 returns a wrong sum without
        any error, then the next collective fails on a gloo timeout.
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        Gather the sizes, pad to the maximum, all_gather, trim: exit code 0.

Every variant except --fixed exits non-zero. Captured output of each is in logs/.
"""

import argparse
import datetime

import torch
import torch.distributed as dist


def gather_ragged(x: torch.Tensor) -> list[torch.Tensor]:
    """all_gather for tensors whose first dimension differs per rank."""
    world = dist.get_world_size()
    n = torch.tensor([x.shape[0]], dtype=torch.int64, device=x.device)
    sizes = [torch.zeros_like(n) for _ in range(world)]
    dist.all_gather(sizes, n)
    sizes = [int(s.item()) for s in sizes]
    max_n = max(sizes)
    padded = x.new_zeros((max_n, *x.shape[1:]))
    padded[: x.shape[0]] = x
    out = [torch.empty_like(padded) for _ in range(world)]
    dist.all_gather(out, padded)
    return [t[:k] for t, k in zip(out, sizes, strict=True)]


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--exact-sizes", action="store_true")
    g.add_argument("--into-tensor", action="store_true")
    g.add_argument("--all-reduce", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank, world = dist.get_rank(), dist.get_world_size()
    n_local = 2 if rank == 0 else 3
    preds = torch.arange(n_local, dtype=torch.float32) + 10 * rank

    if args.fixed:
        gathered = torch.cat(gather_ragged(preds))
        print(f"rank {rank}: gathered {gathered.tolist()}", flush=True)
        dist.barrier()
        dist.destroy_process_group()
        return

    if args.all_reduce:
        dist.all_reduce(preds)
        print(f"rank {rank}: all_reduce returned {preds.tolist()}", flush=True)
    elif args.into_tensor:
        flat = torch.empty(world * n_local)
        dist.all_gather_into_tensor(flat, preds)  # all_gather_single on torch >= 2.13
        print(f"rank {rank}: gathered {flat.tolist()}", flush=True)
    else:
        if args.exact_sizes:
            out = [torch.empty(2 if r == 0 else 3) for r in range(world)]
        else:
            out = [torch.empty_like(preds) for _ in range(world)]
        dist.all_gather(out, preds)
        print(f"rank {rank}: gathered {[t.tolist() for t in out]}", flush=True)

    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
