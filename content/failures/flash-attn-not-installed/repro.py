"""attn_implementation="flash_attention_2" requested without the flash_attn package.

Run: python repro.py

CPU only, one process, a few seconds, no download (tiny random LlamaForCausalLM built from a
config, 2 layers, hidden 32).

    python repro.py
        from_config(..., attn_implementation="flash_attention_2") in an environment without
        flash_attn: ImportError "FlashAttention2 has been toggled on, but it cannot be used due
        to the following error: ..." while the model is constructed. Exit 1.
    python repro.py --fallback
        Ask for flash_attention_2 only when the package is importable, otherwise use "sdpa"
        (PyTorch's built-in scaled_dot_product_attention). Exit 0.
"""

import argparse
import importlib.util

import torch
from transformers import AutoModelForCausalLM, LlamaConfig


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fallback", action="store_true")
    args = p.parse_args()

    has_flash_attn = importlib.util.find_spec("flash_attn") is not None
    print(f"flash_attn importable: {has_flash_attn}; cuda available: {torch.cuda.is_available()}", flush=True)
    attn = "flash_attention_2"
    if args.fallback and not (has_flash_attn and torch.cuda.is_available()):
        attn = "sdpa"
    cfg = LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
    )
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation=attn)
    print(f"model built with attn_implementation={model.config._attn_implementation}")


if __name__ == "__main__":
    main()
