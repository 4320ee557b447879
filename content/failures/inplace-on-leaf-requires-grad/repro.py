"""In-place write to a parameter while autograd is recording: raised at that very line.

Run: python repro.py

CPU only, one process, a few seconds. A hand-written SGD update `p -= lr * p.grad` runs
with grad mode on. p is a leaf that requires grad, so the in-place subtraction raises
"a leaf Variable that requires grad is being used in an in-place operation."

    python repro.py
        Manual SGD update outside torch.no_grad(): RuntimeError, exit 1.
    python repro.py --init-slice
        Custom initialisation that assigns into a slice of a weight
        (layer.weight[:, 0] = 0.0): "a view of a leaf Variable that requires grad is
        being used in an in-place operation." Exit 1.
    python repro.py --fixed
        Both writes inside torch.no_grad(): three steps, exit 0.
"""

import argparse

import torch
import torch.nn as nn


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--init-slice", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    if args.init_slice:
        model.weight[:, 0] = 0.0  # e.g. zero-initialise the first input column
    elif args.fixed:
        with torch.no_grad():
            model.weight[:, 0] = 0.0

    lr = 0.1
    for step in range(3):
        x = torch.randn(16, 4)
        loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
        loss.backward()
        if args.fixed:
            with torch.no_grad():
                for prm in model.parameters():
                    prm -= lr * prm.grad
                    prm.grad = None
        else:
            for prm in model.parameters():
                prm -= lr * prm.grad  # in-place update of a leaf, recorded by autograd
                prm.grad = None
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
