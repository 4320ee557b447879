"""DDP: a parameter that gets no gradient breaks the *next* forward pass.

Run: torchrun --standalone --nproc_per_node=2 repro.py

CPU only (gloo), two processes, each variant finishes in a few seconds.

    torchrun --standalone --nproc_per_node=2 repro.py
        head_b is never used; find_unused_parameters=False (the default).
        Both ranks raise in the forward of step 1.
    TORCH_DISTRIBUTED_DEBUG=INFO torchrun --standalone --nproc_per_node=2 repro.py
        Same, and the error also names the parameters (head_b.bias, head_b.weight).
    torchrun --standalone --nproc_per_node=2 repro.py --rank-dependent
        Only rank 0 uses head_b. Rank 1 raises in its next forward; rank 0 is left
        inside backward waiting for rank 1's all-reduce and dies on a gloo error.
    torchrun --standalone --nproc_per_node=2 repro.py --static-graph
        static_graph=True; head_b is used in step 0 only. Raises in the forward of step 2.
    torchrun --standalone --nproc_per_node=2 repro.py --partial-backward
        find_unused_parameters=True, but backward(inputs=...) skips head_b's gradient.
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        find_unused_parameters=True: all steps finish, exit code 0.

Every variant except --fixed exits non-zero. Captured output of each is in logs/.
"""

import argparse
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(8, 8)  # parameter indices 0, 1
        self.head_a = nn.Linear(8, 1)  # 2, 3
        self.head_b = nn.Linear(8, 1)  # 4, 5

    def forward(self, x, use_b=False):
        h = torch.relu(self.trunk(x))
        out = self.head_a(h)
        if use_b:
            out = out + self.head_b(h)
        return out


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--rank-dependent", action="store_true")
    g.add_argument("--static-graph", action="store_true")
    g.add_argument("--partial-backward", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DDP(
        TwoHeads(),
        find_unused_parameters=args.partial_backward or args.fixed,
        static_graph=args.static_graph,
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    for step in range(3):
        x = torch.randn(4, 8)
        if args.rank_dependent:
            use_b = rank == 0  # e.g. a branch taken only for some samples
        elif args.static_graph:
            use_b = step == 0  # the graph changes after the first step
        else:
            use_b = False
        loss = model(x, use_b=use_b).sum()
        if args.partial_backward:
            # e.g. alternating updates of two sub-networks through one DDP wrapper
            loss.backward(inputs=list(model.module.trunk.parameters()))
        else:
            loss.backward()
        opt.step()
        opt.zero_grad()
        if rank == 0:
            print(f"rank 0: step {step} done", flush=True)

    dist.barrier()  # let both ranks finish before tearing gloo down
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
