"""Sequence classification on a decoder-only model without config.pad_token_id.

Run: python repro.py

CPU only, one process, a few seconds, no download (tiny random LlamaForSequenceClassification,
2 layers, hidden 32, vocabulary 64).

    python repro.py
        pad_token_id unset, batch of 2: ValueError "Cannot handle batch sizes > 1 if no padding
        token is defined." Exit 1.
    python repro.py --batch-one
        Same model, batch of 1: no error (the last position is pooled), which is why a run
        with per_device_train_batch_size=1 trains and then fails in evaluation. Exit 0.
    python repro.py --fixed
        config.pad_token_id = 0 and a right-padded batch: the score of the padded sequence
        equals its score computed alone (the last real token is pooled). Exit 0.
"""

import argparse

import torch
from transformers import LlamaConfig, LlamaForSequenceClassification


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--batch-one", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        num_labels=2,
        pad_token_id=None,
    )
    model = LlamaForSequenceClassification(cfg).eval()
    print(f"config.pad_token_id = {model.config.pad_token_id}", flush=True)

    short = [5, 6, 7]
    long = [5, 6, 7, 8, 9]
    if args.batch_one:
        logits = model(input_ids=torch.tensor([long])).logits
        print(f"batch of 1 works: logits {tuple(logits.shape)}")
        return
    pad = 0
    ids = torch.tensor([short + [pad] * 2, long])
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    if args.fixed:
        model.config.pad_token_id = pad
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask).logits
        alone = model(input_ids=torch.tensor([short])).logits
    print(
        f"batch logits {tuple(logits.shape)}; padded row vs alone, max abs diff: "
        f"{(logits[0] - alone[0]).abs().max().item():.2e}"
    )


if __name__ == "__main__":
    main()
