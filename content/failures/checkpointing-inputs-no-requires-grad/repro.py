"""Reentrant activation checkpointing with frozen inputs: LoRA-style adapters silently get no gradient.

Run: python repro.py

CPU only, one process, a few seconds. The model mimics LoRA for sequence classification: a
frozen embedding, two blocks whose base Linear is frozen and whose low-rank adapter (A, B) is
trainable, each block wrapped in torch.utils.checkpoint, and a trainable classification head
after them (PEFT puts the score head of a SEQ_CLS task in modules_to_save, so it trains).

    python repro.py
        use_reentrant=True. checkpoint warns "None of the inputs have requires_grad=True.
        Gradients will be None"; the loss still has a grad_fn through the head, training runs,
        the loss goes down, but every adapter gradient is None. Exit 0 (the silent failure).
    python repro.py --unused-input
        A frozen checkpointed block receives a tensor that requires grad but does not use it:
        backward raises "none of output has requires_grad=True, this checkpoint() is not
        necessary". Exit 1.
    python repro.py --eval
        The same checkpointed forward under torch.no_grad() (an evaluation loop that kept
        checkpointing on): the warning appears, nothing is wrong. Exit 0.
    python repro.py --input-grads
        Fix 1: a forward hook makes the embedding output require grad (what transformers'
        model.enable_input_require_grads() does). No warning, adapters get gradients. Exit 0.
    python repro.py --non-reentrant
        Fix 2: use_reentrant=False. No warning, adapters get gradients. Exit 0.
"""

import argparse

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class LoraBlock(nn.Module):
    def __init__(self, d, r=2):
        super().__init__()
        self.base = nn.Linear(d, d)
        self.lora_A = nn.Linear(d, r, bias=False)
        self.lora_B = nn.Linear(r, d, bias=False)
        nn.init.normal_(self.lora_B.weight, std=0.02)  # non-zero so that a gradient would show up
        self.base.requires_grad_(False)

    def forward(self, h):
        return torch.relu(self.base(h) + self.lora_B(self.lora_A(h))) + h


class TinyClassifier(nn.Module):
    def __init__(self, vocab=50, d=16, n_labels=2, reentrant=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, d).requires_grad_(False)
        self.blocks = nn.ModuleList(LoraBlock(d) for _ in range(2))
        self.score = nn.Linear(d, n_labels)  # trainable head after the checkpointed blocks
        self.reentrant = reentrant

    def forward(self, ids):
        h = self.embed(ids)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=self.reentrant)
        return self.score(h[:, -1])


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--unused-input", action="store_true")
    g.add_argument("--eval", action="store_true")
    g.add_argument("--input-grads", action="store_true")
    g.add_argument("--non-reentrant", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)

    if args.unused_input:
        frozen = nn.Linear(16, 16).requires_grad_(False)
        h = torch.randn(4, 16)  # hidden states that do not require grad
        gate = torch.zeros(4, 16, requires_grad=True)  # a trainable tensor the block ignores
        out = checkpoint(lambda x, g: frozen(x), h, gate, use_reentrant=True)
        print(f"checkpoint output requires_grad={out.requires_grad}", flush=True)
        out.sum().backward()
        return

    model = TinyClassifier(reentrant=not args.non_reentrant)
    if args.input_grads:
        model.embed.register_forward_hook(lambda mod, inp, out: out.requires_grad_(True))
    ids = torch.randint(0, 50, (8, 6))
    labels = torch.randint(0, 2, (8,))

    if args.eval:
        model.eval()
        with torch.no_grad():
            logits = model(ids)
        print(f"eval logits {tuple(logits.shape)}, no backward needed", flush=True)
        return

    opt = torch.optim.SGD([q for q in model.parameters() if q.requires_grad], lr=0.5)
    trainable = sum(q.numel() for q in model.parameters() if q.requires_grad)
    print(f"trainable parameters: {trainable}", flush=True)
    for step in range(3):
        loss = nn.functional.cross_entropy(model(ids), labels)
        loss.backward()
        adapter = [n for n, q in model.named_parameters() if "lora_" in n]
        missing = [n for n in adapter if model.get_parameter(n).grad is None]
        head = model.score.weight.grad.norm().item()
        print(
            f"step {step}: loss={loss.item():.4f} head grad norm={head:.4f} "
            f"adapter params without grad: {len(missing)}/{len(adapter)}",
            flush=True,
        )
        opt.step()
        opt.zero_grad(set_to_none=True)


if __name__ == "__main__":
    main()
