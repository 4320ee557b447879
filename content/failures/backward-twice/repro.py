"""Backward through a graph whose saved tensors were freed by an earlier backward.

Run: python repro.py

CPU only, one process, a few seconds. A GRU language model carries its hidden state
from one batch to the next without detaching it (truncated BPTT done wrong). The second
batch's graph therefore reaches back into the first batch's graph, whose saved tensors
the first loss.backward() already freed: the second backward raises "Trying to
backward through the graph a second time".

    python repro.py
        Hidden state carried across batches without .detach(): RuntimeError at the
        second batch's backward, exit 1.
    python repro.py --two-losses
        Two losses share an encoder; the first loss.backward() frees the shared part,
        the second backward hits it. Exit 1.
    python repro.py --fixed
        hidden = hidden.detach() between batches, and one backward on the summed losses:
        three batches, exit 0.
"""

import argparse

import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)
        self.aux = nn.Linear(dim, 1)

    def forward(self, tokens, hidden=None):
        out, hidden = self.rnn(self.emb(tokens), hidden)
        return self.head(out), self.aux(out).squeeze(-1), hidden


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--two-losses", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    model = TinyLM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ce = nn.CrossEntropyLoss()
    stream = torch.randint(0, 32, (4, 3 * 10 + 1))  # 4 sequences, 3 chunks of 10 tokens
    hidden = None
    for step in range(3):
        chunk = stream[:, step * 10 : step * 10 + 11]
        inputs, targets = chunk[:, :-1], chunk[:, 1:]
        if args.fixed and hidden is not None:
            hidden = hidden.detach()  # cut the graph at the chunk boundary
        if args.two_losses:
            hidden = None  # no carry-over here; the bug is the two backward calls
        logits, aux, hidden = model(inputs, hidden)
        lm_loss = ce(logits.reshape(-1, 32), targets.reshape(-1))
        aux_loss = aux.pow(2).mean()
        opt.zero_grad()
        if args.two_losses:
            lm_loss.backward()  # frees the GRU/embedding part of the graph
            aux_loss.backward()  # needs the same GRU saved tensors again
        elif args.fixed:
            (lm_loss + aux_loss).backward()
        else:
            lm_loss.backward()
        opt.step()
        print(f"step {step} loss {lm_loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
