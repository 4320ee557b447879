"""CPU analogue of a CUDA device-side assert: an out-of-range label or token id.

On a GPU the same bug trips a bounds assert inside the CUDA kernel
(`Assertion `t >= 0 && t < n_classes` failed.` or `srcIndex < srcSelectDimSize`),
and Python only sees "CUDA error: device-side assert triggered" at some later call.
On CPU the bounds check runs on the host and raises a precise IndexError at the
failing op, which is why re-running the failing batch on CPU is the fastest way
to find the bad value.

Run: python repro.py
Variants:
  python repro.py --embedding   token id == vocab size (tokens added, embeddings not resized)
  python repro.py --check       the data check from the entry's prevention section (exits 1
                                with a readable message before any kernel runs)
Each variant finishes in about a second and exits non-zero.
"""

import sys

import torch
import torch.nn.functional as F

NUM_CLASSES = 5
VOCAB = 10


def labels_batch():
    # class ids must be in [0, NUM_CLASSES); the 5 came from 1-based labels
    return torch.tensor([1, 4, 5, 0])


def main():
    torch.manual_seed(0)
    if "--check" in sys.argv:
        y = labels_batch()
        bad = y[(y < 0) | (y >= NUM_CLASSES)]
        if bad.numel():
            print(f"label check failed: {bad.tolist()} outside [0, {NUM_CLASSES})", flush=True)
            sys.exit(1)
        return
    if "--embedding" in sys.argv:
        emb = torch.nn.Embedding(VOCAB, 4)
        ids = torch.tensor([[3, 7, VOCAB]])  # id 10 for a table of 10 rows
        print(f"embedding rows={emb.num_embeddings} max id={ids.max().item()}", flush=True)
        emb(ids)
        return
    logits = torch.randn(4, NUM_CLASSES, requires_grad=True)
    y = labels_batch()
    print(f"num_classes={NUM_CLASSES} labels={y.tolist()}", flush=True)
    loss = F.cross_entropy(logits, y)
    loss.backward()


if __name__ == "__main__":
    main()
