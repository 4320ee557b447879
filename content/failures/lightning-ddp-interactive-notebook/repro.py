import lightning as L
import torch


class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 1)

    def training_step(self, b, i):
        x, y = b
        return torch.nn.functional.mse_loss(self.l(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


import sys

strategy = sys.argv[1] if len(sys.argv) > 1 else "ddp"
trainer = L.Trainer(
    accelerator="cpu",
    devices=2,
    strategy=strategy,
    max_epochs=1,
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
)
print("strategy:", type(trainer.strategy).__name__, getattr(trainer.strategy, "_start_method", None))
