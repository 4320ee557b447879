"""safetensors refuses to save two state-dict entries that share storage (tied weights).

Run: python repro.py

CPU only, one process, a tiny randomly initialised Llama with tie_word_embeddings=True (the
default of Llama-3.2-1B, Gemma, Qwen2.5-0.5B), nothing is downloaded, a few seconds.

    python repro.py
        safetensors.torch.save_file(model.state_dict(), path): lm_head.weight and
        model.embed_tokens.weight are the same tensor, so save_file raises
        "Some tensors share memory, this will lead to duplicate memory on disk ...".
    python repro.py --save-model
        safetensors.torch.save_model(model, path) writes one copy and load_model re-ties;
        the reloaded model's two names point at the same storage again.
    python repro.py --save-pretrained
        model.save_pretrained(folder): transformers drops the tied key itself; reloading with
        from_pretrained re-ties from the config. Exit code 0 for both fixes.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_model, save_file, save_model
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM


def tied(model):
    return model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--save-model", action="store_true")
    g.add_argument("--save-pretrained", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(cfg)
    print(f"lm_head tied to embed_tokens: {tied(model)}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.save_model:
            path = Path(tmp) / "model.safetensors"
            save_model(model, str(path))
            fresh = LlamaForCausalLM(cfg)
            load_model(fresh, str(path))
            print(
                f"save_model/load_model: reloaded, tied again: {tied(fresh)}, "
                f"same weights: {torch.equal(fresh.lm_head.weight, model.lm_head.weight)}",
                flush=True,
            )
        elif args.save_pretrained:
            model.save_pretrained(Path(tmp) / "out")
            fresh = AutoModelForCausalLM.from_pretrained(Path(tmp) / "out")
            print(
                f"save_pretrained/from_pretrained: tied again: {tied(fresh)}, "
                f"same weights: {torch.equal(fresh.lm_head.weight, model.lm_head.weight)}",
                flush=True,
            )
        else:
            save_file(model.state_dict(), str(Path(tmp) / "model.safetensors"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
