"""DataLoader warns when num_workers exceeds the CPUs this process may use.

Run: python repro.py

CPU only; takes 3-8 s depending on the number of CPUs.

    python repro.py
        Asks for (usable CPUs x 4) workers. The constructor and iter() each emit
        "UserWarning: This DataLoader will create N worker processes in total. Our suggested
        max number of worker in current system is M, which is smaller than what this
        DataLoader is going to create. ..." The script then times one pass with that many
        workers and with M workers, and prints how long the first batch took.
    taskset -c 0 python repro.py
        The same with the process pinned to one CPU: M becomes 1, because the check uses
        os.sched_getaffinity (cpusets from taskset, SLURM or Kubernetes static CPU
        pinning), not the machine's core count.
    python repro.py --num-workers 2
        Any explicit worker count; no warning when it is <= M.

Exit code 0: the warning does not stop the job. Captured output is in logs/.
"""

import argparse
import os
import time

import torch
from torch.utils.data import DataLoader, Dataset


class CpuBound(Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        x = torch.randn(64, 64)
        for _ in range(20):  # stands in for decoding / augmentation work
            x = torch.tanh(x @ x.T / 64)
        return x.sum()


def one_pass(num_workers):
    start = time.monotonic()
    loader = DataLoader(CpuBound(), batch_size=8, num_workers=num_workers)
    it = iter(loader)
    next(it)
    first = time.monotonic() - start
    for _ in it:
        pass
    return first, time.monotonic() - start


def main():
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    p = argparse.ArgumentParser()
    p.add_argument("--num-workers", type=int, default=usable * 4)
    args = p.parse_args()

    print(f"os.cpu_count()={os.cpu_count()} usable CPUs (sched_getaffinity)={usable}", flush=True)
    for n in (args.num_workers, usable):
        first, total = one_pass(n)
        print(f"num_workers={n:3d}: first batch after {first:.2f}s, full pass {total:.2f}s", flush=True)


if __name__ == "__main__":
    main()
