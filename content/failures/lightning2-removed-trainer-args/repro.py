"""Code written for PyTorch Lightning 1.x running on Lightning 2.x.

Run: python repro.py

CPU only, one process, 4-8 s (importing pytorch_lightning). Verified with pytorch-lightning 2.6.6
(errors) and 1.9.5 (deprecation warnings only).

    python repro.py
        pl.Trainer(gpus=1, ...): "TypeError: Trainer.__init__() got an unexpected keyword argument 'gpus'".
    python repro.py --resume
        pl.Trainer(resume_from_checkpoint=...): the same TypeError for 'resume_from_checkpoint'.
    python repro.py --import
        "from pytorch_lightning.utilities.distributed import rank_zero_only" (latent-diffusion style):
        "ModuleNotFoundError: No module named 'pytorch_lightning.utilities.distributed'".
    python repro.py --epoch-end
        A LightningModule that still defines training_epoch_end(outputs): trainer.fit raises
        "NotImplementedError: Support for `training_epoch_end` has been removed in v2.0.0. ...".
    python repro.py --fixed
        accelerator="cpu", devices=1, on_train_epoch_end and fit(ckpt_path=None): one tiny epoch, exit 0.

Every variant except --fixed exits with code 1 on Lightning 2.x.
"""

import argparse
import sys

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class TinyRegressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.layer(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


class OldStyleRegressor(TinyRegressor):
    def training_epoch_end(self, outputs):  # 1.x hook, removed in 2.0
        print("epoch done", len(outputs))


class NewStyleRegressor(TinyRegressor):
    def on_train_epoch_end(self):
        print("epoch done")


def loader():
    x = torch.randn(16, 4)
    return DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--resume", action="store_true")
    g.add_argument("--import", dest="imp", action="store_true")
    g.add_argument("--epoch-end", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    print(f"pytorch_lightning {pl.__version__}, torch {torch.__version__}", flush=True)
    common = dict(
        max_epochs=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    if args.imp:
        from pytorch_lightning.utilities.distributed import rank_zero_only  # noqa: F401

        return
    if args.resume:
        pl.Trainer(resume_from_checkpoint="last.ckpt", **common)
        return
    if args.epoch_end:
        pl.Trainer(accelerator="cpu", devices=1, **common).fit(OldStyleRegressor(), loader())
        return
    if args.fixed:
        pl.Trainer(accelerator="cpu", devices=1, **common).fit(NewStyleRegressor(), loader(), ckpt_path=None)
        sys.exit(0)
    pl.Trainer(gpus=1, **common)


if __name__ == "__main__":
    main()
