"""DataLoader workers run out of shared memory (/dev/shm): bus error or 'unable to allocate shared memory'.

Run: python repro.py

CPU only, one process plus two workers, each variant takes 2-12 s.

    python repro.py
        Simulated: the worker loading sample 6 receives SIGBUS, which is what touching a
        /dev/shm page that cannot be backed does. Prints the worker's
        "ERROR: Unexpected bus error encountered in worker. This might be caused by
        insufficient shared memory (shm)." and the main process's
        "is killed by signal: Bus error. It is possible that dataloader's workers are out
        of shared memory."

The real shortage needs a tiny /dev/shm. As root, a private mount namespace gives this
process (and nothing else on the machine) a 4 MiB /dev/shm:

    unshare -m --propagation private sh -c 'mount -t tmpfs -o size=4M tmpfs /dev/shm && python repro.py --real'
        default_collate allocates each 9.6 MB batch directly in shared memory inside the
        worker: "Caught RuntimeError in DataLoader worker process 0." ending in
        "unable to allocate shared memory(shm) for file </torch_...>: No space left on device (28)".
    unshare -m --propagation private sh -c 'mount -t tmpfs -o size=4M tmpfs /dev/shm && python repro.py --real --list-collate'
        A collate_fn that returns a list of tensors: the tensors are moved to shared memory
        later, by the worker's queue feeder thread. The same error is printed there, the
        batch is lost, and the main process waits for it until the 10 s DataLoader timeout
        (without a timeout it would wait forever).
    unshare -m --propagation private sh -c 'mount -t tmpfs -o size=4M tmpfs /dev/shm && python repro.py --real --num-workers 0'
        No workers, no shared memory: the same data loads fine (exit 0).

Every variant except the last exits non-zero. Captured output of each is in logs/.
"""

import argparse
import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    def __init__(self, simulate_sigbus):
        self.simulate_sigbus = simulate_sigbus

    def __len__(self):
        return 64

    def __getitem__(self, index):
        if self.simulate_sigbus and index == 6:
            os.kill(os.getpid(), signal.SIGBUS)
        return torch.zeros(3, 224, 224)  # 602 KB per sample


def keep_list(batch):
    return batch  # tensors stay separate; they are shared when the batch is pickled


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--real", action="store_true")
    p.add_argument("--list-collate", action="store_true")
    p.add_argument("--num-workers", type=int, default=2)
    args = p.parse_args()

    if args.real:
        st = os.statvfs("/dev/shm")
        print(f"/dev/shm size: {st.f_blocks * st.f_frsize / 2**20:.0f} MiB", flush=True)
    loader = DataLoader(
        Images(simulate_sigbus=not args.real),
        batch_size=16 if args.real else 2,
        num_workers=args.num_workers,
        collate_fn=keep_list if args.list_collate else None,
        timeout=10 if args.num_workers > 0 else 0,
    )
    for step, batch in enumerate(loader):
        n = len(batch)
        print(f"step {step}: {n} samples", flush=True)
    print("epoch done", flush=True)


if __name__ == "__main__":
    main()
