"""A DataLoader worker dies without raising a Python exception: the main process only sees it vanish.

Run: python repro.py

CPU only, one process plus two DataLoader workers; every variant takes 1-3 s. The worker
that loads sample 6 (batch 3, worker 1) kills itself the way the kernel or a native
library would:

    python repro.py
        SIGKILL, as sent by the kernel OOM killer or a container memory limit:
        "DataLoader worker (pid N) is killed by signal: Killed." then
        "DataLoader worker (pid(s) N) exited unexpectedly".
    python repro.py --segfault
        SIGSEGV, as from a crash in a C extension (image decoder, OpenCV, a library
        built against another numpy): the worker's own handler first prints
        "ERROR: Unexpected segmentation fault encountered in worker."
    python repro.py --fpe
        SIGFPE, as from an integer division by zero in C code: the worker's handler prints
        "ERROR: Unexpected floating-point exception encountered in worker."
    python repro.py --abort
        SIGABRT, as from a failed C/C++ assertion or glibc heap check: "killed by signal: Aborted."
    python repro.py --exit-code
        The worker calls os._exit(1), as a library calling exit() would:
        "exited unexpectedly with exit code 1. Details are lost due to multiprocessing."
    python repro.py --num-workers 0 --segfault
        No workers: the segfault now kills the main process itself (shell shows exit 139),
        which is why num_workers=0 is the first debugging step.

Every variant exits non-zero. Captured output of each worker variant is in logs/.
"""

import argparse
import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset

BAD_INDEX = 6


class Samples(Dataset):
    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 16

    def __getitem__(self, index):
        if index == BAD_INDEX:
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            elif self.how == "segfault":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif self.how == "fpe":
                os.kill(os.getpid(), signal.SIGFPE)
            elif self.how == "abort":
                os.kill(os.getpid(), signal.SIGABRT)
            elif self.how == "exit-code":
                os._exit(1)
        return torch.full((4,), float(index))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-workers", type=int, default=2)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--segfault", action="store_true")
    g.add_argument("--fpe", action="store_true")
    g.add_argument("--abort", action="store_true")
    g.add_argument("--exit-code", action="store_true")
    args = p.parse_args()
    how = next((h for h in ("segfault", "fpe", "abort", "exit_code") if getattr(args, h)), "kill")
    how = how.replace("_", "-")

    loader = DataLoader(Samples(how), batch_size=2, num_workers=args.num_workers)
    for step, batch in enumerate(loader):
        print(f"step {step}: batch {batch[:, 0].tolist()}", flush=True)
    print("epoch done", flush=True)


if __name__ == "__main__":
    main()
