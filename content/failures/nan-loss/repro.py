"""NaN loss: a finite loss whose gradient is NaN poisons the weights one step later.

Run: python repro.py

CPU only, one process, a few seconds. The model predicts a distance; the loss takes
sqrt(pred) only where pred > 0, via torch.where. The forward value is finite, but
sqrt's backward is evaluated for every element and gives NaN for the negative ones;
torch.where multiplies that NaN by 0, and NaN * 0 is NaN. So step 0 prints a finite
loss, its gradients are NaN, optimizer.step() writes NaN into the weights, and every
later loss is nan. Nothing raises by default.

    python repro.py
        Runs the loop under torch.autograd.set_detect_anomaly(True): step 0's backward
        raises "Function 'SqrtBackward0' returned nan values in its 0th output." and
        the preceding warning points at the torch.where line. Exit code 1.
    python repro.py --silent
        Same loop without anomaly mode: loss finite at step 0, nan from step 1 on,
        exit code 0 (the failure as it usually looks).
    python repro.py --find-first
        No anomaly mode; a check after each backward names the first parameter whose
        gradient is not finite, then stops (exit code 1).
    python repro.py --clip
        clip_grad_norm_(..., error_if_nonfinite=True) before the step: raises
        "The total norm of order 2.0 for gradients from `parameters` is non-finite".
    python repro.py --hf-trainer
        The same model under transformers' Trainer (CPU): the logged 'loss' turns
        into 0.0 instead of nan (logging_nan_inf_filter=True), 'grad_norm' is nan.
    python repro.py --fixed
        Clamp before sqrt: every loss finite, exit code 0.
"""

import argparse
import sys

import torch
import torch.nn as nn


class DistanceModel(nn.Module):
    def __init__(self, fixed=False):
        super().__init__()
        self.net = nn.Linear(4, 1)
        self.fixed = fixed

    def forward(self, x, target=None):
        pred = self.net(x).squeeze(-1)
        if self.fixed:
            # clamp first: sqrt never sees a negative value, so its backward stays finite
            dist = torch.sqrt(pred.clamp_min(1e-6))
        else:
            # looks safe in forward, but sqrt's backward is NaN for pred < 0
            dist = torch.where(pred > 0, torch.sqrt(pred), torch.zeros_like(pred))
        # a small penalty on the raw prediction (any term that uses pred directly)
        loss = ((dist - target) ** 2).mean() + 0.01 * (pred**2).mean()
        return {"loss": loss}


def make_data(n=64):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 4, generator=g)
    target = torch.rand(n, generator=g)
    return x, target


def plain_loop(args):
    torch.manual_seed(0)
    model = DistanceModel(fixed=args.fixed)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, target = make_data()
    for step in range(4):
        loss = model(x, target)["loss"]
        loss.backward()
        if args.find_first:
            bad = [
                n
                for n, p in model.named_parameters()
                if p.grad is not None and not torch.isfinite(p.grad).all()
            ]
            if bad:
                print(f"step {step}: loss {loss.item():.4f} is finite, non-finite grads in {bad}", flush=True)
                return 1
        if args.clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


def hf_trainer(args):
    import os
    import tempfile

    from torch.utils.data import Dataset
    from transformers import Trainer, TrainingArguments

    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    class DS(Dataset):
        def __init__(self):
            self.x, self.t = make_data(64)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return {"x": self.x[i], "target": self.t[i]}

    torch.manual_seed(0)
    out = tempfile.mkdtemp()
    targs = TrainingArguments(
        output_dir=out,
        per_device_train_batch_size=16,
        max_steps=8,
        learning_rate=0.1,
        logging_steps=2,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        optim="sgd",
        lr_scheduler_type="constant",
        disable_tqdm=True,
    )
    Trainer(model=DistanceModel(fixed=args.fixed), args=targs, train_dataset=DS()).train()


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--silent", action="store_true")
    g.add_argument("--find-first", action="store_true")
    g.add_argument("--clip", action="store_true")
    g.add_argument("--hf-trainer", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    if args.hf_trainer:
        hf_trainer(args)
        return
    anomaly = not (args.silent or args.find_first or args.clip or args.fixed)
    # What the confirm step does: anomaly mode checks every backward node's output for NaN.
    torch.autograd.set_detect_anomaly(anomaly)
    return plain_loop(args)


if __name__ == "__main__":
    sys.exit(main())
