"""Operands or targets with incompatible dtypes (float64 data, half model, float labels).

Run: python repro.py

CPU only, one process, a few seconds. Features come from a NumPy array (float64 by
default); torch.from_numpy keeps float64, and the float32 Linear layer refuses it:
"mat1 and mat2 must have the same dtype, but got Double and Float".

    python repro.py
        float64 NumPy features into a float32 model: RuntimeError, exit 1.
    python repro.py --half-model
        model.half() (or a bf16 checkpoint) fed float32 inputs outside autocast:
        "... but got Float and Half". Exit 1.
    python repro.py --float-labels
        class labels stored as float (e.g. read from a CSV) passed to cross_entropy:
        "expected target dtype to be Long or Byte, but got Float". Exit 1.
    python repro.py --conv
        float64 images into a float32 Conv2d: "Input type (double) and bias type
        (float) should be the same" (CPU wording). Exit 1.
    python repro.py --conv-no-bias
        the same images into a Conv2d(bias=False) (ResNet-style conv before BatchNorm):
        "expected scalar type Double but found Float". Exit 1.
    python repro.py --embedding-float
        token ids as float into nn.Embedding: "Expected tensor for argument #1
        'indices' to have one of the following scalar types: Long, Int; ...". Exit 1.
    python repro.py --bce-long-target
        binary labels as int64 into binary_cross_entropy: "Found dtype Long but
        expected Float". Exit 1.
    python repro.py --bce-logits-long-target
        the same labels into binary_cross_entropy_with_logits: "result type Float
        can't be cast to the desired output type Long". Exit 1.
    python repro.py --fixed
        features cast to float32 and labels to int64: three steps, exit 0.
"""

import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--half-model", action="store_true")
    g.add_argument("--float-labels", action="store_true")
    g.add_argument("--conv", action="store_true")
    g.add_argument("--conv-no-bias", action="store_true")
    g.add_argument("--embedding-float", action="store_true")
    g.add_argument("--bce-long-target", action="store_true")
    g.add_argument("--bce-logits-long-target", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)
    rng = np.random.default_rng(0)

    if args.conv or args.conv_no_bias:
        conv = nn.Conv2d(3, 4, 3, bias=not args.conv_no_bias)
        model = nn.Sequential(conv, nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
        images = torch.from_numpy(rng.random((2, 3, 8, 8)))  # float64
        model(images)
        return
    if args.bce_long_target or args.bce_logits_long_target:
        head = nn.Linear(6, 1)
        x = torch.from_numpy(rng.normal(size=(8, 6))).float()
        y = torch.from_numpy(rng.integers(0, 2, size=8))  # int64 0/1 labels
        logits = head(x).squeeze(-1)
        if args.bce_long_target:
            F.binary_cross_entropy(torch.sigmoid(logits), y)
        else:
            F.binary_cross_entropy_with_logits(logits, y)
        return
    if args.embedding_float:
        emb = nn.Embedding(100, 8)
        ids = torch.tensor([[5.0, 17.0, 42.0]])  # ids that went through a float tensor
        emb(ids)
        return

    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    if args.half_model:
        model = model.half()  # like from_pretrained(..., torch_dtype=torch.float16)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    features = rng.normal(size=(32, 6))  # numpy float64
    labels = rng.integers(0, 3, size=32).astype(np.float32)  # labels stored as float

    for step in range(3):
        x = torch.from_numpy(features)  # keeps float64
        y = torch.from_numpy(labels)
        if args.fixed or args.float_labels:
            x = x.float()
        if args.half_model:
            x = x.float()  # float32 input, half weights, no autocast
        if args.fixed:
            y = y.long()
        logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
