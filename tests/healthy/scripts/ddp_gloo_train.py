"""DDP training on CPU with the gloo backend, launched by torchrun.

Per-step loss lines go through Python logging with timestamps and the rank in
the format. Healthy run: loss falls, every rank finishes, process group is
destroyed cleanly.
"""

import logging
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def main():
    dist.init_process_group(backend="gloo")
    rank = dist.get_rank()
    world = dist.get_world_size()
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)s [rank{rank}] %(name)s: %(message)s",
    )
    log = logging.getLogger("train")
    log.info(
        "initialized process group backend=%s world_size=%d local_rank=%s master=%s:%s",
        dist.get_backend(),
        world,
        os.environ.get("LOCAL_RANK"),
        os.environ.get("MASTER_ADDR"),
        os.environ.get("MASTER_PORT"),
    )
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(2048, 32, generator=g)
    w_true = torch.randn(32, 1, generator=g)
    y = x @ w_true + 0.05 * torch.randn(2048, 1, generator=g)
    ds = TensorDataset(x, y)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    dl = DataLoader(ds, batch_size=32, sampler=sampler)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.MSELoss()
    log.info("model params=%d batches/epoch=%d", sum(p.numel() for p in model.parameters()), len(dl))
    step = 0
    for epoch in range(8):
        sampler.set_epoch(epoch)
        t0 = time.time()
        running = 0.0
        for xb, yb in dl:
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(ddp(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            running += loss.item()
            if step % 2 == 0:
                log.info(
                    "epoch=%d step=%d loss=%.5f lr=%.4f", epoch, step, loss.item(), opt.param_groups[0]["lr"]
                )
        avg = torch.tensor([running / len(dl)])
        dist.all_reduce(avg, op=dist.ReduceOp.SUM)
        avg /= world
        log.info("epoch %d done in %.2fs mean_loss(all ranks)=%.5f", epoch, time.time() - t0, avg.item())
    # check parameters stayed in sync across ranks
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    gathered = [torch.zeros_like(flat) for _ in range(world)]
    dist.all_gather(gathered, flat)
    diff = max((g_ - gathered[0]).abs().max().item() for g_ in gathered)
    log.info("max parameter difference across ranks: %.3e", diff)
    dist.barrier()
    if rank == 0:
        log.info("training finished: %d steps", step)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
