"""torch.load's weights_only=True default (PyTorch 2.6+) refuses a checkpoint that pickles Python objects.

Run: python repro.py

CPU only, one process, each variant takes 1-3 s (the Lightning one about 5 s).

    python repro.py
        A training checkpoint dict that also stores the argparse.Namespace of the run.
        torch.load(path) with no weights_only argument raises
        "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded ..."
        ending in "Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default."
    python repro.py --numpy
        The checkpoint holds np.random.get_state() and a numpy float (best metric):
        "GLOBAL numpy._core.multiarray._reconstruct" (numpy 2.x; numpy 1.x prints numpy.core...).
    python repro.py --partial-allowlist
        Same file, loaded inside safe_globals([_reconstruct, ndarray, dtype]) only: the error changes to
        "Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`,
        but got <class 'numpy.dtypes.UInt32DType'>".
    python repro.py --whole-module
        torch.save(model) (the whole nn.Module, not its state_dict): "GLOBAL __main__.TinyNet".
    python repro.py --lightning
        Lightning: save_hyperparameters() with a Namespace argument, then trainer.fit(ckpt_path=...).
        Needs lightning (verified with 2.6.6).
    python repro.py --fixed
        Lists the unsafe globals with torch.serialization.get_unsafe_globals_in_checkpoint, then loads
        both files with weights_only=True inside torch.serialization.safe_globals([...]). Exit code 0.

Every variant except --fixed exits with code 1.
"""

import argparse
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def training_checkpoint(path, with_numpy):
    model = TinyNet()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model(torch.randn(3, 4)).sum().backward()
    opt.step()
    ckpt = {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "epoch": 3,
    }
    if with_numpy:
        ckpt["numpy_rng"] = np.random.get_state()
        ckpt["best_val_loss"] = np.float64(0.4213)
    else:
        ckpt["args"] = argparse.Namespace(lr=1e-3, batch_size=32, run_name="exp7")
    torch.save(ckpt, path)
    print(
        f"saved {path} ({os.path.getsize(path)} bytes), torch {torch.__version__}, numpy {np.__version__}",
        flush=True,
    )


def numpy_allowlist():
    np_core = np._core if hasattr(np, "_core") else np.core  # numpy 2.x / 1.x
    return [
        np_core.multiarray._reconstruct,
        np.ndarray,
        np.dtype,
        type(np.dtype(np.uint32)),  # numpy.dtypes.UInt32DType: the legacy RNG key array
        np_core.multiarray.scalar,
        type(np.dtype(np.float64)),  # numpy.dtypes.Float64DType: the np.float64 scalar
    ]


def lightning_resume(tmp):
    import lightning.pytorch as pl
    from torch.utils.data import DataLoader, TensorDataset

    class LitNet(pl.LightningModule):
        def __init__(self, cfg):
            super().__init__()
            self.save_hyperparameters()  # stores cfg (a Namespace) in the checkpoint
            self.net = TinyNet()

        def training_step(self, batch, batch_idx):
            return self.net(batch[0]).sum()

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    data = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
    opts = dict(
        accelerator="cpu",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    cfg = argparse.Namespace(lr=0.1)
    trainer = pl.Trainer(max_epochs=1, **opts)
    trainer.fit(LitNet(cfg), data)
    path = os.path.join(tmp, "last.ckpt")
    trainer.save_checkpoint(path)
    print(f"saved {path}; resuming with trainer.fit(ckpt_path=...)", flush=True)
    pl.Trainer(max_epochs=2, **opts).fit(LitNet(cfg), data, ckpt_path=path)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--numpy", action="store_true")
    g.add_argument("--partial-allowlist", action="store_true")
    g.add_argument("--whole-module", action="store_true")
    g.add_argument("--lightning", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)
    np.random.seed(0)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ckpt_epoch3.pt")
        if args.lightning:
            lightning_resume(tmp)
        elif args.whole_module:
            torch.save(TinyNet(), path)
            print(f"saved the whole module to {path}", flush=True)
            torch.load(path)
        elif args.numpy or args.partial_allowlist:
            training_checkpoint(path, with_numpy=True)
            if args.partial_allowlist:
                np_core = np._core if hasattr(np, "_core") else np.core
                with torch.serialization.safe_globals(
                    [np_core.multiarray._reconstruct, np.ndarray, np.dtype]
                ):
                    torch.load(path, map_location="cpu")
            else:
                torch.load(path, map_location="cpu")
        elif args.fixed:
            np_path = os.path.join(tmp, "ckpt_numpy.pt")
            training_checkpoint(path, with_numpy=False)
            training_checkpoint(np_path, with_numpy=True)
            for f in (path, np_path):
                print("unsafe globals:", torch.serialization.get_unsafe_globals_in_checkpoint(f), flush=True)
            with torch.serialization.safe_globals([argparse.Namespace, *numpy_allowlist()]):
                a = torch.load(path, map_location="cpu", weights_only=True)
                b = torch.load(np_path, map_location="cpu", weights_only=True)
            model = TinyNet()
            result = model.load_state_dict(a["model"])
            print(
                f"loaded: args={a['args']} epoch={a['epoch']} best={b['best_val_loss']!r} {result}",
                flush=True,
            )
        else:
            training_checkpoint(path, with_numpy=False)
            ckpt = torch.load(path)  # no weights_only: True by default since PyTorch 2.6
            print(ckpt["args"])


if __name__ == "__main__":
    main()
