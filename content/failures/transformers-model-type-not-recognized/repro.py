"""A config.json whose model_type the installed transformers does not know.

Run: python repro.py

CPU only, about 3 s, no network: the script writes a model folder with only a config.json
and loads it with AutoConfig / AutoModelForCausalLM, as from_pretrained does for a Hub repo.

    python repro.py
        model_type "qwen9_moe" (an architecture newer than any installed release)
        -> ValueError: The checkpoint you are trying to load has model type `qwen9_moe` but
           Transformers does not recognize this architecture. ... (transformers >= 4.37;
           4.36 and older raise a bare KeyError: 'qwen9_moe')
    python repro.py --model-type qwen2
        a type that exists in newer releases only on old installs (qwen2 arrived in 4.37,
        qwen3 in 4.51): pass any name to see what your install does
    python repro.py --no-model-type
        config.json without model_type (an adapter folder, a wrong directory)
        -> ValueError: Unrecognized model in ... Should have a `model_type` key in its config.json
    python repro.py --fixed
        model_type "llama" (known to every release): loads a tiny random model, exit code 0.

Every variant except --fixed (and known types) exits non-zero. Captured output is in logs/.
"""

import argparse
import json
import os
import tempfile

import transformers
from transformers import AutoConfig, AutoModelForCausalLM

p = argparse.ArgumentParser()
g = p.add_mutually_exclusive_group()
g.add_argument("--model-type", default="qwen9_moe")
g.add_argument("--no-model-type", action="store_true")
g.add_argument("--fixed", action="store_true")
args = p.parse_args()

print("transformers", transformers.__version__, flush=True)
folder = os.path.join(tempfile.mkdtemp(prefix="ckpt-"), "Qwen9-MoE-A1B")
os.makedirs(folder)
config = {
    "architectures": ["Qwen9MoeForCausalLM"],
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_hidden_layers": 1,
    "num_key_value_heads": 4,
    "vocab_size": 128,
}
if args.fixed:
    config.update(model_type="llama", architectures=["LlamaForCausalLM"])
elif not args.no_model_type:
    config["model_type"] = args.model_type
with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump(config, f)

cfg = AutoConfig.from_pretrained(folder)
model = AutoModelForCausalLM.from_config(cfg)
print("built", type(model).__name__, sum(p.numel() for p in model.parameters()), "parameters")
