"""Trainer.compute_loss finds no loss in the model outputs.

Run: python repro.py

CPU only, a tiny randomly initialised Llama and a word-level tokenizer built on the spot
(nothing is downloaded); one training step, a few seconds.

    python repro.py
        LlamaForCausalLM with a dataset of input_ids/attention_mask only and the default
        collator: no labels reach the model, it returns only logits, and Trainer raises
        "The model did not return a loss from the inputs, only the following keys: logits. ...".
    python repro.py --base-model
        LlamaModel (what AutoModel loads: no LM head) with a labels column: Trainer drops
        labels because LlamaModel.forward has no such argument, and the outputs are
        last_hidden_state/past_key_values.
    python repro.py --fixed
        DataCollatorForLanguageModeling(mlm=False) builds labels from input_ids; one step
        trains and prints the loss, exit code 0.
"""

import argparse
import sys
import tempfile

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    DataCollatorForLanguageModeling,
    LlamaConfig,
    LlamaForCausalLM,
    LlamaModel,
    PreTrainedTokenizerFast,
    Trainer,
    TrainingArguments,
    default_data_collator,
)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--base-model", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    words = ["<pad>", "<unk>", "<s>", "</s>", "hello", "how", "are", "you", "?"]
    backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>", eos_token="</s>"
    )

    enc = tok(["hello how are you ?"] * 8, padding="max_length", max_length=8)
    ds = []  # a plain list of examples works as a torch Dataset (no datasets library needed)
    for ids, mask in zip(enc["input_ids"], enc["attention_mask"]):
        ex = {"input_ids": ids, "attention_mask": mask}
        if args.base_model:
            ex["labels"] = list(ids)
        ds.append(ex)

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=16,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=4,
        pad_token_id=0,
    )
    model = LlamaModel(cfg) if args.base_model else LlamaForCausalLM(cfg)
    collator = DataCollatorForLanguageModeling(tok, mlm=False) if args.fixed else default_data_collator

    with tempfile.TemporaryDirectory() as out:
        targs = TrainingArguments(
            output_dir=out,
            max_steps=1,
            per_device_train_batch_size=4,
            use_cpu=True,
            report_to=[],
            logging_steps=1,
            disable_tqdm=True,
        )
        result = Trainer(model=model, args=targs, train_dataset=ds, data_collator=collator).train()
        print(f"trained one step, loss {result.training_loss:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
