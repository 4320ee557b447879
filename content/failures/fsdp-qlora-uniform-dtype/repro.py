"""FSDP (FSDP1 flat parameters) wrapping a unit whose parameters have mixed dtypes.

Run: torchrun --standalone --nproc_per_node=1 repro.py

CPU only, gloo, one process; a few seconds.

    torchrun --standalone --nproc_per_node=1 repro.py
        A block whose base weight is bf16 (as loaded with dtype=bfloat16) next to an fp32
        LoRA-style adapter: FullyShardedDataParallel raises
        "Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32".
    torchrun --standalone --nproc_per_node=1 repro.py --int8
        The base weight is stored as a frozen torch.uint8 tensor (4-bit storage of
        bitsandbytes < 0.43): "Cannot flatten integer dtype tensors".
    torchrun --standalone --nproc_per_node=1 repro.py --fixed
        Adapter cast to the base dtype (bf16) before wrapping: FSDP wraps and one
        forward/backward runs; exit code 0.
"""

import argparse
import datetime
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


class LoraBlock(nn.Module):
    def __init__(self, base_dtype):
        super().__init__()
        self.base = nn.Linear(16, 16, bias=False).to(base_dtype)
        self.base.weight.requires_grad_(False)
        self.lora_a = nn.Linear(16, 4, bias=False)  # adapters are created in fp32 by default
        self.lora_b = nn.Linear(4, 16, bias=False)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--int8", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    torch.manual_seed(0)
    block = LoraBlock(torch.bfloat16)
    if args.int8:
        block.base.weight = nn.Parameter(torch.zeros(16, 8, dtype=torch.uint8), requires_grad=False)
        block.lora_a.to(torch.bfloat16)
        block.lora_b.to(torch.bfloat16)
    if args.fixed:
        block.to(torch.bfloat16)
    print("dtypes:", sorted({str(p.dtype) for p in block.parameters()}), flush=True)
    model = FSDP(block, device_id=torch.device("cpu"), use_orig_params=True)
    x = torch.randn(2, 16, dtype=torch.bfloat16)
    loss = (model.base(x) + model.lora_b(model.lora_a(x))).float().pow(2).mean()
    loss.backward()
    print(f"wrapped and ran one step, loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
