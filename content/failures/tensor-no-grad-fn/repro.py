"""loss.backward() on a tensor that is not connected to anything requiring grad.

Run: python repro.py

CPU only, one process, a few seconds. A "fine-tuning" script freezes the backbone with
model.requires_grad_(False) and forgets to unfreeze the head, so no parameter requires
grad and the loss has no grad_fn: loss.backward() raises "element 0 of tensors does not
require grad and does not have a grad_fn".

    python repro.py
        Every parameter frozen: RuntimeError at loss.backward(), exit 1.
    python repro.py --no-grad
        Loss computed inside torch.no_grad() (an evaluation helper reused for training).
        Exit 1.
    python repro.py --item
        Loss rebuilt from a Python float (torch.tensor(loss.item())). Exit 1.
    python repro.py --reentrant-checkpoint
        Frozen embedding, trainable adapter inside torch.utils.checkpoint with
        use_reentrant=True: checkpoint warns "None of the inputs have requires_grad=True.
        Gradients will be None" and the loss has no grad_fn. Exit 1.
    python repro.py --fixed
        Head unfrozen (and non-reentrant checkpointing): three steps, exit 0.
"""

import argparse

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Model(nn.Module):
    def __init__(self, use_checkpoint=False, reentrant=True):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.block = nn.Linear(16, 16)
        self.adapter = nn.Linear(16, 16, bias=False)  # small trainable part inside the block
        self.head = nn.Linear(16, 2)
        self.use_checkpoint = use_checkpoint
        self.reentrant = reentrant

    def _block(self, h):
        return torch.relu(self.block(h) + self.adapter(h))

    def forward(self, ids):
        h = self.embed(ids).mean(1)
        if self.use_checkpoint:
            h = checkpoint(self._block, h, use_reentrant=self.reentrant)
        else:
            h = self._block(h)
        return self.head(h)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--no-grad", action="store_true")
    g.add_argument("--item", action="store_true")
    g.add_argument("--reentrant-checkpoint", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    model = Model(use_checkpoint=args.reentrant_checkpoint or args.fixed, reentrant=not args.fixed)
    model.requires_grad_(False)  # freeze the pretrained backbone ...
    if args.reentrant_checkpoint:
        model.adapter.requires_grad_(True)  # ... train only the adapter inside the checkpoint
    elif args.no_grad or args.item or args.fixed:
        model.head.requires_grad_(True)
        model.adapter.requires_grad_(True)
    # default: forgot to unfreeze anything

    trainable = [prm for prm in model.parameters() if prm.requires_grad]
    print(f"trainable parameters: {sum(prm.numel() for prm in trainable)}", flush=True)
    opt = torch.optim.SGD(trainable or [torch.zeros(1, requires_grad=True)], lr=0.1)
    ce = nn.CrossEntropyLoss()
    for step in range(3):
        ids = torch.randint(0, 50, (8, 5))
        labels = torch.randint(0, 2, (8,))
        if args.no_grad:
            with torch.no_grad():  # e.g. an eval helper reused in the training loop
                loss = ce(model(ids), labels)
        else:
            loss = ce(model(ids), labels)
        if args.item:
            loss = torch.tensor(loss.item())  # e.g. after gathering/logging as a float
        print(f"step {step}: loss.requires_grad={loss.requires_grad} grad_fn={loss.grad_fn}", flush=True)
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
