"""DDP with a different number of batches per rank: the rank with more data blocks in backward.

Run: torchrun --standalone --nproc_per_node=2 repro.py --join-throw

CPU only (gloo), two processes. Rank 0 gets 3 batches, rank 1 gets 5.

    torchrun --standalone --nproc_per_node=2 repro.py
        Rank 0 leaves the loop and exits; rank 1's 4th backward fails with gloo
        "Connection closed by peer" (rank 0 itself exited cleanly).
    torchrun --standalone --nproc_per_node=2 repro.py --linger
        Rank 0 leaves the loop and then spends 15 s (e.g. writing a checkpoint);
        rank 1 hits the 5 s gloo timeout inside backward.
    torchrun --standalone --nproc_per_node=2 repro.py --barrier
        Rank 0 goes to an end-of-epoch dist.barrier() while rank 1 is in backward:
        both ranks hit the 5 s gloo timeout.
    torchrun --standalone --nproc_per_node=2 repro.py --join-throw
        Loop wrapped in Join([model], throw_on_early_termination=True):
        every rank raises at the same step instead of hanging.
    torchrun --standalone --nproc_per_node=2 repro.py --join-extra-allreduce
        Join([model]), but the loop also all-reduces the loss for logging. Join only
        shadows DDP's own collectives, so rank 1's logging all-reduce meets one of
        rank 0's shadow all-reduces: gloo aborts on a size mismatch.
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        Loop wrapped in Join([model]): rank 0 shadows rank 1's last two all-reduces,
        both ranks finish, exit code 0.
    torchrun --standalone --nproc_per_node=2 repro.py --skew-warning
        Join([model]) with rank 1 holding 1010 batches: the job finishes (exit 0),
        but rank 0 shadows more than 1000 iterations and Join warns about the skew.

Every variant except --fixed and --skew-warning exits non-zero. Captured output of each is in logs/.
"""

import argparse
import contextlib
import datetime
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.algorithms import Join
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--linger", action="store_true")
    g.add_argument("--barrier", action="store_true")
    g.add_argument("--join-throw", action="store_true")
    g.add_argument("--join-extra-allreduce", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--skew-warning", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DDP(nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    # Stand-in for a sharded dataset that does not split evenly.
    n_batches = 3 if rank == 0 else (1010 if args.skew_warning else 5)
    batches = [torch.randn(4, 8) for _ in range(n_batches)]

    if args.fixed or args.join_throw or args.join_extra_allreduce or args.skew_warning:
        ctx = Join([model], throw_on_early_termination=args.join_throw)
    else:
        ctx = contextlib.nullcontext()

    with ctx:
        for step, x in enumerate(batches):
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            if args.join_extra_allreduce:
                logged = loss.detach().reshape(1)
                dist.all_reduce(logged)  # not a Joinable collective: nothing shadows it
            if step < 5:
                print(f"rank {rank}: step {step} done", flush=True)

    print(f"rank {rank}: out of data after {n_batches} steps", flush=True)
    if args.linger:
        time.sleep(15)  # e.g. rank 0 writes a checkpoint or runs evaluation
    elif args.barrier or args.fixed or args.skew_warning:
        dist.barrier()
    if args.fixed or args.skew_warning:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
