import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 1)

    def training_step(self, b, i):
        x, y = b
        return torch.nn.functional.mse_loss(self.l(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    ds = TensorDataset(torch.randn(32, 4), torch.randn(32, 1))
    trainer = L.Trainer(
        accelerator="cpu",
        devices=2,
        num_nodes=1,
        strategy="ddp",
        max_epochs=1,
        logger=False,
        enable_checkpointing=False,
    )
    trainer.fit(M(), DataLoader(ds, batch_size=8))
