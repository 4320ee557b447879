"""DDP refuses to start when the ranks built different models.

CPU only (gloo), two processes. The model is a small conv net with a token embedding; each
variant changes it on one rank only, the way rank-guarded setup code does by accident.

Run: torchrun --standalone --nproc_per_node=2 repro.py

    torchrun --standalone --nproc_per_node=2 repro.py
        The backbone is frozen inside an `if rank == 0:` block (next to logging), so rank 0
        has fewer trainable parameters: every rank raises "DDP expects same model across
        all ranks, but Rank N has X params, while rank M has inconsistent Y params."
    torchrun --standalone --nproc_per_node=2 repro.py --resize-embedding
        Extra special tokens are added and the embedding resized on rank 0 only: rank 1
        raises "[1]: params[0] in this process with sizes [...] appears not to match sizes
        of the same param in process 0."
    torchrun --standalone --nproc_per_node=2 repro.py --channels-last
        Rank 1 converts the model to channels_last: same shapes, different strides:
        "params[1] in this process with sizes [8, 3, 3, 3] appears not to match strides of the
        same param in process 0." Rank 0, the source of the check, fails later with
        gloo "Connection closed by peer".
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        Identical setup on every rank; only printing is rank-guarded: exit 0.

Every variant except --fixed exits non-zero.
"""

import argparse
import datetime

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self, vocab=100):
        super().__init__()
        self.embed = nn.Embedding(vocab, 8)
        self.conv = nn.Conv2d(3, 8, 3)
        self.head = nn.Linear(8, 2)

    def forward(self, tokens, image):
        h = self.embed(tokens).mean(1) + self.conv(image).mean((2, 3))
        return self.head(h)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--resize-embedding", action="store_true")
    g.add_argument("--channels-last", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = Net()

    if args.fixed:
        for p_ in model.embed.parameters():
            p_.requires_grad_(False)  # same decision on every rank
        if rank == 0:
            print("frozen: embed", flush=True)
    elif args.resize_embedding:
        if rank == 0:  # tokenizer setup done on the main process only
            model.embed = nn.Embedding(100 + 3, 8)  # 3 added special tokens
    elif args.channels_last:
        if rank == 1:
            model = model.to(memory_format=torch.channels_last)
    else:
        if rank == 0:
            print("freezing the embedding and conv layers", flush=True)
            for m in (model.embed, model.conv):
                m.requires_grad_(False)  # only rank 0 freezes

    ddp = DDP(model)
    n = sum(p_.numel() for p_ in ddp.parameters() if p_.requires_grad)
    print(f"rank {rank}: DDP ready, {n} trainable values", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
