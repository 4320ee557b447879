"""torchrun's ChildFailedError summary: what it reports, and what it leaves out.

CPU only, no process group needed: the summary is printed by torchrun's agent whenever a worker
exits with a non-zero code, whatever the worker was doing.

Run: torchrun --standalone --nproc_per_node=1 repro.py

    (default)   The worker raises a Python exception while "loading its config". Its traceback
                is printed first (no [rank0]: prefix: no process group exists), then torchrun logs
                "failed (exitcode: 1) local_rank: 0 (pid: ...) of binary: ..." and raises
                ChildFailedError. The summary's traceback field only says
                "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html".
    --record    Same exception, but main() is decorated with
                torch.distributed.elastic.multiprocessing.errors.record: the worker writes an
                error file, and the summary shows its path and the full traceback.
    --segfault  The worker dies from a signal (SIGSEGV sent to itself, as a crash in native code
                would): no Python traceback at all; the summary shows
                "exitcode : -11 ... (SIGSEGV)" and "Signal 11 (SIGSEGV) received by PID ...".

    python repro.py --mp-spawn
                The same bug under torch.multiprocessing.spawn (no torchrun): the parent raises
                ProcessRaisedException with "-- Process 0 terminated with the following error:"
                and the child's traceback (process 1 had already finished cleanly).

    torchrun --standalone --nproc_per_node=2 repro.py --rank1-only
                Rank 1 fails, rank 0 is still working: torchrun first sends SIGTERM to rank 0,
                which then appears under "Failures:" with exitcode -15 (SIGTERM) although it did
                nothing wrong (see the torchrun-sigterm-workers entry).

Every variant exits non-zero.
"""

import argparse
import os
import signal
import sys
import time

from torch.distributed.elastic.multiprocessing.errors import record


def load_config():
    cfg = {"lr": 3e-4, "epochs": 3}
    return cfg["batch_size"]  # the real bug: a missing key


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--record", action="store_true")
    g.add_argument("--segfault", action="store_true")
    g.add_argument("--rank1-only", action="store_true")
    args = p.parse_args()
    rank = int(os.environ["RANK"])

    if args.rank1_only and rank == 0:
        print("rank 0: training step in progress", flush=True)
        time.sleep(30)
        return
    if args.rank1_only:
        time.sleep(1)
    if args.segfault:
        print(f"rank {rank}: about to crash in native code", flush=True)
        os.kill(os.getpid(), signal.SIGSEGV)
    batch_size = load_config()
    print(f"rank {rank}: batch size {batch_size}", flush=True)


def spawned(index):
    os.environ["RANK"] = str(index)
    if index == 0:
        time.sleep(1)
        load_config()


if __name__ == "__main__":
    if "--mp-spawn" in sys.argv:
        import torch.multiprocessing as mp

        mp.spawn(spawned, nprocs=2)
    elif "--record" in sys.argv:
        record(main)()
    else:
        main()
