"""DataLoader with num_workers=2, persistent_workers=True, prefetch_factor and
a worker_init_fn, over a map-style dataset that does per-sample work in the
workers. Logs (with timestamps and process names) which worker PIDs serve each
epoch, showing the same workers persist across epochs. pin_memory=True on a
machine without an accelerator prints the usual UserWarning.
"""

import logging
import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, get_worker_info

log = logging.getLogger("data")


class NoisySignals(Dataset):
    def __init__(self, n, length=256, seed=0):
        self.n, self.length, self.seed = n, length, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 100003 + i)
        label = i % 3
        t = torch.linspace(0, 1, self.length)
        freq = [3.0, 7.0, 13.0][label]
        sig = torch.sin(2 * torch.pi * freq * t) + 4.0 * torch.randn(self.length, generator=g)
        spec = torch.fft.rfft(sig).abs()[:64]  # a little CPU work per sample
        info = get_worker_info()
        wid = info.id if info is not None else -1
        return spec / spec.max(), label, wid


def worker_init_fn(worker_id):
    info = get_worker_info()
    torch.manual_seed(info.seed % 2**31)
    logging.getLogger("data").info(
        "worker %d started: pid=%d seed=%d num_workers=%d",
        worker_id,
        os.getpid(),
        info.seed,
        info.num_workers,
    )


def main():
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(processName)s[%(process)d] %(levelname)s %(name)s: %(message)s",
    )
    torch.manual_seed(0)
    ds = NoisySignals(3000)
    dl = DataLoader(
        ds,
        batch_size=50,
        shuffle=True,
        num_workers=2,
        persistent_workers=True,
        prefetch_factor=4,
        worker_init_fn=worker_init_fn,
        pin_memory=True,
        drop_last=False,
    )
    val = DataLoader(
        NoisySignals(600, seed=1),
        batch_size=100,
        num_workers=2,
        persistent_workers=True,
        worker_init_fn=worker_init_fn,
    )
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    log.info(
        "dataset=%d batches/epoch=%d num_workers=%d persistent_workers=%s main pid=%d",
        len(ds),
        len(dl),
        dl.num_workers,
        dl.persistent_workers,
        os.getpid(),
    )
    for epoch in range(6):
        t0 = time.time()
        seen_workers = {}
        model.train()
        for step, (xb, yb, wid) in enumerate(dl):
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            w = int(wid[0])
            seen_workers[w] = seen_workers.get(w, 0) + 1
            if step % 2 == 0:
                log.info(
                    "epoch %d step %2d/%d loss %.4f (batch from worker %d)",
                    epoch,
                    step,
                    len(dl),
                    loss.item(),
                    w,
                )
        model.eval()
        correct = 0
        with torch.no_grad():
            for xb, yb, _ in val:
                correct += (model(xb).argmax(1) == yb).sum().item()
        log.info(
            "epoch %d done in %.2fs: batches per worker=%s val_acc=%.4f",
            epoch,
            time.time() - t0,
            dict(sorted(seen_workers.items())),
            correct / len(val.dataset),
        )
    log.info("training complete; shutting down persistent workers")
    del dl, val


if __name__ == "__main__":
    main()
