"""optimizer.load_state_dict rejects a saved optimizer state whose parameter groups do not line up with the
current optimizer's (the model or the grouping changed between save and resume).

Run: python repro.py

CPU only, one process, 1-2 s per variant (--lightning about 5 s).

    python repro.py
        Saved: AdamW over a 2-layer model. Resume: a layer was added. optimizer.load_state_dict raises
        "ValueError: loaded state dict contains a parameter group that doesn't match the size of
        optimizer's group".
    python repro.py --frozen
        Same model, but the embedding is frozen on resume and the optimizer is built from the
        parameters that require grad: the same ValueError.
    python repro.py --groups
        Saved with one parameter group, resumed with the usual decay / no-decay split:
        "ValueError: loaded state dict has a different number of parameter groups".
    python repro.py --shape-swap
        Same number of tensors, different shapes (a hidden size changed): load_state_dict accepts it
        and the first optimizer.step() fails inside Adam with "The size of tensor a (8) must match
        the size of tensor b (6) ...". No optimizer-specific message.
    python repro.py --lightning
        Lightning: configure_optimizers changed to two groups, then trainer.fit(ckpt_path=...).
        Needs lightning (verified with 2.6.6).
    python repro.py --hf-trainer
        HF Trainer on a tiny random GPT-2 (built from a config, nothing downloaded): 2 steps and a
        checkpoint, then resume_from_checkpoint with the embeddings frozen: the same ValueError from
        Trainer._load_optimizer_and_scheduler. Needs transformers (verified with 5.24.0); about 30 s.
    python repro.py --fixed
        Builds the optimizer from named_parameters() so the state records parameter names, compares
        the saved and current groups before loading, restores the model and starts a fresh
        optimizer state when they differ, with an explicit message. Exit code 0.

Every variant except --fixed exits with code 1.
"""

import argparse
import itertools
import os
import tempfile

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, extra_layer=False, hidden=8):
        super().__init__()
        self.embed = nn.Embedding(50, 4)
        self.fc1 = nn.Linear(4, hidden)
        self.fc2 = nn.Linear(hidden, 2)
        self.extra = nn.Linear(2, 2) if extra_layer else None

    def forward(self, tokens):
        out = self.fc2(torch.relu(self.fc1(self.embed(tokens).mean(1))))
        return self.extra(out) if self.extra is not None else out


def step(model, opt):
    model(torch.randint(0, 50, (4, 6))).pow(2).mean().backward()
    opt.step()
    opt.zero_grad()


def decay_groups(model):
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]


def lightning_resume(tmp):
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader, TensorDataset

    class Lit(pl.LightningModule):
        def __init__(self, split_groups):
            super().__init__()
            self.net = Net()
            self.split_groups = split_groups

        def training_step(self, batch, batch_idx):
            return self.net(batch[0]).pow(2).mean()

        def configure_optimizers(self):
            params = decay_groups(self.net) if self.split_groups else self.parameters()
            return torch.optim.AdamW(params, lr=1e-3)

    data = DataLoader(TensorDataset(torch.randint(0, 50, (8, 6))), batch_size=4)
    opts = dict(
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer = pl.Trainer(max_epochs=1, **opts)
    trainer.fit(Lit(split_groups=False), data)
    path = os.path.join(tmp, "last.ckpt")
    trainer.save_checkpoint(path)
    print(f"saved {path}; resuming with two parameter groups", flush=True)
    pl.Trainer(max_epochs=2, **opts).fit(Lit(split_groups=True), data, ckpt_path=path)


def hf_trainer_resume(tmp):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from torch.utils.data import Dataset
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    class Tokens(Dataset):
        def __len__(self):
            return 16

        def __getitem__(self, i):
            ids = torch.randint(0, 100, (16,))
            return {"input_ids": ids, "labels": ids}

    def gpt2(freeze_embeddings):
        torch.manual_seed(0)
        m = GPT2LMHeadModel(GPT2Config(vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=2))
        if freeze_embeddings:
            m.transformer.wte.requires_grad_(False)
            m.transformer.wpe.requires_grad_(False)
        return m

    def targs(max_steps):
        return TrainingArguments(
            output_dir=tmp,
            max_steps=max_steps,
            save_steps=2,
            per_device_train_batch_size=4,
            report_to=[],
            use_cpu=True,
            disable_tqdm=True,
            logging_steps=1,
        )

    Trainer(model=gpt2(False), args=targs(2), train_dataset=Tokens()).train()
    print("resuming from the last checkpoint with the embeddings frozen", flush=True)
    Trainer(model=gpt2(True), args=targs(4), train_dataset=Tokens()).train(resume_from_checkpoint=True)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--frozen", action="store_true")
    g.add_argument("--groups", action="store_true")
    g.add_argument("--shape-swap", action="store_true")
    g.add_argument("--lightning", action="store_true")
    g.add_argument("--hf-trainer", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)

    with tempfile.TemporaryDirectory() as tmp:
        if args.lightning:
            lightning_resume(tmp)
            return
        if args.hf_trainer:
            hf_trainer_resume(tmp)
            return
        path = os.path.join(tmp, "ckpt.pt")
        model = Net()
        opt = torch.optim.AdamW(model.named_parameters() if args.fixed else model.parameters(), lr=1e-3)
        step(model, opt)
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 1}, path)
        saved = opt.state_dict()["param_groups"]
        print(f"saved: {len(saved)} group(s) with {[len(g['params']) for g in saved]} tensors", flush=True)

        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        if args.groups:
            model = Net()
            opt = torch.optim.AdamW(decay_groups(model), lr=1e-3)
        elif args.frozen:
            model = Net()
            model.embed.requires_grad_(False)
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
        elif args.shape_swap:
            model = Net(hidden=6)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        else:
            model = Net(extra_layer=True)  # architecture changed between save and resume
            opt = torch.optim.AdamW(model.named_parameters() if args.fixed else model.parameters(), lr=1e-3)
        now = opt.state_dict()["param_groups"]
        print(f"resume: {len(now)} group(s) with {[len(g['params']) for g in now]} tensors", flush=True)

        if args.fixed:
            missing = model.load_state_dict(ckpt["model"], strict=False)
            print("model:", missing, flush=True)
            old_names = [g.get("param_names") for g in ckpt["optimizer"]["param_groups"]]
            new_names = [g.get("param_names") for g in now]
            if old_names == new_names:
                opt.load_state_dict(ckpt["optimizer"])
            else:
                added = sorted(
                    set(itertools.chain.from_iterable(new_names))
                    - set(itertools.chain.from_iterable(old_names))
                )
                print(
                    f"optimizer state NOT restored: parameters changed (new: {added}); "
                    "starting with fresh Adam moments",
                    flush=True,
                )
            step(model, opt)
            print("step 2 done", flush=True)
            return
        if not args.shape_swap:
            model.load_state_dict(ckpt["model"], strict=False)
        opt.load_state_dict(ckpt["optimizer"])
        print("optimizer state loaded", flush=True)
        step(model, opt)


if __name__ == "__main__":
    main()
