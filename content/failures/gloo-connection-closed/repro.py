"""Gloo "Connection closed by peer": a survivor's view of another rank leaving the job.

CPU only (gloo), two processes, process-group timeout 30 s (long on purpose: every error
below arrives at once, not after a timeout). Both ranks run a few all_reduce steps.

Run: torchrun --standalone --nproc_per_node=2 repro.py

    (default)      Rank 1 raises an ordinary Python exception at step 2 (a stand-in for any
                   crash: a bug, a bad batch, an assertion). Rank 0 is already waiting in
                   all_reduce and fails at once with "Connection closed by peer
                   [127.0.0.1]:PORT. This is typically caused by a remote worker crashing."
                   The real error is rank 1's traceback, printed above it.
    --oom-kill     Rank 1 is killed with SIGKILL (what the kernel OOM killer does) in the middle
                   of a 256 MB all_reduce. Rank 0 gets "Read error [127.0.0.1]:PORT: Connection
                   reset by peer" instead; rank 1 prints nothing, torchrun reports exitcode -9.
    --clean-exit   Rank 1 simply returns from main() after step 1 (exit code 0) while rank 0
                   goes on to step 2: rank 0 gets "Connection closed by peer" too, and
                   torchrun's summary names rank 0, the victim, as the root cause.
    --fixed        Both ranks run the same steps and finish: exit code 0.

Every variant except --fixed exits non-zero.
"""

import argparse
import datetime
import os
import signal
import threading

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--oom-kill", action="store_true")
    g.add_argument("--clean-exit", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank = dist.get_rank()
    numel = 64 * 1024 * 1024 if args.oom_kill else 1024  # 256 MB of float32 for --oom-kill

    for step in range(4):
        if rank == 1 and step == 2 and not args.fixed:
            if args.clean_exit:
                print("rank 1: leaving the loop early (e.g. early stopping on this rank only)", flush=True)
                return
            if not args.oom_kill:
                raise RuntimeError("simulated crash on rank 1 at step 2")
        if rank == 1 and step == 2 and args.oom_kill:
            # Kill this process from a timer thread while the transfer is in flight.
            threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGKILL)).start()
        t = torch.full((numel,), float(rank + 1))
        dist.all_reduce(t)
        print(f"rank {rank}: step {step} done, t[0]={t[0].item()}", flush=True)

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
