"""trust_remote_code: transformers refuses a modeling file whose top-level imports are missing.

Run: python repro.py

CPU only, a few seconds, no network. Builds a tiny model folder whose config.json has an
auto_map pointing at its own modeling_tiny.py (as Hub repos with custom code do), then loads
it with AutoModelForCausalLM.from_pretrained(..., trust_remote_code=True).

    python repro.py
        modeling_tiny.py does `import flash_attn` at top level (not installed)
        -> ImportError: This modeling file requires the following packages that were not
           found in your environment: flash_attn. Run `pip install flash_attn`
    python repro.py --broken
        a flash_attn package is importable but its import fails with an undefined symbol
        (a stub standing in for a wheel built for another torch): on transformers >= 4.45
        the original ImportError is re-raised instead of the 'not found' message
    python repro.py --guarded
        the same import inside `if is_flash_attn_2_available():` (how current remote code
        does it): transformers skips it, the model loads, exit code 0.

Every variant except --guarded exits non-zero. Captured output is in logs/.
"""

import argparse
import json
import os
import sys
import tempfile
import textwrap

p = argparse.ArgumentParser()
g = p.add_mutually_exclusive_group()
g.add_argument("--broken", action="store_true")
g.add_argument("--guarded", action="store_true")
args = p.parse_args()

work = tempfile.mkdtemp(prefix="remote-code-")
os.environ["HF_MODULES_CACHE"] = os.path.join(work, "modules")
os.environ["HF_HUB_OFFLINE"] = "1"

if args.broken:
    stub = os.path.join(work, "site", "flash_attn")
    os.makedirs(stub)
    with open(os.path.join(stub, "__init__.py"), "w") as f:
        f.write(
            "raise ImportError('/usr/lib/python3/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c104cuda9SetDeviceEi')\n"
        )
    sys.path.insert(0, os.path.join(work, "site"))

import torch
import transformers
from transformers import AutoModelForCausalLM

print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)

repo = os.path.join(work, "tiny-remote-model")
os.makedirs(repo)
config = {
    "model_type": "tiny-remote",
    "architectures": ["TinyForCausalLM"],
    "auto_map": {
        "AutoConfig": "configuration_tiny.TinyConfig",
        "AutoModelForCausalLM": "modeling_tiny.TinyForCausalLM",
    },
    "vocab_size": 64,
    "hidden_size": 16,
}
with open(os.path.join(repo, "config.json"), "w") as f:
    json.dump(config, f)
with open(os.path.join(repo, "configuration_tiny.py"), "w") as f:
    f.write(
        textwrap.dedent("""\
        from transformers import PretrainedConfig


        class TinyConfig(PretrainedConfig):
            model_type = "tiny-remote"

            def __init__(self, vocab_size=64, hidden_size=16, **kwargs):
                self.vocab_size = vocab_size
                self.hidden_size = hidden_size
                super().__init__(**kwargs)
        """)
    )

if args.guarded:
    flash_import = (
        "from transformers.utils import is_flash_attn_2_available\n\n"
        "if is_flash_attn_2_available():\n"
        "    from flash_attn import flash_attn_func\n"
    )
else:
    flash_import = "import flash_attn\n"

with open(os.path.join(repo, "modeling_tiny.py"), "w") as f:
    f.write(
        "import torch\nfrom einops import rearrange\n"
        + flash_import
        + textwrap.dedent("""\
        from transformers import PreTrainedModel

        from .configuration_tiny import TinyConfig


        class TinyForCausalLM(PreTrainedModel):
            config_class = TinyConfig

            def __init__(self, config):
                super().__init__(config)
                self.embed = torch.nn.Embedding(config.vocab_size, config.hidden_size)
                self.lm_head = torch.nn.Linear(config.hidden_size, config.vocab_size)
                self.post_init()

            def forward(self, input_ids):
                h = rearrange(self.embed(input_ids), "b t d -> b t d")
                return self.lm_head(h)
        """)
    )

from safetensors.torch import save_file

g = torch.Generator().manual_seed(0)
save_file(
    {
        "embed.weight": torch.randn(64, 16, generator=g),
        "lm_head.weight": torch.randn(64, 16, generator=g),
        "lm_head.bias": torch.zeros(64),
    },
    os.path.join(repo, "model.safetensors"),
    metadata={"format": "pt"},
)

model = AutoModelForCausalLM.from_pretrained(repo, trust_remote_code=True)
print("loaded", type(model).__name__, sum(p.numel() for p in model.parameters()), "parameters")
