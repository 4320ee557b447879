"""Loss input [N, 1] vs target [N]: MSE broadcasts to [N, N] and trains toward the mean.

Run: python repro.py

CPU only, one process, a few seconds. A regression model returns predictions of shape
[N, 1]; the targets have shape [N]. F.mse_loss broadcasts them to [N, N], compares every
prediction with every target, prints one UserWarning ("Using a target size ... that is
different to the input size ...") and trains without error. The loss plateaus at the
variance of the targets and the predictions collapse to the target mean.

    python repro.py
        [N, 1] vs [N] with mse_loss: one warning, 300 steps, loss stuck near var(y),
        exit code 0 (the failure is silent apart from the warning).
    python repro.py --bce
        the same shapes into binary_cross_entropy: ValueError "... is deprecated. Please
        ensure they have the same size." Exit 1.
    python repro.py --bce-logits
        binary_cross_entropy_with_logits: ValueError "Target size (...) must be the same
        as input size (...)". Exit 1.
    python repro.py --fixed
        predictions squeezed to [N]: loss goes to ~0, exit 0.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--bce", action="store_true")
    g.add_argument("--bce-logits", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    x = torch.randn(256, 4)
    w_true = torch.tensor([1.5, -2.0, 0.5, 1.0])
    y = x @ w_true  # shape [256]
    model = nn.Linear(4, 1)  # output shape [256, 1]

    if args.bce or args.bce_logits:
        labels = (y > 0).float()  # [256]
        logits = model(x)  # [256, 1]
        if args.bce:
            F.binary_cross_entropy(torch.sigmoid(logits), labels)
        else:
            F.binary_cross_entropy_with_logits(logits, labels)
        return

    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(300):
        pred = model(x)
        if args.fixed:
            pred = pred.squeeze(-1)  # [256] vs [256]
        loss = F.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == 299:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    with torch.no_grad():
        pred = model(x).squeeze(-1)
        print(
            f"var(y) = {y.var(unbiased=False).item():.4f}  "
            f"mean(y) = {y.mean().item():.4f}  mean(pred) = {pred.mean().item():.4f}  "
            f"std(pred) = {pred.std().item():.4f}  std(y) = {y.std().item():.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
