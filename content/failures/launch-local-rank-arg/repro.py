"""A script written for one launcher's local-rank convention, started by another.

Run: python -m torch.distributed.launch --nproc_per_node=1 repro.py

CPU only; each variant exits within a few seconds.

    python -m torch.distributed.launch --nproc_per_node=1 repro.py
        The script declares only --local_rank (PyTorch 1.x style). The legacy launcher of
        PyTorch >= 2.0 appends --local-rank=0, argparse rejects it and the worker exits with
        code 2 ("unrecognized arguments: --local-rank=0"); the launcher reports ChildFailedError.
    torchrun --standalone --nproc_per_node=1 repro.py --required
        The script declares --local_rank as required. torchrun passes no flag at all (only the
        LOCAL_RANK variable), so argparse exits with code 2 ("the following arguments are
        required: --local_rank").
    deepspeed --num_gpus=1 repro.py --dashed-only
        The mirror case: the script declares only --local-rank (PyTorch 2.x style) and the
        DeepSpeed launcher appends --local_rank=0 ("unrecognized arguments: --local_rank=0").
        Needs the deepspeed package (runs on its CPU accelerator).
    python -m torch.distributed.launch --nproc_per_node=1 repro.py --fixed
    torchrun --standalone --nproc_per_node=1 repro.py --fixed
        Accepts both spellings and falls back to LOCAL_RANK; both launchers exit 0.
"""

import argparse
import os
import sys


def main():
    required = "--required" in sys.argv
    fixed = "--fixed" in sys.argv
    dashed_only = "--dashed-only" in sys.argv
    argv = [a for a in sys.argv[1:] if a not in ("--required", "--fixed", "--dashed-only")]

    p = argparse.ArgumentParser()
    if fixed:
        # Both spellings map to one dest; the environment wins when no flag was passed.
        p.add_argument(
            "--local-rank",
            "--local_rank",
            dest="local_rank",
            type=int,
            default=int(os.environ.get("LOCAL_RANK", 0)),
        )
    elif dashed_only:
        p.add_argument("--local-rank", type=int, default=0)
    else:
        p.add_argument("--local_rank", type=int, required=required)
    p.add_argument("--epochs", type=int, default=1)
    args = p.parse_args(argv)
    print(f"local_rank={args.local_rank} LOCAL_RANK env={os.environ.get('LOCAL_RANK')}", flush=True)


if __name__ == "__main__":
    main()
