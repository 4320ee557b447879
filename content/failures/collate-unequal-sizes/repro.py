"""default_collate cannot stack samples of different shapes into one batch tensor.

Run: python repro.py

CPU only; each variant takes 1-3 s.

    python repro.py
        Token sequences of different lengths, num_workers=2: the main process raises
        "RuntimeError: Caught RuntimeError in DataLoader worker process 0." whose
        Original Traceback ends in "stack expects each tensor to be equal size, but got
        [5] at entry 0 and [7] at entry 1".
    python repro.py --longest-first
        Same, but the first sample of the batch is the longest. In a worker, default_collate
        pre-allocates a shared-memory buffer sized from the sum of the samples and reshapes
        it to (batch, *first_sample_shape); that reshape fails first:
        "RuntimeError: Trying to resize storage that is not resizable".
    python repro.py --longest-first --num-workers 0
        No worker, no shared buffer: the same batch gives the plain "stack expects each
        tensor to be equal size, but got [7] at entry 0 and [5] at entry 1".
    python repro.py --images
        Images loaded without a fixed resize: "... but got [3, 224, 224] at entry 0 and
        [3, 224, 300] at entry 1".
    python repro.py --list-field
        A sample field that is a Python list of varying length (e.g. box labels):
        "RuntimeError: each element in list of batch should be of equal size".
    python repro.py --hf-collator --num-workers 0
        transformers' default_data_collator (what HF Trainer uses when no tokenizer or
        collator is given) on unpadded token lists, without workers as in Trainer's default:
        "ValueError: expected sequence of length 5 at dim 1 (got 7)". Needs transformers.
    python repro.py --fixed
        A collate_fn pads the sequences and returns lengths and a mask; exit code 0.

Every variant except --fixed exits non-zero. Captured output of each is in logs/.
"""

import argparse
from typing import ClassVar

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __init__(self, longest_first=False):
        self.lengths = [7, 5, 7, 7, 3, 9, 4, 7] if longest_first else [5, 7, 7, 7, 3, 9, 4, 7]

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        return {"input_ids": torch.arange(self.lengths[i]), "label": i % 2}


class Images(Dataset):
    widths: ClassVar[list[int]] = [224, 300, 224, 224]

    def __len__(self):
        return len(self.widths)

    def __getitem__(self, i):
        return torch.zeros(3, 224, self.widths[i]), i % 2


class Detections(Dataset):
    labels: ClassVar[list[list[int]]] = [[1, 2], [3], [1, 1, 2], [4, 5]]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"image": torch.zeros(3, 32, 32), "labels": self.labels[i]}


class TokenLists(Dataset):
    lengths: ClassVar[list[int]] = [5, 7, 7, 7]

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        return {"input_ids": list(range(self.lengths[i])), "labels": i % 2}


def pad_collate(samples):
    ids = [s["input_ids"] for s in samples]
    lengths = torch.tensor([len(x) for x in ids])
    input_ids = pad_sequence(ids, batch_first=True, padding_value=0)
    mask = torch.arange(input_ids.shape[1])[None, :] < lengths[:, None]
    labels = torch.tensor([s["label"] for s in samples])
    return {"input_ids": input_ids, "attention_mask": mask, "lengths": lengths, "labels": labels}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-workers", type=int, default=2)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--longest-first", action="store_true")
    g.add_argument("--images", action="store_true")
    g.add_argument("--list-field", action="store_true")
    g.add_argument("--hf-collator", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    collate_fn = pad_collate if args.fixed else None
    if args.hf_collator:
        from transformers import default_data_collator

        ds = TokenLists()
        collate_fn = default_data_collator
    elif args.images:
        ds = Images()
    elif args.list_field:
        ds = Detections()
    else:
        ds = Sentences(longest_first=args.longest_first)
    loader = DataLoader(
        ds,
        batch_size=2,
        num_workers=args.num_workers,
        collate_fn=collate_fn,
    )
    for step, batch in enumerate(loader):
        if isinstance(batch, dict) and "attention_mask" in batch:
            print(
                f"step {step}: input_ids {tuple(batch['input_ids'].shape)} lengths {batch['lengths'].tolist()}",
                flush=True,
            )
        else:
            print(f"step {step}: ok", flush=True)
    print("epoch done", flush=True)


if __name__ == "__main__":
    main()
