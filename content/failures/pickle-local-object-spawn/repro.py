"""DataLoader workers under spawn/forkserver cannot receive a lambda or a locally defined object.

Run: python repro.py

CPU only; each variant takes 2-5 s (spawned workers re-import this file and torch).

    python repro.py
        multiprocessing_context="spawn" (the default on Windows and macOS) and a collate_fn
        defined as a lambda inside main(): iter(loader) fails while starting worker 0 with
        "AttributeError: Can't pickle local object 'main.<locals>.<lambda>'" (Python <= 3.12.4).
    python repro.py --forkserver
        Same with forkserver, the default start method on Linux from Python 3.14.
    python repro.py --module-lambda
        A lambda assigned at module level: "_pickle.PicklingError: Can't pickle
        <function <lambda> at 0x...>: attribute lookup <lambda> on __main__ failed".
    python repro.py --interactive
        The dataset class is defined in code run with `python -c` (like a notebook cell or a
        REPL): pickling works, but the spawned worker cannot import __main__ and dies with
        "AttributeError: Can't get attribute 'Samples' on <module '__main__' (built-in)>",
        then "DataLoader worker (pid N) exited unexpectedly with exit code 1".
    python repro.py --no-main-guard
        A script without `if __name__ == "__main__":` (written to a temporary file and run):
        each spawned worker re-imports it, reaches the DataLoader loop again and stops with
        "RuntimeError: An attempt has been made to start a new process before the current
        process has finished its bootstrapping phase."; the parent then reports
        "exited unexpectedly with exit code 1".
    python repro.py --open-handle
        The dataset opens its data file in __init__ and keeps the handle on self; a file
        object cannot be pickled: "TypeError: cannot pickle '_io.BufferedReader' object"
        (the same happens with locks, DB connections, HDF5/LMDB handles).
    python repro.py --fixed
        Module-level collate function plus functools.partial for its parameter: the spawned
        workers start and every batch arrives (exit code 0).

Every variant except --fixed exits non-zero. Captured output of each is in logs/.
"""

import argparse
import functools
import os
import subprocess
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.full((3,), float(i))


class FileBacked(Samples):
    def __init__(self):
        self.fh = open(__file__, "rb")


def scaled_stack(batch, scale):
    return torch.stack(batch) * scale


module_level_lambda = lambda batch: torch.stack(batch)  # noqa: E731


NO_GUARD = """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(list(range(8)), batch_size=2, num_workers=1, multiprocessing_context="spawn")
for batch in loader:
    print(batch)
"""

INTERACTIVE = """
import torch
from torch.utils.data import DataLoader, Dataset
class Samples(Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        return torch.full((3,), float(i))
loader = DataLoader(Samples(), batch_size=2, num_workers=1, multiprocessing_context="spawn")
for batch in loader:
    print(batch.shape)
"""


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--forkserver", action="store_true")
    g.add_argument("--module-lambda", action="store_true")
    g.add_argument("--interactive", action="store_true")
    g.add_argument("--no-main-guard", action="store_true")
    g.add_argument("--open-handle", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    if args.interactive:
        sys.exit(subprocess.call([sys.executable, "-c", INTERACTIVE]))
    if args.no_main_guard:
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "train_no_guard.py")
            with open(script, "w") as f:
                f.write(NO_GUARD)
            sys.exit(subprocess.call([sys.executable, script]))

    scale = 2.0
    if args.fixed:
        collate = functools.partial(scaled_stack, scale=scale)  # picklable: module-level function
    elif args.module_lambda:
        collate = module_level_lambda
    else:
        collate = lambda batch: torch.stack(batch) * scale  # noqa: E731  local: cannot be pickled

    if args.open_handle:
        collate = None
    loader = DataLoader(
        FileBacked() if args.open_handle else Samples(),
        batch_size=2,
        num_workers=2,
        collate_fn=collate,
        multiprocessing_context="forkserver" if args.forkserver else "spawn",
    )
    for step, batch in enumerate(loader):
        print(f"step {step}: {batch[:, 0].tolist()}", flush=True)
    print("epoch done", flush=True)


if __name__ == "__main__":
    main()
