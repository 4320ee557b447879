"""Gradient checkpointing switches the KV cache off: the warning, and what it costs.

Run: python repro.py

CPU only, one process, a tiny randomly initialised Llama (nothing is downloaded), about 10 s.

    python repro.py
        Training forward with activation checkpointing on and use_cache=True (the config
        default): transformers logs "`use_cache=True` is incompatible with gradient
        checkpointing. Setting `use_cache=False`." and returns no cache. Then 32 tokens after a
        256-token prompt are
        decoded by hand twice with the model still in train mode: once with gradients
        enabled (cache dropped at every step, so each step re-reads the whole prefix) and
        once under torch.no_grad() (cache kept). Prints both timings.
    python repro.py --fixed
        Passes use_cache=False explicitly in the training forward and decodes in eval
        mode under torch.no_grad(): no warning, cache kept.

Exit code 0 in both cases (the failure is a slowdown, not a crash).
"""

import argparse
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def decode(model, prompt, new_tokens):
    """Greedy decoding that reuses the cache whenever the model returns one."""
    ids, cache, step_input = prompt, None, prompt
    for _ in range(new_tokens):
        out = model(input_ids=step_input, cache=cache, use_cache=True)
        nxt = out.logits[:, -1:].argmax(-1)
        ids = torch.cat([ids, nxt], dim=1)
        cache = out.cache
        step_input = nxt if cache is not None else ids  # no cache: feed the whole prefix again
    return ids, cache is not None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    cfg = LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=4,
        vocab_size=128,
    )
    model = LlamaForCausalLM(cfg)
    model.activation_checkpointing_enable()
    model.train()

    x = torch.randint(0, 128, (2, 32))
    kwargs = {"use_cache": False} if args.fixed else {}  # config.use_cache is True by default
    out = model(input_ids=x, labels=x, **kwargs)
    out.loss.backward()
    print(f"training step: loss={out.loss.item():.4f} cache returned: {out.cache is not None}", flush=True)

    prompt = torch.randint(0, 128, (1, 256))
    runs = [("train mode, grad enabled", torch.enable_grad), ("train mode, no_grad", torch.no_grad)]
    if args.fixed:
        model.eval()
        runs = [("eval mode, no_grad", torch.no_grad)]
    for label, ctx in runs:
        with ctx():
            t = time.perf_counter()
            _, cached = decode(model, prompt, 32)
            print(
                f"decode 32 tokens ({label}): {time.perf_counter() - t:.2f} s, cache kept: {cached}",
                flush=True,
            )


if __name__ == "__main__":
    main()
