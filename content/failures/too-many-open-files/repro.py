"""DataLoader workers exhaust the file-descriptor limit ('Too many open files').

Run: python repro.py

CPU only; the script lowers its own soft RLIMIT_NOFILE to 128 with resource.setrlimit
(nothing outside this process changes). Each variant takes 2-4 s.

    python repro.py
        Every sample holds four small tensors and the loop keeps every batch (as a
        list of outputs or a metrics buffer would). Under the default file_descriptor
        sharing strategy each kept tensor holds an open descriptor, and after ~30 batches:
        "RuntimeError: Too many open files. Communication with the workers is no longer
        possible. Please increase the limit using `ulimit -n` ..."
    python repro.py --file-system
        torch.multiprocessing.set_sharing_strategy('file_system'): tensors are passed by
        /dev/shm file name instead of descriptor; the same loop finishes (exit 0).
    python repro.py --clone
        Default strategy, but the loop keeps .clone()s of what it needs and drops the
        batches; descriptors are released and the loop finishes (exit 0).
    python repro.py --raw-queue
        The same exhaustion outside the DataLoader: a child process puts tensors on a
        torch.multiprocessing queue and the parent keeps them all. The parent fails with
        "RuntimeError: received 0 items of ancdata" from CPython's recvfds (no DataLoader
        diagnosis; the descriptor was dropped because the receiver was at its limit).

Variants without --file-system / --clone exit non-zero. Captured output is in logs/.
"""

import argparse
import resource
import time

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

SOFT_LIMIT = 128


class Fields(Dataset):
    def __len__(self):
        return 400

    def __getitem__(self, i):
        # e.g. image, mask, boxes, label as separate tensors
        return [torch.full((2,), float(i)) for _ in range(4)]


def producer(q, n):
    for i in range(n):
        q.put(torch.full((2,), float(i)))
    time.sleep(30)  # keep the sender alive while the parent receives


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--file-system", action="store_true")
    g.add_argument("--clone", action="store_true")
    g.add_argument("--raw-queue", action="store_true")
    args = p.parse_args()

    child = None
    if args.raw_queue:
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        child = ctx.Process(target=producer, args=(q, 400), daemon=True)
        child.start()  # started before the limit is lowered: only the receiver is short of descriptors

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT_LIMIT, hard))
    print(f"RLIMIT_NOFILE soft limit lowered from {soft} to {SOFT_LIMIT} for this process", flush=True)
    if args.file_system:
        torch.multiprocessing.set_sharing_strategy("file_system")
    print(f"sharing strategy: {torch.multiprocessing.get_sharing_strategy()}", flush=True)

    if args.raw_queue:
        kept = [q.get(timeout=20) for _ in range(400)]
        print(f"received {len(kept)} tensors", flush=True)
        return

    kept = []
    loader = DataLoader(Fields(), batch_size=4, num_workers=2)
    for step, batch in enumerate(loader):
        kept.append([t.clone() for t in batch] if args.clone else batch)
        if step % 20 == 0:
            print(f"step {step}: holding {len(kept)} batches", flush=True)
    print(f"epoch done, kept {len(kept)} batches", flush=True)


if __name__ == "__main__":
    main()
