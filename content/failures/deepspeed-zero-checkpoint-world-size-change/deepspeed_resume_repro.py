"""DeepSpeed ZeRO: a checkpoint saved by 2 data-parallel ranks, resumed by 1 rank.

Not named repro.py on purpose: it needs DeepSpeed (verified with deepspeed 0.19.8 on the torch 2.13.0
CPU build; DeepSpeed picks its CPU accelerator and this script uses the gloo backend), which the
project's CI does not install. The captured logs of this bundle come from it.

    pip install deepspeed        # check with --dry-run first that pip keeps your torch
    python deepspeed_resume_repro.py [--stage 2|3] [--mode fail|no-optimizer|universal|fp32]

Each run first trains one step with `torchrun --nproc_per_node=2` and saves with
engine.save_checkpoint (one zero_pp_rank_<r>_..._optim_states.pt per rank), then:

    --mode fail          (default) resume with `torchrun --nproc_per_node=1`: ZeRORuntimeException
                         "The checkpoint being loaded used a DP world size of 2 but the current world
                         size is 1. Automatic adjustment of ZeRO's optimizer state partitioning with a
                         new world size is not currently supported."  Exit code 1.
    --mode no-optimizer  the same resume with load_optimizer_states=False, load_lr_scheduler_states=False:
                         weights load (checked against zero_to_fp32), optimizer starts fresh. Exit 0.
    --mode universal     python -m deepspeed.checkpoint.ds_to_universal --inject_missing_state, then
                         resume with {"checkpoint": {"load_universal": true}}: optimizer state is
                         re-partitioned for 1 rank. Exit 0.
    --mode fp32          zero_to_fp32.py consolidates the shards into pytorch_model.bin. Exit 0.

The first run JIT-compiles DeepSpeed's shm communication op (about a minute); later runs take 10-20 s.
"""

import argparse
import os
import subprocess
import sys
import tempfile

WORKER_ENV = "DENPEX_DS_WORKER"


def worker(action, stage, ckpt):
    import deepspeed
    import torch
    import torch.nn as nn

    deepspeed.init_distributed(dist_backend="gloo")
    torch.manual_seed(0 if action == "save" else 123)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    config = {
        "train_micro_batch_size_per_gpu": 2,
        "gradient_accumulation_steps": 1,
        "zero_optimization": {"stage": stage},
        "zero_allow_untested_optimizer": True,
    }
    if action == "universal":
        config["checkpoint"] = {"load_universal": True}
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=config)
    rank = torch.distributed.get_rank()
    world = torch.distributed.get_world_size()
    if action == "save":
        loss = engine(torch.randn(2, 16)).sum()
        engine.backward(loss)
        engine.step()
        engine.save_checkpoint(ckpt, tag="global_step1")
        if rank == 0:
            print(
                f"saved ZeRO-{stage} checkpoint with world size {world}: "
                f"{sorted(os.listdir(os.path.join(ckpt, 'global_step1')))}",
                flush=True,
            )
        return
    print(f"rank {rank}: resuming ZeRO-{stage} from {ckpt} with world size {world}", flush=True)
    if action == "fail":
        engine.load_checkpoint(ckpt, tag="global_step1")
    elif action == "no-optimizer":
        path, _ = engine.load_checkpoint(
            ckpt, tag="global_step1", load_optimizer_states=False, load_lr_scheduler_states=False
        )
        print(f"loaded weights only from {path}; optimizer state starts fresh", flush=True)
    elif action == "universal":
        path, _ = engine.load_checkpoint(ckpt)  # tag from 'latest_universal'
        print(f"loaded universal checkpoint {path}; global_steps={engine.global_steps}", flush=True)


def torchrun(nproc, action, stage, ckpt):
    env = dict(os.environ, **{WORKER_ENV: f"{action}:{stage}:{ckpt}"})
    cmd = ["torchrun", "--standalone", f"--nproc_per_node={nproc}", os.path.abspath(__file__)]
    print("$ " + " ".join(cmd) + f"   # {action}", flush=True)
    return subprocess.run(cmd, env=env).returncode


def main():
    if WORKER_ENV in os.environ:
        action, stage, ckpt = os.environ[WORKER_ENV].split(":", 2)
        worker(action, int(stage), ckpt)
        return 0
    p = argparse.ArgumentParser()
    p.add_argument("--stage", type=int, default=2, choices=[1, 2, 3])
    p.add_argument("--mode", default="fail", choices=["fail", "no-optimizer", "universal", "fp32"])
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "ds_ckpt")
        if torchrun(2, "save", args.stage, ckpt) != 0:
            return 2
        if args.mode == "fp32":
            cmd = [
                sys.executable,
                os.path.join(ckpt, "zero_to_fp32.py"),
                ckpt,
                os.path.join(tmp, "fp32"),
                "-t",
                "global_step1",
            ]
            rc = subprocess.run(cmd).returncode
            print(sorted(os.listdir(os.path.join(tmp, "fp32"))), flush=True)
            return rc
        if args.mode == "universal":
            cmd = [
                sys.executable,
                "-m",
                "deepspeed.checkpoint.ds_to_universal",
                "--input_folder",
                os.path.join(ckpt, "global_step1"),
                "--output_folder",
                os.path.join(ckpt, "global_step1_universal"),
                "--inject_missing_state",
            ]
            if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
                return 3
            print(f"converted to {sorted(os.listdir(ckpt))}", flush=True)
        return torchrun(1, args.mode, args.stage, ckpt)


if __name__ == "__main__":
    sys.exit(main())
