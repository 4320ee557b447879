"""Single-process CPU training with nested tqdm progress bars (carriage returns),
tqdm.write epoch summaries and a validation bar. Output goes to a file, so tqdm
writes its non-tty form: '\r'-separated updates of the same line.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm, trange


def make_data(n, gen):
    x = torch.randn(n, 1, 16, 16, generator=gen)
    y = (x.mean(dim=(1, 2, 3)) > 0).long() + 2 * (x[:, :, :8].mean(dim=(1, 2, 3)) > 0).long()
    return TensorDataset(x, y)


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    train = DataLoader(make_data(4096, gen), batch_size=64, shuffle=True)
    val = DataLoader(make_data(1024, gen), batch_size=128)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(4),
        nn.Flatten(),
        nn.Linear(32 * 16, 64),
        nn.ReLU(),
        nn.Linear(64, 4),
    )
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=6 * len(train))
    loss_fn = nn.CrossEntropyLoss()
    tqdm.write(
        f"train batches={len(train)} val batches={len(val)} params={sum(p.numel() for p in model.parameters())}"
    )
    for epoch in trange(6, desc="epochs", position=0):
        model.train()
        bar = tqdm(train, desc=f"epoch {epoch}", position=1, leave=False, mininterval=0.05)
        total = 0.0
        for i, (xb, yb) in enumerate(bar):
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
            bar.set_postfix(loss=f"{loss.item():.4f}", lr=f"{sched.get_last_lr()[0]:.2e}")
            if i % 16 == 0:
                tqdm.write(f"epoch {epoch} step {i:3d}/{len(train)} loss {loss.item():.4f}")
        model.eval()
        correct = 0
        with torch.no_grad():
            for xb, yb in tqdm(val, desc="validate", position=1, leave=False):
                correct += (model(xb).argmax(1) == yb).sum().item()
        tqdm.write(
            f"epoch {epoch}: train_loss={total / len(train):.4f} val_acc={correct / len(val.dataset):.4f}"
        )
    tqdm.write("done")


if __name__ == "__main__":
    main()
