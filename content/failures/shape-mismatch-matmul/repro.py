"""Linear layer's in_features does not match the flattened input: matmul shape error.

Run: python repro.py

CPU only, one process, a few seconds. A small CNN whose classifier was sized for
32x32 images (16 channels x 16 x 16 = 4096 features after pooling) is fed 64x64 images:
the flattened width is 16384, so nn.Linear(4096, 10) raises
"mat1 and mat2 shapes cannot be multiplied (4x16384 and 4096x10)".

    python repro.py
        64x64 images into a classifier sized for 32x32: RuntimeError, exit 1.
    python repro.py --seq
        [batch, seq, features] input whose feature size is wrong: the error shows
        batch*seq rows (e.g. 4x7=28). Exit 1.
    python repro.py --bmm
        batched matmul (attention-style) with mismatched inner sizes: "Expected size for
        first two dimensions of batch2 tensor to be: [2, 10] but got: [2, 20]." Exit 1.
    python repro.py --mv
        matrix @ vector with the wrong vector length: "size mismatch, got input (5),
        mat (5x20), vec (10)". Exit 1.
    python repro.py --lstm
        LSTM built for 20 input features fed 10: "input.size(-1) must be equal to
        input_size. Expected 20, got 10". Exit 1.
    python repro.py --fixed
        AdaptiveAvgPool2d((16, 16)) before flatten: any image size works, exit 0.
"""

import argparse

import torch
import torch.nn as nn


class SmallCNN(nn.Module):
    def __init__(self, adaptive=False):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.pool = nn.AdaptiveAvgPool2d((16, 16)) if adaptive else nn.Identity()
        self.classifier = nn.Linear(16 * 16 * 16, 10)  # sized for 32x32 inputs

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--seq", action="store_true")
    g.add_argument("--bmm", action="store_true")
    g.add_argument("--mv", action="store_true")
    g.add_argument("--lstm", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)

    if args.seq:
        proj = nn.Linear(20, 5)  # expects 20 features per token
        tokens = torch.randn(4, 7, 10)  # [batch, seq, 10]
        proj(tokens)
        return
    if args.bmm:
        q = torch.randn(2, 4, 10)  # [batch, queries, head_dim=10]
        k_t = torch.randn(2, 20, 5)  # transposed keys with head_dim=20
        torch.bmm(q, k_t)
        return
    if args.mv:
        torch.randn(5, 20) @ torch.randn(10)
        return
    if args.lstm:
        nn.LSTM(input_size=20, hidden_size=8)(torch.randn(3, 4, 10))
        return

    model = SmallCNN(adaptive=args.fixed)
    print("trained on 32x32:", tuple(model(torch.randn(4, 3, 32, 32)).shape), flush=True)
    images = torch.randn(4, 3, 64, 64)  # new data pipeline resizes to 64x64
    print("64x64 batch:", tuple(model(images).shape), flush=True)


if __name__ == "__main__":
    main()
