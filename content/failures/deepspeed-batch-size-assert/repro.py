"""DeepSpeed batch-size arithmetic checked against the real data-parallel world size.

Run: torchrun --standalone --nproc_per_node=2 repro.py

Needs the deepspeed package (CPU accelerator, gloo backend; no GPU or compiler). Each variant takes
a few seconds.

    torchrun --standalone --nproc_per_node=2 repro.py
        A config written for 4 GPUs (train_batch_size 16 = 2 micro * 2 accumulation * 4 ranks)
        launched on 2 ranks: deepspeed.initialize raises
        "Check batch related parameters ... 16 != 2 * 2 * 2" on every rank.
    torchrun --standalone --nproc_per_node=2 repro.py --derived-zero
        Only train_batch_size (2) and gradient_accumulation_steps (4) given: DeepSpeed derives
        micro = 2 // 2 // 4 = 0 and raises "Micro batch size per gpu: 0 has to be greater than 0".
    torchrun --standalone --nproc_per_node=2 repro.py --fixed
        Gives micro batch and accumulation only; DeepSpeed derives train_batch_size = 2 * 2 * 2 = 8
        and one training step runs; exit code 0.
"""

import os
import sys

os.environ.setdefault("DS_ACCELERATOR", "cpu")

import importlib

import deepspeed
import torch
import torch.distributed as dist

# DeepSpeed's CPU backend JIT-compiles a shared-memory all-reduce op (about 80 s, needs a C++
# compiler) when the communication backend is created. It plays no part in the batch-size
# check, so skip it to keep the reproduction fast.
importlib.import_module("deepspeed.comm.torch").build_shm_op = lambda: None


def main():
    if "--derived-zero" in sys.argv:
        ds_config = {"train_batch_size": 2, "gradient_accumulation_steps": 4}
    elif "--fixed" in sys.argv:
        ds_config = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2}
    else:
        # copied from a run on 4 GPUs
        ds_config = {
            "train_batch_size": 16,
            "train_micro_batch_size_per_gpu": 2,
            "gradient_accumulation_steps": 2,
        }
    ds_config["optimizer"] = {"type": "SGD", "params": {"lr": 0.1}}

    deepspeed.init_distributed(dist_backend="gloo")
    model = torch.nn.Linear(4, 1)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
    if dist.get_rank() == 0:
        print(
            f"train_batch_size={engine.train_batch_size()} "
            f"micro={engine.train_micro_batch_size_per_gpu()} "
            f"accumulation={engine.gradient_accumulation_steps()} "
            f"world_size={dist.get_world_size()}",
            flush=True,
        )
    loss = engine(torch.randn(2, 4)).sum()
    engine.backward(loss)
    engine.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
