"""CPU training with coloured (ANSI) log lines from colorlog.

force_color=True keeps the escape codes when output goes to a file or pipe,
as it does under CI log capture. Includes the warnings a healthy CPU run often
prints: the deprecated torch.cuda.amp.GradScaler on a machine without CUDA,
and a logged WARNING when gradient clipping kicks in.
"""

import logging
import math
import sys
import warnings

import colorlog
import torch
import torch.nn as nn


def setup_logging():
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(
        colorlog.ColoredFormatter(
            "%(log_color)s%(asctime)s %(levelname)-8s%(reset)s %(cyan)s%(name)s%(reset)s %(message)s",
            log_colors={
                "DEBUG": "white",
                "INFO": "green",
                "WARNING": "yellow",
                "ERROR": "red",
                "CRITICAL": "red,bg_white",
            },
            force_color=True,
        )
    )
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    logging.captureWarnings(True)  # route warnings.warn through logging (py.warnings)


def main():
    setup_logging()
    log = logging.getLogger("trainer")
    log.info(
        "torch %s, cuda available: %s, threads: %d",
        torch.__version__,
        torch.cuda.is_available(),
        torch.get_num_threads(),
    )
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(1024, 20, generator=gen)
    y = torch.sin(x[:, :1] * 2) + x[:, 1:2] ** 2 * 0.5
    model = nn.Sequential(nn.Linear(20, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=60, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        # common in code written for GPUs and run on a CPU box: deprecated API, and disabled
        scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
    log.debug("GradScaler enabled=%s", scaler.is_enabled())
    best = math.inf
    for step in range(1, 241):
        idx = torch.randint(0, 1024, (64,), generator=gen)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(x[idx])
        loss = nn.functional.mse_loss(pred.float(), y[idx])
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        if gnorm > 1.0 and step % 10 == 0:
            log.warning("step %d: grad norm %.3f clipped to 1.0", step, gnorm)
        scaler.step(opt)
        scaler.update()
        sched.step()
        if True:  # every step
            log.info(
                "step %4d loss %.5f grad_norm %.4f lr %.2e", step, loss.item(), gnorm, sched.get_last_lr()[0]
            )
        if step % 40 == 0:
            with torch.no_grad():
                full = nn.functional.mse_loss(model(x), y).item()
            if full < best:
                log.info("step %d: new best full-data loss %.5f (was %.5f)", step, full, best)
                best = full
            else:
                log.debug("step %d: full-data loss %.5f (best %.5f)", step, full, best)
    log.info("finished: best loss %.5f", best)


if __name__ == "__main__":
    main()
