"""Evaluation on rank 0 only, through the DDP wrapper, deadlocks on the buffer broadcast.

Run: torchrun --standalone --nproc_per_node=2 repro.py

CPU only (gloo), two processes, 5 s gloo timeout.

    torchrun --standalone --nproc_per_node=2 repro.py
        Both ranks train two steps on a model with a BatchNorm1d (it has buffers:
        running_mean, running_var, num_batches_tracked). Then rank 0 evaluates
        ddp_model(x) under torch.no_grad() and model.eval(), while rank 1 goes
        straight to dist.barrier(). DDP's forward on rank 0 broadcasts the buffers;
        rank 1 never joins that broadcast. Both ranks hit the gloo timeout.
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        Rank 0 evaluates ddp_model.module (the unwrapped model): no collective,
        exit code 0.
    torchrun --standalone --nproc_per_node=2 repro.py --no-forward-sync
        DDP(..., forward_sync_buffers=False) (torch >= 2.13; older releases:
        broadcast_buffers=False): the wrapper no longer broadcasts in forward,
        exit code 0.

To look at the hang from outside, give it a longer timeout and dump both ranks:

    torchrun --standalone --nproc_per_node=2 repro.py --timeout 60 &
    sleep 15; for pid in $(pgrep -f "repro.py --timeout 60" | tail -n 2); do py-spy dump --pid $pid; done

The default command exits non-zero. Captured output is in logs/.
"""

import argparse
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--no-forward-sync", action="store_true")
    p.add_argument("--timeout", type=float, default=5.0, help="gloo timeout in seconds")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    rank = dist.get_rank()
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
    model = DDP(net, forward_sync_buffers=False) if args.no_forward_sync else DDP(net)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    for step in range(2):
        loss = model(torch.randn(16, 8)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"rank {rank}: train step {step} done", flush=True)

    if rank == 0:
        evaluated = model.module if args.fixed else model
        evaluated.eval()
        with torch.no_grad():
            val = evaluated(torch.randn(32, 8)).pow(2).mean().item()
        evaluated.train()
        print(f"rank 0: validation loss {val:.4f}", flush=True)

    dist.barrier()  # everyone waits for rank 0's evaluation
    print(f"rank {rank}: past the barrier", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
