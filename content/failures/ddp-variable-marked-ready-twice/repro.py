"""DDP 'Expected to mark a variable ready only once': a parameter's gradient hook fires twice.

CPU only (gloo), two processes. A small encoder whose blocks run under activation
checkpointing, the way `gradient_checkpointing_enable()` wires a transformer.

Run: torchrun --standalone --nproc_per_node=2 repro.py

    torchrun --standalone --nproc_per_node=2 repro.py
        Blocks checkpointed with use_reentrant=True and DDP(find_unused_parameters=True)
        (the model has a head that is not used in this task). The first backward raises
        "Expected to mark a variable ready only once." and "Parameter at index N with name
        blocks.0.bias has been marked as ready twice."
    torchrun --standalone --nproc_per_node=2 repro.py --shared-block
        No find_unused_parameters; one block is applied twice (a weight-shared / recurrent
        block), each time under a reentrant checkpoint: same error.
    torchrun --standalone --nproc_per_node=2 repro.py --outside-forward
        No checkpointing; a parameter that forward does not use feeds a loss term computed
        outside forward, with find_unused_parameters=True: same error, name ".center".
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        use_reentrant=False (default variant run): 3 steps, exit 0.
    torchrun --standalone --nproc_per_node=2 repro.py --static-graph
        Reentrant checkpointing kept, DDP(static_graph=True) and no find_unused_parameters:
        3 steps, exit 0.

Every variant except --fixed and --static-graph exits non-zero.
"""

import argparse
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


class Encoder(nn.Module):
    def __init__(self, reentrant, shared):
        super().__init__()
        self.reentrant = reentrant
        self.shared = shared
        self.embed = nn.Linear(8, 8)
        self.blocks = nn.ModuleList(nn.Linear(8, 8) for _ in range(2))
        self.head = nn.Linear(8, 1)
        self.unused_head = nn.Linear(8, 4)  # e.g. a pretraining head this task ignores
        self.center = nn.Parameter(torch.zeros(8))

    def forward(self, x):
        h = self.embed(x)
        blocks = [self.blocks[0], self.blocks[0]] if self.shared else self.blocks
        for block in blocks:
            h = torch.relu(checkpoint(block, h, use_reentrant=self.reentrant))
        return self.head(h), h


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--shared-block", action="store_true")
    g.add_argument("--outside-forward", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--static-graph", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = Encoder(reentrant=not (args.fixed or args.outside_forward), shared=args.shared_block)
    if args.static_graph:
        ddp = DDP(model, static_graph=True)
    elif args.shared_block:
        ddp = DDP(model)
    else:
        ddp = DDP(model, find_unused_parameters=True)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)

    for step in range(3):
        x = torch.randn(4, 8, requires_grad=True)  # reentrant checkpoint needs a grad input
        y, h = ddp(x)
        loss = y.pow(2).mean()
        if args.outside_forward:
            # center-loss style term: uses a parameter outside DDP's forward
            loss = loss + (h.detach() - ddp.module.center).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"rank {rank}: step {step} done", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
