"""Moving weights that live on the meta device: "Cannot copy out of meta tensor; no data!".

Run: python repro.py

CPU only, one process, a tiny randomly initialised Llama saved to a temporary folder (nothing
is downloaded), a few seconds each.

    python repro.py
        from_pretrained with a device_map that offloads layer 1 to disk: its weights stay on
        the meta device and Accelerate hooks load them per forward. Moving that submodule
        (the way scripts call vision_tower.to(device) or lm_head.cuda()) raises
        NotImplementedError: Cannot copy out of meta tensor; no data!
    python repro.py --whole-model
        model.to("cpu") on the same model: Accelerate's guard raises "You can't move a model
        that has some modules offloaded to cpu or disk." (accelerate >= 0.22).
    python repro.py --empty-init
        The model is built under torch.device("meta") (what init_empty_weights does) and
        moved without loading weights: the same NotImplementedError.
    python repro.py --save-offloaded
        state_dict() of the offloaded model is saved (no error: the file holds meta
        tensors) and loaded into a normal model: load_state_dict fails for every offloaded
        parameter with "... an exception occurred : ('Cannot copy out of meta tensor; no data!',)".
    python repro.py --fixed
        Loads with device_map={"": "cpu"} (everything resident), checks that no parameter is
        on meta, then moves the model; exit code 0.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM

OFFLOAD_MAP = {
    "model.embed_tokens": "cpu",
    "model.layers.0": "cpu",
    "model.layers.1": "disk",
    "model.norm": "cpu",
    "model.rotary_emb": "cpu",
    "lm_head": "cpu",
}


def meta_params(model):
    return [n for n, p in model.named_parameters() if p.device.type == "meta"]


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--whole-model", action="store_true")
    g.add_argument("--empty-init", action="store_true")
    g.add_argument("--save-offloaded", action="store_true")
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

        if args.empty_init:
            with torch.device("meta"):
                model = LlamaForCausalLM(cfg)
            print(f"{len(meta_params(model))} parameters on meta", flush=True)
            model.to("cpu")
            return 0

        if args.fixed:
            model = AutoModelForCausalLM.from_pretrained(folder, device_map={"": "cpu"})
            assert not meta_params(model), meta_params(model)
            model.to("cpu")
            print("no parameter on meta; model moved", flush=True)
            return 0

        model = AutoModelForCausalLM.from_pretrained(
            folder, device_map=OFFLOAD_MAP, offload_folder=str(Path(tmp) / "offload")
        )
        print(f"hf_device_map: {model.hf_device_map}", flush=True)
        print(f"on meta: {meta_params(model)[:3]} ... ({len(meta_params(model))} in all)", flush=True)
        out = model(torch.tensor([[1, 2, 3]]))
        print(f"forward through the hooks works: logits {tuple(out.logits.shape)}", flush=True)

        if args.whole_model:
            model.to("cpu")
        elif args.save_offloaded:
            path = Path(tmp) / "state.pt"
            torch.save(model.state_dict(), path)
            print(f"saved {path.name} without error", flush=True)
            fresh = AutoModelForCausalLM.from_pretrained(folder)
            fresh.load_state_dict(torch.load(path, weights_only=True))
        else:
            model.model.layers[1].to("cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
