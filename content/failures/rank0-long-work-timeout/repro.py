"""Rank-0-only preprocessing outlasts the process-group timeout inside main_process_first.

CPU only (gloo), two processes; needs transformers (and accelerate for --accelerate).
The process-group timeout is 5 s (TrainingArguments.ddp_timeout=5) and rank 0 spends
8 s "tokenizing" inside main_process_first, the pattern HF example scripts use around
dataset.map(). Rank 1 waits in the barrier at the top of the block.

Run: torchrun --standalone --nproc_per_node=2 repro.py

    torchrun --standalone --nproc_per_node=2 repro.py
        transformers TrainingArguments.main_process_first: rank 1's barrier times out
        after 5 s; its traceback goes through training_args.py, in main_process_first.
        torchrun then kills rank 0, which was still working, and names rank 1 as the
        root cause.
    torchrun --standalone --nproc_per_node=2 repro.py --accelerate
        Same with accelerate's PartialState(cpu=True, timeout=5 s).main_process_first(): the
        traceback goes through accelerate/state.py, in _goes_first.
    torchrun --standalone --nproc_per_node=2 repro.py --plain
        Plain torch: `if rank == 0: work()` followed by dist.barrier(). Only the generic
        gloo timeout is printed; nothing points at the rank-0 work.
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        ddp_timeout raised to 60 s (longer than the rank-0 work): exit 0.

Every variant except --fixed exits non-zero.
"""

import argparse
import datetime
import time

import torch.distributed as dist

WORK_SECONDS = 8


def tokenize_on_rank0(rank):
    for shard in range(WORK_SECONDS):
        time.sleep(1)  # stands in for dataset.map(tokenize, ...) on a large corpus
        print(f"rank {rank}: tokenizing shard {shard + 1}/{WORK_SECONDS}", flush=True)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--accelerate", action="store_true")
    g.add_argument("--plain", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    if args.accelerate:
        from accelerate import PartialState

        state = PartialState(cpu=True, timeout=datetime.timedelta(seconds=5))
        rank = state.process_index
        with state.main_process_first():
            if state.is_main_process:
                tokenize_on_rank0(rank)
    elif args.plain:
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
        rank = dist.get_rank()
        if rank == 0:
            tokenize_on_rank0(rank)
        dist.barrier()
    else:
        from transformers import TrainingArguments

        training_args = TrainingArguments(
            output_dir="/tmp/rank0-long-work-out",
            ddp_backend="gloo",
            ddp_timeout=60 if args.fixed else 5,
            report_to=[],
        )
        rank = training_args.process_index
        with training_args.main_process_first(desc="dataset map pre-processing"):
            if rank == 0:
                tokenize_on_rank0(rank)

    print(f"rank {rank}: dataset ready", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
