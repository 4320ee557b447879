"""Plain gloo collectives under TORCH_DISTRIBUTED_DEBUG=INFO / TORCH_CPP_LOG_LEVEL=INFO,
followed by a short DDP phase (INFO is fine with DDP; DETAIL segfaults when
wrapping DDP models on this build).
"""

import datetime
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group(backend="gloo", timeout=datetime.timedelta(seconds=120))
    rank, world = dist.get_rank(), dist.get_world_size()
    print(
        f"rank {rank}/{world}: init ok, TORCH_DISTRIBUTED_DEBUG={os.environ.get('TORCH_DISTRIBUTED_DEBUG')} "
        f"TORCH_CPP_LOG_LEVEL={os.environ.get('TORCH_CPP_LOG_LEVEL')}",
        flush=True,
    )
    for i in range(12):
        t = torch.full((4,), float(rank + 1 + i))
        dist.all_reduce(t)
        print(f"rank {rank} iter {i}: all_reduce={t.tolist()}", flush=True)
        g = [torch.zeros(3) for _ in range(world)]
        dist.all_gather(g, torch.arange(3, dtype=torch.float32) + rank)
        print(f"rank {rank} iter {i}: all_gather={[x.tolist() for x in g]}", flush=True)
        b = torch.tensor([float(i)]) if rank == 0 else torch.zeros(1)
        dist.broadcast(b, src=0)
        print(f"rank {rank} iter {i}: broadcast={b.item()}", flush=True)
        r = torch.tensor([float(rank + i)])
        dist.reduce(r, dst=0, op=dist.ReduceOp.MAX)
        if rank == 0:
            print(f"rank {rank} iter {i}: reduce(MAX)={r.item()}", flush=True)
        # point-to-point ring exchange
        send = torch.tensor([float(rank * 100 + i)])
        recv = torch.zeros(1)
        reqs = [dist.isend(send, (rank + 1) % world), dist.irecv(recv, (rank - 1) % world)]
        for q in reqs:
            q.wait()
        print(f"rank {rank} iter {i}: p2p recv={recv.item()}", flush=True)
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank, "ok": True})
    print(f"rank {rank}: all_gather_object={objs}", flush=True)
    sub = dist.new_group(ranks=list(range(world)))
    t = torch.ones(2) * rank
    dist.all_reduce(t, group=sub)
    print(f"rank {rank}: subgroup all_reduce={t.tolist()}", flush=True)
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=60))
    print(f"rank {rank}: monitored_barrier passed", flush=True)

    # short DDP phase
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    gen = torch.Generator().manual_seed(rank)
    for step in range(10):
        x = torch.randn(16, 8, generator=gen)
        y = x.sum(dim=1, keepdim=True)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"rank {rank} ddp step {step}: loss={loss.item():.4f}", flush=True)
    dist.barrier()
    print(f"rank {rank}: done", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
