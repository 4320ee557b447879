"""Evaluation without torch.no_grad(): model.eval() alone still records the autograd graph.

Run: python repro.py

CPU only, one process, a few seconds, well under 1 GB.

    python repro.py
        model.eval(), then an evaluation loop that keeps the softmax outputs of every
        batch for a metric. The outputs have requires_grad=True and a grad_fn, so every
        batch's graph, with the activations each Linear saved for a backward that never
        comes, stays alive: resident memory climbs batch after batch. Converting the
        predictions to NumPy for the metric then fails with
        "Can't call numpy() on Tensor that requires grad". Exit code 1.
    python repro.py --fixed
        The same loop under torch.inference_mode(): the outputs carry no graph, memory
        grows only by the kept predictions, the metric is computed, exit code 0.
"""

import argparse
import contextlib

import numpy as np
import torch
import torch.nn as nn

WIDTH, BATCH, BATCHES = 1024, 256, 16


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return -1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    layers = []
    for _ in range(4):
        layers += [nn.Linear(WIDTH, WIDTH), nn.GELU()]
    model = nn.Sequential(*layers, nn.Linear(WIDTH, 10))
    model.eval()  # changes dropout/batch-norm behaviour only; autograd still records

    ctx = torch.inference_mode() if args.fixed else contextlib.nullcontext()
    probs, labels = [], []
    with ctx:
        for i in range(BATCHES):
            x = torch.randn(BATCH, WIDTH)
            out = model(x).softmax(-1)
            probs.append(out)
            labels.append(torch.randint(0, 10, (BATCH,)))
            if i % 4 == 0 or i == BATCHES - 1:
                print(
                    f"eval batch {i}: requires_grad={out.requires_grad} "
                    f"grad_fn={type(out.grad_fn).__name__ if out.grad_fn else None} "
                    f"rss={rss_mb()} MB",
                    flush=True,
                )

    scores = np.asarray(torch.cat(probs))  # what sklearn metrics do with a tensor
    acc = (scores.argmax(1) == torch.cat(labels).numpy()).mean()
    print(f"accuracy={acc:.3f} rss={rss_mb()} MB", flush=True)


if __name__ == "__main__":
    main()
