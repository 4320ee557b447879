"""Trainer(tokenizer=...) after the rename to processing_class.

Run: python repro.py

CPU only, a few seconds, no network (tiny random BERT, a word-level tokenizer built in memory).

    python repro.py
        Trainer(model, args, train_dataset, tokenizer=tok), as written for transformers < 4.46.
        On transformers 5.x: TypeError: Trainer.__init__() got an unexpected keyword argument
        'tokenizer'. On 4.46-4.57 it works with a FutureWarning.
    python repro.py --new-name
        Trainer(..., processing_class=tok). Works on >= 4.46; on < 4.46 it is the reverse
        TypeError ('processing_class').
    python repro.py --fixed
        passes whichever name the installed Trainer accepts (checked with inspect); exit code 0.

Every variant except --fixed (and --new-name on >= 4.46) exits non-zero. Captured output is in logs/.
"""

import argparse
import inspect
import tempfile

import torch
import transformers
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    PreTrainedTokenizerFast,
    Trainer,
    TrainingArguments,
)

p = argparse.ArgumentParser()
g = p.add_mutually_exclusive_group()
g.add_argument("--new-name", action="store_true")
g.add_argument("--fixed", action="store_true")
args = p.parse_args()

print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)

vocab = {"[PAD]": 0, "[UNK]": 1, "good": 2, "bad": 3, "movie": 4}
raw = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
raw.pre_tokenizer = pre_tokenizers.Whitespace()
tok = PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="[PAD]", unk_token="[UNK]")

config = BertConfig(
    vocab_size=len(vocab),
    hidden_size=16,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=32,
    num_labels=2,
)
model = BertForSequenceClassification(config)

texts, labels = ["good movie", "bad movie"], [1, 0]
enc = tok(texts, padding=True)
train_dataset = [
    {"input_ids": enc["input_ids"][i], "attention_mask": enc["attention_mask"][i], "labels": labels[i]}
    for i in range(len(texts))
]

out = tempfile.mkdtemp(prefix="trainer-out-")
targs = TrainingArguments(
    output_dir=out, per_device_train_batch_size=2, max_steps=1, report_to=[], use_cpu=True
)

if args.fixed:
    name = (
        "processing_class"
        if "processing_class" in inspect.signature(Trainer.__init__).parameters
        else "tokenizer"
    )
    trainer = Trainer(model=model, args=targs, train_dataset=train_dataset, **{name: tok})
elif args.new_name:
    trainer = Trainer(model=model, args=targs, train_dataset=train_dataset, processing_class=tok)
else:
    trainer = Trainer(model=model, args=targs, train_dataset=train_dataset, tokenizer=tok)

trainer.train()
print("trained 1 step with", type(tok).__name__)
