"""Trainer subclasses whose compute_loss predates num_items_in_batch (transformers 4.46+).

Run: python repro.py

CPU only, one process, a few seconds, no download (tiny random LlamaForCausalLM, 2 optimizer
steps, 16 samples).

    python repro.py
        compute_loss(self, model, inputs, return_outputs=False): Trainer calls it with
        num_items_in_batch=... and gets "TypeError: ... got an unexpected keyword argument
        'num_items_in_batch'". Exit 1.
    python repro.py --kwargs-ignored
        compute_loss(..., **kwargs) returns the model's mean loss and ignores
        num_items_in_batch, with gradient_accumulation_steps=4. No error, but the Llama model
        accepts loss kwargs, so Trainer assumes the loss is already normalised over the window
        and does not divide by 4: the logged loss and grad_norm are 4x those of --fixed. Exit 0.
    python repro.py --fixed
        compute_loss sums the token losses and divides by num_items_in_batch, same
        gradient_accumulation_steps=4: loss and grad_norm match the stock Trainer. Exit 0.
    python repro.py --stock
        No override (the reference numbers), gradient_accumulation_steps=4. Exit 0.
"""

import argparse
import tempfile

import torch
import torch.nn.functional as F
import transformers
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments


class OldSignature(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(**inputs)
        return (outputs.loss, outputs) if return_outputs else outputs.loss


class KwargsIgnored(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)  # mean over this micro-batch only
        return (outputs.loss, outputs) if return_outputs else outputs.loss


class Fixed(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits, targets = outputs.logits[:, :-1], labels[:, 1:]
        loss = F.cross_entropy(
            logits.reshape(-1, logits.size(-1)).float(),
            targets.reshape(-1),
            ignore_index=-100,
            reduction="sum",
        )
        if num_items_in_batch is None:  # evaluation, or an old caller
            num_items_in_batch = (targets != -100).sum()
        loss = loss / num_items_in_batch
        return (loss, outputs) if return_outputs else loss


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--kwargs-ignored", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--stock", action="store_true")
    a = p.parse_args()
    transformers.logging.set_verbosity_error()

    cls = KwargsIgnored if a.kwargs_ignored else Fixed if a.fixed else Trainer if a.stock else OldSignature
    gas = 1 if cls is OldSignature else 4
    torch.manual_seed(0)
    model = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=64,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=4,
        )
    )
    ids = torch.randint(0, 64, (16, 8))
    ds = [{"input_ids": ids[i], "labels": ids[i]} for i in range(16)]
    args = TrainingArguments(
        output_dir=tempfile.mkdtemp(prefix="repro-out-"),
        per_device_train_batch_size=4 // gas,
        gradient_accumulation_steps=gas,
        max_steps=2,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        disable_tqdm=True,
    )
    print(f"{cls.__name__}, gradient_accumulation_steps={gas}", flush=True)
    cls(model=model, args=args, train_dataset=ds).train()


if __name__ == "__main__":
    main()
