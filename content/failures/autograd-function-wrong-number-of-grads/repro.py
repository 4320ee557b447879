"""A custom autograd Function whose backward returns the wrong number of gradients.

Run: python repro.py

CPU only, one process, about a second. A straight-through binariser (sign in the forward,
identity gradient in the backward) takes the input tensor and a plain Python flag. Its
backward must return one value per forward argument after ctx, so two values here, with
None for the flag.

    python repro.py
        backward returns only the input's gradient: the first loss.backward() raises
        "function BinarizeBackward returned an incorrect number of gradients
        (expected 2, got 1)", exit 1.
    python repro.py --too-many
        a Function with one input whose backward returns two tensors: "(expected 1, got 2)",
        exit 1.
    python repro.py --fixed
        backward returns (grad, None): three steps, exit 0.
"""

import argparse

import torch
import torch.nn as nn


class Binarize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, stochastic):
        if stochastic:
            x = x + torch.empty_like(x).uniform_(-0.5, 0.5)
        return x.sign()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output  # one value for two forward inputs (x, stochastic)


class BinarizeFixed(Binarize):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None  # None for the non-tensor flag


class ScaleTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2, grad_output  # two values for one forward input


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--too-many", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    encoder = nn.Linear(8, 4)
    decoder = nn.Linear(4, 8)
    opt = torch.optim.SGD([*encoder.parameters(), *decoder.parameters()], lr=0.1)
    for step in range(3):
        x = torch.randn(16, 8)
        h = torch.tanh(encoder(x))
        if args.too_many:
            code = ScaleTwice.apply(h)
        elif args.fixed:
            code = BinarizeFixed.apply(h, True)
        else:
            code = Binarize.apply(h, True)
        loss = nn.functional.mse_loss(decoder(code), x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
