"""A state_dict saved from a wrapper (DDP, DataParallel, torch.compile, a LightningModule) has every key
prefixed; loading it into the bare model (or the reverse) fails with Missing/Unexpected key(s).

Run: python repro.py

CPU only, one process (DDP over gloo with world_size=1), each variant takes 2-6 s.

    python repro.py
        Training saved ddp_model.state_dict(); the evaluation code loads it into the bare model:
        'Unexpected key(s) in state_dict: "module.0.weight", ...' next to 'Missing key(s) ... "0.weight"'.
    python repro.py --into-ddp
        The reverse: a bare model.state_dict() loaded into the DDP wrapper on resume:
        'Missing key(s) in state_dict: "module.0.weight", ...'.
    python repro.py --compile
        torch.compile(model).state_dict() loaded into the bare model: "_orig_mod." keys.
    python repro.py --into-compiled
        The reverse: a bare state_dict loaded into the torch.compile wrapper (OptimizedModule):
        'Missing key(s) in state_dict: "_orig_mod.0.weight", ...'.
    python repro.py --lightning
        checkpoint["state_dict"] of a Lightning .ckpt loaded into the plain nn.Module that the
        LightningModule holds as self.model: "model." keys. Needs lightning (verified with 2.6.6).
    python repro.py --strict-false
        The same DDP checkpoint with strict=False: no error, nothing loaded. Prints the
        _IncompatibleKeys result and whether the weights changed. Exit code 0.
    python repro.py --fixed
        Strips the prefix with torch.nn.modules.utils.consume_prefix_in_state_dict_if_present and
        loads with strict=True: "<All keys matched successfully>". Exit code 0.

The default, --into-ddp, --compile, --into-compiled and --lightning exit with code 1.
"""

import argparse
import os
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def train_one_step(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(16, 4)).pow(2).mean().backward()
    opt.step()


def lightning_state_dict(tmp):
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader, TensorDataset

    class LitClassifier(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = make_model()

        def training_step(self, batch, batch_idx):
            return self.model(batch[0]).pow(2).mean()

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    trainer = pl.Trainer(
        max_epochs=1,
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(LitClassifier(), DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4))
    path = os.path.join(tmp, "epoch0.ckpt")
    trainer.save_checkpoint(path)
    return torch.load(path, map_location="cpu")["state_dict"]


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--into-ddp", action="store_true")
    g.add_argument("--compile", action="store_true")
    g.add_argument("--into-compiled", action="store_true")
    g.add_argument("--lightning", action="store_true")
    g.add_argument("--strict-false", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ckpt.pt")
        if not (args.lightning or args.compile or args.into_compiled):
            dist.init_process_group("gloo", init_method=f"file://{tmp}/store", rank=0, world_size=1)

        if args.lightning:
            sd = lightning_state_dict(tmp)
        elif args.compile:
            compiled = torch.compile(make_model())
            sd = compiled.state_dict()
        elif args.into_compiled:
            compiled = torch.compile(make_model())
            print("loading a bare state_dict into the compiled model", flush=True)
            compiled.load_state_dict(make_model().state_dict())
            return
        elif args.into_ddp:
            bare = make_model()
            train_one_step(bare)
            torch.save(bare.state_dict(), path)
            ddp_model = DDP(make_model())
            print("resuming into the DDP wrapper, keys in file:", list(torch.load(path))[:2], flush=True)
            ddp_model.load_state_dict(torch.load(path, map_location="cpu"))
            return
        else:
            ddp_model = DDP(make_model())
            train_one_step(ddp_model)
            torch.save(ddp_model.state_dict(), path)  # the bug: the wrapper's state_dict, not .module's
            dist.destroy_process_group()  # training is over; evaluation runs without a process group
            sd = torch.load(path, map_location="cpu")
        print("keys in checkpoint:", list(sd)[:2], "...", flush=True)

        model = make_model()
        before = [t.clone() for t in model.state_dict().values()]
        if args.strict_false:
            result = model.load_state_dict(sd, strict=False)
            print(result, flush=True)
            unchanged = all(
                torch.equal(a, b) for a, b in zip(before, model.state_dict().values(), strict=True)
            )
            print(f"weights unchanged after load: {unchanged}", flush=True)
        elif args.fixed:
            for prefix in ("module.", "_orig_mod.", "model."):
                torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, prefix)
            print(model.load_state_dict(sd, strict=True), flush=True)
        else:
            model.load_state_dict(sd)  # strict=True by default


if __name__ == "__main__":
    main()
