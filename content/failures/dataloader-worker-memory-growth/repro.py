"""DataLoader workers copy the parent's Python objects page by page just by reading them.

Run: python repro.py

CPU only, Linux, root. About 20 s; the parent holds ~150 MB of Python strings and the two
workers together are allowed 96 MB of *new* memory.

The Dataset keeps 1,500,000 file names in a Python list. The workers are forked, so they
start out sharing the list's pages with the parent. Reading `self.names[i]` only
increments the string's reference count, but that is a write to the page the string lives
on, so the kernel gives the worker a private copy of that page (copy-on-write). Each
worker prints how much private memory it has: it climbs as it reads further into the list,
although the worker allocates nothing of its own.

To turn a growth that would take hours on a real dataset into a kill in seconds, each
worker moves itself (worker_init_fn) into a child memory cgroup limited to 96 MB, the way a
container limit would apply. The kernel's OOM killer then SIGKILLs a worker, which the
kernel log names by its thread name `pt_data_worker`; the main process sees "DataLoader
worker (pid N) is killed by signal: Killed." The script prints the kernel's lines from
`dmesg` at the end. Exit code 1.

    python repro.py --fixed
        The same names stored in one NumPy bytes array (no per-item Python objects, no
        reference counts to write): the workers' private memory stays flat, the epoch
        finishes, exit code 0.
"""

import argparse
import os
import signal
import subprocess
import sys
import time
import traceback

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

N = 1_500_000
LIMIT = 96 * 1024 * 1024
CGROUP = None


def private_mb():
    """Private (copied or newly allocated) memory of this process, from smaps_rollup."""
    total = 0
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            if line.startswith(("Private_Dirty:", "Private_Clean:")):
                total += int(line.split()[1])
    return total // 1024


class FileNames(Dataset):
    def __init__(self, fixed):
        names = [f"/data/shards/train/sample_{i:08d}.jpg" for i in range(N)]
        self.names = np.array(names, dtype="S40") if fixed else names

    def __len__(self):
        return N

    def __getitem__(self, i):
        name = self.names[i]  # a list read increments the str's refcount: a page write
        if i % 2000 == 0 and (i // 2000) % 50 < 2:  # every 50th batch of each worker
            info = torch.utils.data.get_worker_info()
            print(f"worker {info.id}: read item {i}, private memory {private_mb()} MB", flush=True)
        return len(name)


def count_items(batch):
    return len(batch)  # a plain int: nothing to pass through shared memory


def join_cgroup(worker_id):
    with open(os.path.join(CGROUP, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    print(f"worker {worker_id} (pid {os.getpid()}): private memory at start {private_mb()} MB", flush=True)


def make_cgroup():
    with open("/proc/self/cgroup") as f:
        lines = [line.rstrip("\n").split(":", 2) for line in f]
    for _, controllers, path in lines:
        if "memory" in controllers.split(","):
            base, v = "/sys/fs/cgroup/memory" + path, 1
            break
    else:
        path = next(p for h, c, p in lines if h == "0")
        base, v = "/sys/fs/cgroup" + path, 2
    cg = os.path.join(base, f"denpex-loader-{os.getpid()}")
    os.mkdir(cg)
    if v == 1:
        with open(os.path.join(cg, "memory.limit_in_bytes"), "w") as f:
            f.write(str(LIMIT))
    else:
        with open(os.path.join(cg, "memory.max"), "w") as f:
            f.write(str(LIMIT))
        with open(os.path.join(cg, "memory.swap.max"), "w") as f:
            f.write("0")
    return cg


def main():
    global CGROUP
    p = argparse.ArgumentParser()
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.multiprocessing.set_start_method("fork")
    dataset = FileNames(args.fixed)
    CGROUP = make_cgroup()
    loader = DataLoader(
        dataset, batch_size=2000, num_workers=2, worker_init_fn=join_cgroup, collate_fn=count_items
    )
    rc = 0
    try:
        seen = 0
        for batch in loader:
            seen += batch
        print(f"epoch done: {seen} items", flush=True)
    except (RuntimeError, OSError, EOFError):
        rc = 1
        # The loader's SIGCHLD handler would raise again for the dead worker while we
        # report; restore the default before printing.
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        traceback.print_exc()
    finally:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        del loader
        time.sleep(0.5)
        out = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
        tag = os.path.basename(CGROUP) + ","
        lines = out.splitlines()
        pids = [line.rsplit("pid=", 1)[1].split(",")[0] for line in lines if tag in line]
        keys = [tag] + [f"Killed process {pid} " for pid in pids]
        killed = [line for line in lines if any(k in line for k in keys)]
        if killed:
            print("kernel log (dmesg):", flush=True)
            for line in killed:
                print(line, flush=True)
        for _ in range(20):
            try:
                os.rmdir(CGROUP)
                break
            except OSError:
                time.sleep(0.25)
    return rc


if __name__ == "__main__":
    sys.exit(main())
