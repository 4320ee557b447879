"""Batched padding with a tokenizer that has no pad token (as GPT-2, LLaMA and Mistral ship).

Run: python repro.py

CPU only, one process, about a second, no download: the tokenizer is a word-level
PreTrainedTokenizerFast built in memory with <s>, </s> and <unk> but no pad token.

    python repro.py
        tok(["a", "a b c"], padding=True): ValueError "Asking to pad but the tokenizer does
        not have a padding token. ...". Exit 1.
    python repro.py --collator
        The same through DataCollatorWithPadding (the Trainer's default collator when a
        tokenizer is given): same ValueError, raised from tokenizer.pad(). Exit 1.
    python repro.py --eos-as-pad
        The usual quick fix, pad_token = eos_token, with DataCollatorForLanguageModeling
        (mlm=False): padding works, but every real </s> gets label -100 as well, so the
        model is never trained to emit it. Exit 0 (prints the labels).
    python repro.py --fixed
        pad_token set to a token that is not </s> (here <unk>): padding works and the </s>
        labels are kept. Exit 0.
"""

import argparse

from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import DataCollatorForLanguageModeling, DataCollatorWithPadding, PreTrainedTokenizerFast


def build_tokenizer():
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "a": 3, "b": 4, "c": 5}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--collator", action="store_true")
    g.add_argument("--eos-as-pad", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    tok = build_tokenizer()
    print(
        f"pad_token={tok.pad_token!r} pad_token_id={tok.pad_token_id!r} eos_token={tok.eos_token!r}",
        flush=True,
    )
    texts = ["a </s>", "a b c </s>"]

    if args.collator:
        features = [tok(t) for t in texts]
        print(DataCollatorWithPadding(tok)(features))
        return
    if args.eos_as_pad or args.fixed:
        tok.pad_token = tok.eos_token if args.eos_as_pad else tok.unk_token
        batch = DataCollatorForLanguageModeling(tok, mlm=False)([tok(t) for t in texts])
        print("input_ids:", batch["input_ids"].tolist())
        print("labels:   ", batch["labels"].tolist())
        eos = tok.eos_token_id
        kept = int(((batch["input_ids"] == eos) & (batch["labels"] == eos)).sum())
        print(f"real </s> tokens kept as training targets: {kept} of {len(texts)}")
        return
    print(tok(texts, padding=True))


if __name__ == "__main__":
    main()
