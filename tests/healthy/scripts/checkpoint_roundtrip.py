"""Checkpoint save/load round trip with torch.save / torch.load(weights_only=True).

Trains a model for 3 epochs, saving a full checkpoint (model, optimizer,
LR scheduler, epoch/step counters, RNG state) after each epoch; then builds a
fresh model, loads the epoch-2 checkpoint with weights_only=True, resumes, and
checks the resumed run matches the uninterrupted one exactly.
"""

import logging
import os
import sys
import tempfile

import torch
import torch.nn as nn

log = logging.getLogger("ckpt")


def build():
    model = nn.Sequential(nn.Linear(10, 48), nn.BatchNorm1d(48), nn.ReLU(), nn.Dropout(0.1), nn.Linear(48, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)
    return model, opt, sched


DATA_GEN = torch.Generator().manual_seed(0)
X = torch.randn(960, 10, generator=DATA_GEN)
Y = X[:, :3].sum(1, keepdim=True) - 0.5 * X[:, 3:4]


def run_epoch(model, opt, sched, epoch, step):
    model.train()
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 32):
        idx = perm[i : i + 32]
        loss = nn.functional.mse_loss(model(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if True:  # every step
            log.info("epoch %d step %3d loss %.5f lr %.5f", epoch, step, loss.item(), sched.get_last_lr()[0])
    sched.step()
    return step


def save(path, model, opt, sched, epoch, step):
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(),
            "epoch": epoch,
            "step": step,
            "torch_rng": torch.get_rng_state(),
        },
        path,
    )
    log.info("saved checkpoint %s (%d bytes) epoch=%d step=%d", path, os.path.getsize(path), epoch, step)


def main():
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s][%(name)s][%(levelname)s] - %(message)s")
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ckpt-")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    model, opt, sched = build()
    step = 0
    log.info("=== phase 1: uninterrupted training, 5 epochs, checkpoint every epoch ===")
    for epoch in range(5):
        step = run_epoch(model, opt, sched, epoch, step)
        save(os.path.join(out, f"epoch{epoch}.pt"), model, opt, sched, epoch, step)
    reference = {k: v.clone() for k, v in model.state_dict().items()}

    log.info(
        "=== phase 2: fresh model/optimizer/scheduler objects, load epoch2.pt with weights_only=True, resume ==="
    )
    model2, opt2, sched2 = build()
    ckpt = torch.load(os.path.join(out, "epoch2.pt"), map_location="cpu", weights_only=True)
    log.info("loaded keys=%s epoch=%d step=%d", sorted(ckpt), ckpt["epoch"], ckpt["step"])
    missing, unexpected = model2.load_state_dict(ckpt["model"], strict=True)
    log.info("load_state_dict: missing=%s unexpected=%s", missing, unexpected)
    opt2.load_state_dict(ckpt["optimizer"])
    sched2.load_state_dict(ckpt["scheduler"])
    torch.set_rng_state(ckpt["torch_rng"])
    saved_model = torch.load(os.path.join(out, "epoch2.pt"), weights_only=True)["model"]
    same = all(torch.equal(saved_model[k], v) for k, v in model2.state_dict().items())
    log.info("round trip of epoch2 weights exact: %s (lr after load %.5f)", same, sched2.get_last_lr()[0])
    step2 = ckpt["step"]
    for epoch in range(ckpt["epoch"] + 1, 5):
        step2 = run_epoch(model2, opt2, sched2, epoch, step2)
    diffs = {k: (reference[k].float() - v.float()).abs().max().item() for k, v in model2.state_dict().items()}
    log.info("resumed vs uninterrupted max abs diff per tensor: %s", diffs)
    assert max(diffs.values()) == 0.0, diffs
    model2.eval()
    with torch.no_grad():
        log.info("final eval mse %.5f", nn.functional.mse_loss(model2(X), Y).item())
    log.info("checkpoint round trip OK")


if __name__ == "__main__":
    main()
