"""torch.utils.checkpoint called without use_reentrant: the warning and where it comes from.

Run: python repro.py

CPU only, one process, a tiny randomly initialised Llama (nothing is downloaded), a few seconds.

    python repro.py
        Gradient checkpointing enabled with gradient_checkpointing_kwargs={} (what
        transformers 4.35-4.37 passed by default): every checkpointed layer calls
        torch.utils.checkpoint.checkpoint without use_reentrant, and torch warns
        "the use_reentrant parameter should be passed explicitly". Three training steps run;
        the script counts how often the warning was issued and how often Python printed it.
    python repro.py --plain
        The same warning from a direct torch.utils.checkpoint.checkpoint(fn, x) call.
    python repro.py --fixed
        gradient_checkpointing_kwargs={"use_reentrant": False} (the transformers 5.x default):
        no warning; exit code 0 in all three cases.
"""

import argparse
import sys
import warnings

import torch
from torch.utils.checkpoint import checkpoint
from transformers import LlamaConfig, LlamaForCausalLM

MESSAGE = "use_reentrant parameter should be passed explicitly"


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--plain", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    if args.plain:
        x = torch.ones(2, requires_grad=True)
        checkpoint(lambda t: t * 2, x).sum().backward()
        print(f"plain checkpoint done, grad {x.grad.tolist()}", flush=True)
        return 0

    cfg = LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
    )
    model = LlamaForCausalLM(cfg)
    kwargs = {"use_reentrant": False} if args.fixed else {}
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ids = torch.randint(0, 128, (2, 16))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for step in range(3):
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            print(f"step {step}: loss {loss.item():.4f}", flush=True)
    ours = [w for w in caught if MESSAGE in str(w.message)]
    issued = len(ours)
    if ours:  # print the first one the way Python would have
        warnings.showwarning(ours[0].message, ours[0].category, ours[0].filename, ours[0].lineno)
    print(
        f"use_reentrant warning issued {issued} times in 3 steps "
        f"({cfg.num_hidden_layers} checkpointed layers)",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
