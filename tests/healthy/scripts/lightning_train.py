"""PyTorch Lightning on CPU, CSV logger, ModelCheckpoint, LearningRateMonitor,
validation each epoch.

  python lightning_train.py OUT --devices 2 --strategy ddp --progress tqdm
      DDP over 2 CPU processes (gloo), the classic TQDM progress bar
      (passed explicitly: Lightning picks the Rich bar by default when `rich`
      is installed).
  python lightning_train.py OUT --devices 1 --strategy auto --progress default
      single process, Lightning's default progress bar (Rich here).
"""

import argparse
import tempfile

import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class LitRegressor(L.LightningModule):
    def __init__(self, lr=5e-3):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self(x), y)
        self.log("val_loss", loss, prog_bar=True, sync_dist=True)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs)
        return {"optimizer": opt, "lr_scheduler": sched}

    def on_train_epoch_end(self):
        m = {k: round(float(v), 5) for k, v in self.trainer.callback_metrics.items()}
        print(
            f"[rank {self.global_rank}] epoch {self.current_epoch} finished, global_step={self.global_step} metrics={m}"
        )


def make_ds(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    y = 0.5 * x[:, :4].sum(1, keepdim=True) + torch.tanh(x[:, 4:5] * x[:, 5:6])
    return TensorDataset(x, y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=None)
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--strategy", default="ddp")
    ap.add_argument("--progress", choices=["tqdm", "default"], default="tqdm")
    ap.add_argument("--epochs", type=int, default=8)
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="lightning-")
    L.seed_everything(7)
    train = DataLoader(make_ds(4096, 0), batch_size=64, shuffle=True)
    val = DataLoader(make_ds(512, 1), batch_size=128)
    trainer = L.Trainer(
        accelerator="cpu",
        devices=args.devices,
        strategy=args.strategy,
        max_epochs=args.epochs,
        default_root_dir=out,
        log_every_n_steps=10,
        logger=L.pytorch.loggers.CSVLogger(out, name="csv"),
        callbacks=([L.pytorch.callbacks.TQDMProgressBar(refresh_rate=4)] if args.progress == "tqdm" else [])
        + [
            L.pytorch.callbacks.ModelCheckpoint(monitor="val_loss", save_top_k=1),
            L.pytorch.callbacks.LearningRateMonitor(),
        ],
    )
    model = LitRegressor()
    trainer.fit(model, train, val)
    if trainer.global_rank == 0:
        print("best checkpoint:", trainer.checkpoint_callback.best_model_path)
        print("best val_loss:", float(trainer.checkpoint_callback.best_model_score))


if __name__ == "__main__":
    main()
