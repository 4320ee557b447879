"""Batched generate() with right padding on a decoder-only model: a warning, then wrong tokens.

Run: python repro.py

CPU only, no downloads: a tiny randomly initialised LlamaForCausalLM is built from a
LlamaConfig (transformers 5.x; the warning text is the same in 4.x). Greedy decoding, so the
output is deterministic.

    python repro.py
        Batch of two prompts of different lengths, the short one padded on the RIGHT
        (pad id 0, attention_mask 0 on the pads). transformers logs the right-padding
        warning; the short prompt's continuation differs from what the same prompt
        gives when generated alone. Exits 1.
    python repro.py --left
        Same prompts padded on the LEFT: no warning, every row matches its
        unbatched reference. Exits 0.
"""

import argparse
import sys

import torch
from transformers import LlamaConfig, LlamaForCausalLM

PAD = 0
LONG = [5, 17, 42, 8, 99, 23, 61, 7]
SHORT = [5, 17, 42]
NEW_TOKENS = 6


def build_model():
    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=64,
        pad_token_id=PAD,
        bos_token_id=1,
        eos_token_id=2,
    )
    model = LlamaForCausalLM(cfg).eval()
    model.generation_config.pad_token_id = PAD
    model.generation_config.eos_token_id = None  # never stop early: compare full continuations
    return model


def pad_batch(rows, side):
    width = max(len(r) for r in rows)
    ids, mask = [], []
    for r in rows:
        fill = width - len(r)
        if side == "right":
            ids.append(r + [PAD] * fill)
            mask.append([1] * len(r) + [0] * fill)
        else:
            ids.append([PAD] * fill + r)
            mask.append([0] * fill + [1] * len(r))
    return torch.tensor(ids), torch.tensor(mask)


def generate(model, ids, mask):
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=NEW_TOKENS, do_sample=False)
    return out[:, ids.shape[1] :].tolist()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--left", action="store_true", help="pad on the left (the fix)")
    args = p.parse_args()
    side = "left" if args.left else "right"
    model = build_model()

    # Reference: each prompt alone, no padding at all.
    ref = [
        generate(model, torch.tensor([r]), torch.ones(1, len(r), dtype=torch.long))[0] for r in (LONG, SHORT)
    ]

    ids, mask = pad_batch([LONG, SHORT], side)
    print(f"padding_side={side}")
    print(f"input_ids={ids.tolist()}")
    print(f"attention_mask={mask.tolist()}")
    got = generate(model, ids, mask)

    bad = 0
    for name, r, g in zip(("long", "short"), ref, got, strict=True):
        same = r == g
        bad += not same
        print(f"{name:5s} alone:   {r}")
        print(f"{name:5s} batched: {g}  {'OK' if same else 'MISMATCH'}", flush=True)
    if bad:
        print(
            f"{bad} row(s) differ from their unbatched output: right padding corrupted generation",
            file=sys.stderr,
        )
        sys.exit(1)
    print("all rows match their unbatched output")


if __name__ == "__main__":
    main()
