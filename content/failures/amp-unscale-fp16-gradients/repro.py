"""GradScaler refuses fp16 gradients: "ValueError: Attempting to unscale FP16 gradients."

Run: python repro.py

CPU only, one process, a few seconds. A frozen base layer plus a small trainable
low-rank adapter (the LoRA pattern) is loaded in float16, the way a model loaded with
torch_dtype=torch.float16 arrives. The trainable adapter weights are therefore fp16 too,
their .grad is fp16, and GradScaler.step() -> unscale_() raises at the first step.

    python repro.py
        adapter weights left in fp16: ValueError at scaler.step(), exit code 1.
    python repro.py --unscale-twice
        fp32 adapter, but unscale_() is called twice in one step (a manual clip plus a
        framework clip): RuntimeError "unscale_() has already been called on this
        optimizer since the last update()." exit code 1.
    python repro.py --fixed
        adapter weights cast to fp32 (base stays fp16), forward under autocast:
        three steps, exit code 0.
"""

import argparse

import torch
import torch.nn as nn


class AdaptedLinear(nn.Module):
    def __init__(self, d=16, r=4):
        super().__init__()
        self.base = nn.Linear(d, d)
        self.lora_a = nn.Linear(d, r, bias=False)
        self.lora_b = nn.Linear(r, d, bias=False)
        self.base.requires_grad_(False)  # frozen pretrained weight

    def forward(self, x):
        return self.base(x) + self.lora_b(self.lora_a(x))


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--unscale-twice", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    model = AdaptedLinear().to(torch.float16)  # like from_pretrained(..., torch_dtype=torch.float16)
    if args.fixed or args.unscale_twice:
        # trainable parameters in fp32, frozen base stays fp16
        for prm in model.parameters():
            if prm.requires_grad:
                prm.data = prm.data.float()
    trainable = [prm for prm in model.parameters() if prm.requires_grad]
    print("trainable dtypes:", sorted({str(prm.dtype) for prm in trainable}), flush=True)

    opt = torch.optim.AdamW(trainable, lr=1e-3)
    scaler = torch.amp.GradScaler("cpu")
    for step in range(3):
        x = torch.randn(8, 16)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(x).float().pow(2).mean()
        scaler.scale(loss).backward()
        if args.unscale_twice:
            scaler.unscale_(opt)  # e.g. your own clip_grad_norm_ before stepping
            scaler.unscale_(opt)  # e.g. the framework's clipping in the same step
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}", flush=True)


if __name__ == "__main__":
    main()
