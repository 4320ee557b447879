"""A CPU-only torch wheel meets code that assumes CUDA.

Run: python repro.py

Needs the CPU build of torch (e.g. 2.13.0+cpu); every variant exits non-zero on it in about a second.

    python repro.py
        model.cuda() -> AssertionError: Torch not compiled with CUDA enabled
        (raised by torch.cuda._lazy_init; .to("cuda"), device="cuda" and
        torch.cuda.current_device() take the same path).
    python repro.py --set-device
        torch.cuda.set_device(local_rank), the first line of many DDP scripts ->
        AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'
    python repro.py --nccl
        dist.init_process_group("nccl") in a single process ->
        RuntimeError: Distributed package doesn't have NCCL built in
    python repro.py --fixed
        picks the device from torch.cuda.is_available(); prints the build facts, exits 0.
"""

import argparse
import os

import torch
import torch.nn as nn


def build_facts():
    # torch.version.cuda is None on a CPU wheel; backends.cuda.is_built() is False.
    print(
        f"torch {torch.__version__}  torch.version.cuda={torch.version.cuda}  "
        f"cuda built={torch.backends.cuda.is_built()}  cuda available={torch.cuda.is_available()}",
        flush=True,
    )


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--set-device", action="store_true")
    g.add_argument("--nccl", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    build_facts()

    if args.set_device:
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local_rank)
    elif args.nccl:
        import torch.distributed as dist

        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29531")
        dist.init_process_group("nccl", rank=0, world_size=1)
    elif args.fixed:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = nn.Linear(4, 2).to(device)
        print("ran on", model(torch.randn(3, 4, device=device)).device, flush=True)
    else:
        model = nn.Linear(4, 2)
        model.cuda()  # unconditional, as in most training scripts


if __name__ == "__main__":
    main()
