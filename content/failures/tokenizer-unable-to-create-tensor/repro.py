"""Batch to tensors with ragged features: "Unable to create tensor, you should probably activate
truncation and/or padding ...".

Run: python repro.py

CPU only, no download: a tiny word-level tokenizer is built with the tokenizers library.
Under a second.

    python repro.py
        DataCollatorWithPadding on tokenised examples that carry `labels` of different lengths
        (a seq2seq / SFT-style feature): input_ids are padded, labels are not, so the conversion
        of `labels` fails and the message names it.
    python repro.py --tokenizer-call
        tok(["hello", "hello how are you ?"], return_tensors="pt") without padding=True: the
        message names `input_ids`.
    python repro.py --fixed
        DataCollatorForSeq2Seq pads labels too (with -100); prints the batch shapes, exit 0.
"""

import argparse
import sys

from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import DataCollatorForSeq2Seq, DataCollatorWithPadding, PreTrainedTokenizerFast


def build_tokenizer():
    words = ["<pad>", "<unk>", "<s>", "</s>", "hello", "how", "are", "you", "?", "fine", "thanks"]
    backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    )


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--tokenizer-call", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    tok = build_tokenizer()
    if args.tokenizer_call:
        tok(["hello", "hello how are you ?"], return_tensors="pt")
        return 0

    features = []
    for prompt, answer in [("hello", "fine"), ("how are you ?", "fine thanks")]:
        enc = tok(prompt)
        enc["labels"] = tok(answer)["input_ids"]
        features.append(dict(enc))
    print("label lengths:", [len(f["labels"]) for f in features], flush=True)
    collator = DataCollatorForSeq2Seq(tok) if args.fixed else DataCollatorWithPadding(tok)
    batch = collator(features)
    print({k: tuple(v.shape) for k, v in batch.items()}, "labels:", batch["labels"].tolist(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
