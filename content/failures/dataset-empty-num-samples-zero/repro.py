"""An empty dataset reaches DataLoader(shuffle=True): the file pattern matches nothing.

Run: python repro.py

CPU only, no extra packages, about two seconds. A temporary data folder holds .png files
while the dataset globs "*.jpg" (a common mismatch: extension, case or data root).

    python repro.py
        DataLoader(shuffle=True) builds a RandomSampler over len(dataset) == 0 and raises
        ValueError: num_samples should be a positive integer value, but got num_samples=0
    python repro.py --no-shuffle
        shuffle=False: no error at all; the epoch loop runs zero iterations and "training"
        finishes instantly with no loss logged.
    python repro.py --fixed
        matches the extensions case-insensitively and checks len(dataset) first; trains one
        epoch of 3 batches, exits 0.
"""

import argparse
import glob
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset


class FolderDataset(Dataset):
    def __init__(self, root, patterns):
        self.files = sorted(
            f for p in patterns for f in glob.glob(os.path.join(root, "**", p), recursive=True)
        )

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return torch.zeros(3, 8, 8), 0


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--no-shuffle", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "train", "cat"))
        for i in range(6):
            open(os.path.join(root, "train", "cat", f"{i:03d}.PNG"), "wb").close()

        if args.fixed:
            patterns = ["*.jpg", "*.jpeg", "*.png", "*.JPG", "*.JPEG", "*.PNG"]
        else:
            patterns = ["*.jpg"]
        ds = FolderDataset(os.path.join(root, "train"), patterns)
        print(f"dataset root={os.path.basename(root)}/train patterns={patterns} len={len(ds)}", flush=True)
        if args.fixed and len(ds) == 0:
            raise SystemExit("no training files found: check the data root and the file pattern")

        loader = DataLoader(ds, batch_size=2, shuffle=not args.no_shuffle)
        steps = 0
        for x, y in loader:
            steps += 1
        print(f"epoch done: {steps} steps", flush=True)


if __name__ == "__main__":
    main()
