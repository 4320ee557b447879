"""DDP(static_graph=True) with a model whose set of used parameters changes after step 0.

CPU only (gloo), two processes. An auxiliary head joins the loss only after a warm-up of
one step (a common curriculum / auxiliary-loss schedule).

Run: torchrun --standalone --nproc_per_node=2 repro.py

    torchrun --standalone --nproc_per_node=2 repro.py
        The aux head is unused in step 0 (the step static_graph records) and used from
        step 1: the backward of step 1 raises "Your training graph has changed in this
        iteration, e.g., one parameter is unused in first iteration, but then got used
        in the second iteration." on every rank.
    torchrun --standalone --nproc_per_node=2 repro.py --drop-later
        The opposite schedule: the aux head is used in step 0 and dropped from step 1.
        The forward of step 2 raises "Expected to have finished reduction in the prior
        iteration ... one parameter is used in first iteration, but then got unused in the
        second iteration." (the text the ddp-unused-parameters entry matches).
    torchrun --standalone --nproc_per_node=2 repro.py --find-unused
        Same schedule as the default, static_graph=False, find_unused_parameters=True:
        runs 4 steps, exit 0.
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        static_graph=True kept; the aux head runs every step and is weighted 0 during
        warm-up, so the used set never changes: exit 0.

The default and --drop-later exit non-zero.
"""

import argparse
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.head = nn.Linear(8, 1)
        self.aux_head = nn.Linear(8, 1)

    def forward(self, x, use_aux, aux_weight=1.0):
        h = torch.relu(self.body(x))
        loss = self.head(h).pow(2).mean()
        if use_aux:
            loss = loss + aux_weight * self.aux_head(h).abs().mean()
        return loss


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--drop-later", action="store_true")
    g.add_argument("--find-unused", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DDP(Net(), find_unused_parameters=True) if args.find_unused else DDP(Net(), static_graph=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    warmup = 1
    for step in range(4):
        x = torch.randn(4, 8)
        if args.fixed:
            loss = model(x, use_aux=True, aux_weight=0.0 if step < warmup else 1.0)
        elif args.drop_later:
            loss = model(x, use_aux=step < warmup)
        else:
            loss = model(x, use_aux=step >= warmup)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"rank {rank}: step {step} done", flush=True)

    if rank == 0:
        print(f"finished 4 steps, static_graph={model.static_graph}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
