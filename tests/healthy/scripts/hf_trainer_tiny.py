"""HF Transformers Trainer on a tiny randomly initialised GPT-2 (built from a
config, nothing downloaded; run with HF_HUB_OFFLINE=1) on synthetic token
sequences. Trainer's default logging/progress bars; library verbosity set to
INFO as the transformers example scripts do on the main process.
"""

import os
import sys
import tempfile

import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments, set_seed


class SyntheticLM(torch.utils.data.Dataset):
    """Sequences following a simple rule (next = (prev * 3 + 1) % vocab) so the loss can fall."""

    def __init__(self, n, seq_len, vocab, seed):
        g = torch.Generator().manual_seed(seed)
        start = torch.randint(0, vocab, (n, 1), generator=g)
        seqs = [start]
        for _ in range(seq_len - 1):
            seqs.append((seqs[-1] * 3 + 1) % vocab)
        self.data = torch.cat(seqs, dim=1)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        ids = self.data[i]
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def main():
    transformers.logging.set_verbosity_info()
    transformers.logging.enable_default_handler()
    transformers.logging.enable_explicit_format()
    set_seed(42)
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="hf-trainer-")
    vocab = 128
    config = GPT2Config(
        vocab_size=vocab, n_positions=64, n_embd=64, n_layer=2, n_head=2, bos_token_id=0, eos_token_id=1
    )
    model = GPT2LMHeadModel(config)
    print(f"model parameters: {model.num_parameters():,}  HF_HUB_OFFLINE={os.environ.get('HF_HUB_OFFLINE')}")
    train_ds = SyntheticLM(512, 32, vocab, seed=0)
    eval_ds = SyntheticLM(64, 32, vocab, seed=1)
    args = TrainingArguments(
        output_dir=out,
        num_train_epochs=4,
        per_device_train_batch_size=16,
        per_device_eval_batch_size=32,
        learning_rate=3e-3,
        warmup_steps=10,
        weight_decay=0.01,
        logging_steps=2,
        eval_strategy="epoch",
        save_strategy="epoch",
        save_total_limit=1,
        use_cpu=True,
        seed=42,
        dataloader_num_workers=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
    result = trainer.train()
    print(result)
    metrics = trainer.evaluate()
    print(metrics)
    trainer.save_model(os.path.join(out, "final"))
    print("saved to", os.path.join(out, "final"))


if __name__ == "__main__":
    main()
