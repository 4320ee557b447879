"""HF Accelerate training loop, launched with `accelerate launch --num_processes 2 --cpu`
(no config file, so accelerate prints its defaults warning). Uses accelerate's
multi-process logger, tqdm on the main process only, gather_for_metrics for eval,
and accelerator.save_state at the end.
"""

import logging
import sys
import tempfile

import torch
import torch.nn as nn
from accelerate import Accelerator
from accelerate.logging import get_logger
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, TensorDataset
from tqdm.auto import tqdm

logger = get_logger(__name__)


def make_ds(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 24, generator=g)
    y = (x[:, :12].sum(1) > x[:, 12:].sum(1)).long()
    return TensorDataset(x, y)


def main():
    logging.basicConfig(
        format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
        datefmt="%m/%d/%Y %H:%M:%S",
        level=logging.INFO,
    )
    # cpu=True: with LOCAL_RANK set by the launcher this selects MULTI_CPU (gloo)
    accelerator = Accelerator(cpu=True)
    logger.info(accelerator.state, main_process_only=False)
    set_seed(0)
    train_dl = DataLoader(make_ds(2048, 0), batch_size=32, shuffle=True)
    eval_dl = DataLoader(make_ds(512, 1), batch_size=64)
    model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    model, opt, train_dl, eval_dl = accelerator.prepare(model, opt, train_dl, eval_dl)
    logger.info("***** Running training *****")
    logger.info(
        "  Num processes = %d, batches per process per epoch = %d", accelerator.num_processes, len(train_dl)
    )
    epochs = 5
    bar = tqdm(range(epochs * len(train_dl)), disable=not accelerator.is_local_main_process, mininterval=0.2)
    step = 0
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            out = model(xb)
            loss = nn.functional.cross_entropy(out, yb)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            step += 1
            bar.update(1)
            if step % 2 == 0:
                logger.info("epoch %d step %d loss %.4f", epoch, step, loss.item(), main_process_only=False)
        model.eval()
        correct, total = 0, 0
        for xb, yb in eval_dl:
            with torch.no_grad():
                pred = model(xb).argmax(-1)
            pred, yb = accelerator.gather_for_metrics((pred, yb))
            correct += (pred == yb).sum().item()
            total += yb.numel()
        accelerator.print(f"epoch {epoch}: eval accuracy {correct / total:.4f} over {total} samples")
    bar.close()
    accelerator.wait_for_everyone()
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="accel-")
    accelerator.save_state(out)
    logger.info("state saved to %s", out)
    accelerator.end_training()


if __name__ == "__main__":
    main()
