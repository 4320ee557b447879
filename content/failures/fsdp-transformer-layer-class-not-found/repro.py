"""FSDP transformer auto-wrap with a layer class name the model does not contain.

Run: python repro.py

CPU only, one process, a few seconds, no GPU and no process group needed: it runs the step
that Accelerator.prepare() performs first under FSDP1, FullyShardedDataParallelPlugin
.set_auto_wrap_policy(model), with the environment variables that `accelerate launch` exports
from the fsdp_config section of its YAML file. The model is a tiny random LlamaForCausalLM.

    python repro.py
        fsdp_transformer_layer_cls_to_wrap: BloomBlock (a recipe written for BLOOM) on Llama.
        ValueError: Could not find the transformer layer class BloomBlock in the model. Exit 1.
    python repro.py --comma-space
        fsdp_transformer_layer_cls_to_wrap: "LlamaDecoderLayer, LlamaMLP". The value is split
        on "," only, so the second name keeps its leading space and is not found. Exit 1.
    python repro.py --custom-module
        A plain nn.Module without _no_split_modules and no class name given. Accelerate <= 0.33
        raised "Could not find the transformer layer class to wrap in the model."; 0.34 and
        later build a policy that wraps nothing. Exit 0 on current releases.
    python repro.py --fixed
        No class name given: Accelerate takes model._no_split_modules (LlamaDecoderLayer). Exit 0.
"""

import argparse
import os

import torch.nn as nn
from accelerate import FullyShardedDataParallelPlugin
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--comma-space", action="store_true")
    g.add_argument("--custom-module", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    # what `accelerate launch --config_file fsdp.yaml` puts into each worker's environment
    os.environ.update(
        ACCELERATE_USE_FSDP="true",
        FSDP_AUTO_WRAP_POLICY="TRANSFORMER_BASED_WRAP",
        FSDP_SYNC_MODULE_STATES="false",  # true needs a GPU device here
        FSDP_CPU_RAM_EFFICIENT_LOADING="false",
    )
    if args.comma_space:
        os.environ["FSDP_TRANSFORMER_CLS_TO_WRAP"] = "LlamaDecoderLayer, LlamaMLP"
    elif args.custom_module or args.fixed:
        os.environ.pop("FSDP_TRANSFORMER_CLS_TO_WRAP", None)
    else:
        os.environ["FSDP_TRANSFORMER_CLS_TO_WRAP"] = "BloomBlock"

    if args.custom_module:
        model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    else:
        cfg = LlamaConfig(
            vocab_size=64,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=4,
        )
        model = LlamaForCausalLM(cfg)
    print("model._no_split_modules =", getattr(model, "_no_split_modules", None), flush=True)
    print("FSDP_TRANSFORMER_CLS_TO_WRAP =", repr(os.environ.get("FSDP_TRANSFORMER_CLS_TO_WRAP")), flush=True)

    plugin = FullyShardedDataParallelPlugin()
    plugin.set_auto_wrap_policy(model)

    policy = plugin.auto_wrap_policy
    classes = getattr(policy, "keywords", {}).get("transformer_layer_cls", set()) if policy else set()
    wrapped = [n for n, m in model.named_modules() if type(m) in classes]
    print(
        f"auto-wrap classes: {sorted(c.__name__ for c in classes)}; FSDP units besides the root: {len(wrapped)}"
    )


if __name__ == "__main__":
    main()
