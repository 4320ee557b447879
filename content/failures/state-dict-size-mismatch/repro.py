"""load_state_dict refuses a checkpoint whose tensor shapes differ from the model's (changed head or vocabulary).

Run: python repro.py

CPU only, one process; the plain PyTorch variants take 1-2 s, the transformers ones 5-10 s.

    python repro.py
        A 10-class checkpoint loaded into the same network built with 5 classes:
        "size mismatch for head.weight: copying a param with shape torch.Size([10, 16]) from
        checkpoint, the shape in current model is torch.Size([5, 16])."
    python repro.py --strict-false
        The same with strict=False: it still raises (strict only governs missing/unexpected keys).
    python repro.py --vocab
        Token embedding and output layer resized after adding tokens to the tokenizer (1000 -> 1003).
    python repro.py --hf
        transformers 5.x: from_pretrained(..., num_labels=5) on a 2-label checkpoint prints a LOAD REPORT
        with MISMATCH rows and raises "You set `ignore_mismatched_sizes` to `False`, thus raising an error."
        Needs transformers (verified with 5.24.0); the model is built from a config, nothing is downloaded.
    python repro.py --hf-ignore
        The same with ignore_mismatched_sizes=True: loads, re-initialises the classifier, and reports
        "Reinit due to size mismatch". Exit code 0.
    python repro.py --fixed
        Drops the mismatched tensors, loads with strict=False and asserts that only the head is missing.
        Exit code 0.

The default, --strict-false, --vocab and --hf exit with code 1.
"""

import argparse
import os
import tempfile

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, num_classes, vocab=1000):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.body = nn.Linear(16, 16)
        self.head = nn.Linear(16, num_classes)

    def forward(self, tokens):
        return self.head(torch.relu(self.body(self.embed(tokens).mean(1))))


class TinyLM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.lm_head = nn.Linear(16, vocab, bias=False)


def hf_variant(ignore):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import BertConfig, BertForSequenceClassification

    cfg = BertConfig(
        vocab_size=100,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=2,
    )
    with tempfile.TemporaryDirectory() as d:
        BertForSequenceClassification(cfg).save_pretrained(d)
        print(f"saved a 2-label checkpoint to {d}; loading it with num_labels=5", flush=True)
        model = BertForSequenceClassification.from_pretrained(d, num_labels=5, ignore_mismatched_sizes=ignore)
        print("loaded; classifier shape:", tuple(model.classifier.weight.shape), flush=True)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--strict-false", action="store_true")
    g.add_argument("--vocab", action="store_true")
    g.add_argument("--hf", action="store_true")
    g.add_argument("--hf-ignore", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)

    if args.hf or args.hf_ignore:
        hf_variant(ignore=args.hf_ignore)
        return
    if args.vocab:
        sd = TinyLM(1000).state_dict()
        print("checkpoint vocab 1000; tokenizer now has 3 added tokens", flush=True)
        TinyLM(1003).load_state_dict(sd)
        return

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pretrained_10cls.pt")
        torch.save(Classifier(num_classes=10).state_dict(), path)
        sd = torch.load(path, map_location="cpu", weights_only=True)
        model = Classifier(num_classes=5)
        print(f"fine-tuning a 5-class model from {path}", flush=True)
        if args.fixed:
            own = model.state_dict()
            dropped = [k for k, v in sd.items() if k in own and v.shape != own[k].shape]
            for k in dropped:
                del sd[k]
            result = model.load_state_dict(sd, strict=False)
            assert set(result.missing_keys) == set(dropped) and not result.unexpected_keys, result
            print(f"re-initialised {dropped}; loaded everything else", flush=True)
        else:
            model.load_state_dict(sd, strict=not args.strict_false)


if __name__ == "__main__":
    main()
