"""from_pretrained with a device_map while a DeepSpeed ZeRO-3 config is active.

Run: python repro.py

CPU only, one process, a tiny randomly initialised Llama saved to a temporary folder
(nothing is downloaded). The ZeRO-3 config is registered with HfDeepSpeedConfig, which is
what TrainingArguments(deepspeed=...) and Accelerate's DeepSpeed plugin do for you.

    python repro.py
        device_map="auto" (the usual inference/QLoRA recipe): from_pretrained raises
        "DeepSpeed Zero-3 is not compatible with passing a `device_map`." in a few seconds.
    python repro.py --per-rank-map
        device_map={"": "cpu"}, the shape of the {"": local_rank} map DDP recipes use: same error.
    python repro.py --fixed
        No device_map: the model is built inside deepspeed.zero.Init, each parameter is
        partitioned (local shape torch.Size([0]), full shape in ds_shape). Initialises a
        one-process gloo group itself; the first run can spend a minute building DeepSpeed's
        shared-memory comm op.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM
from transformers.integrations import HfDeepSpeedConfig

DS_CONFIG = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3}}


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--per-rank-map", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "tiny-llama"
        LlamaForCausalLM(cfg).save_pretrained(folder)

        dschf = HfDeepSpeedConfig(DS_CONFIG)  # keep a reference: transformers holds only a weakref
        print(f"ZeRO-3 registered: {dschf.is_zero3()}", flush=True)

        if args.fixed:
            for k, v in {
                "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": "29533",
                "RANK": "0",
                "LOCAL_RANK": "0",
                "WORLD_SIZE": "1",
            }.items():
                os.environ.setdefault(k, v)
            model = AutoModelForCausalLM.from_pretrained(folder)
            w = model.model.layers[0].self_attn.q_proj.weight
            print(
                f"loaded under zero.Init: local shape {tuple(w.shape)}, full shape {tuple(w.ds_shape)}",
                flush=True,
            )
            return 0

        device_map = {"": "cpu"} if args.per_rank_map else "auto"
        print(f"from_pretrained(..., device_map={device_map!r})", flush=True)
        AutoModelForCausalLM.from_pretrained(folder, device_map=device_map)
    return 0


if __name__ == "__main__":
    sys.exit(main())
