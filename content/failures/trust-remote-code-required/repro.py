"""A model folder with custom code (auto_map in config.json) loaded without trust_remote_code.

Run: python repro.py

CPU only, one process, 4-8 s (importing transformers), no network: the "repository" is a tiny
model saved into a temporary folder. Verified with transformers 5.24.0 and 4.46.3.

    python repro.py
        AutoModel.from_pretrained(folder) with stdin not a terminal (batch job, CI, nohup):
        the [y/N] prompt cannot be answered, input() hits EOF and transformers raises
        "ValueError: The repository <folder> contains custom code which must be executed to
        correctly load the model. ... Please pass the argument `trust_remote_code=True` ...".
    python repro.py --fixed
        Lists the files that will run (auto_map and the .py files), then loads with
        trust_remote_code=True. Exit code 0.

The default variant exits with code 1.
"""

import argparse
import json
import os
import sys
import tempfile
import textwrap

WORK = tempfile.mkdtemp(prefix="trc-")
os.environ["HF_MODULES_CACHE"] = os.path.join(WORK, "modules")  # keep the copied code out of ~/.cache

CUSTOM_CODE = textwrap.dedent(
    """
    import torch
    from transformers import PretrainedConfig, PreTrainedModel


    class TinyCustomConfig(PretrainedConfig):
        model_type = "tiny-custom"

        def __init__(self, hidden=8, **kw):
            self.hidden = hidden
            super().__init__(**kw)


    class TinyCustomModel(PreTrainedModel):
        config_class = TinyCustomConfig

        def __init__(self, config):
            super().__init__(config)
            self.proj = torch.nn.Linear(config.hidden, config.hidden)
            self.post_init()

        def forward(self, x):
            return self.proj(x)
    """
)


def make_repo():
    src = os.path.join(WORK, "src")
    os.makedirs(src)
    with open(os.path.join(src, "tiny_custom.py"), "w") as f:
        f.write(CUSTOM_CODE)
    sys.path.insert(0, src)
    from tiny_custom import TinyCustomConfig, TinyCustomModel

    TinyCustomConfig.register_for_auto_class()
    TinyCustomModel.register_for_auto_class("AutoModel")
    repo = os.path.join(WORK, "tiny-custom-model")
    TinyCustomModel(TinyCustomConfig()).save_pretrained(repo)
    sys.path.remove(src)
    del sys.modules["tiny_custom"]
    return repo


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    import transformers
    from transformers import AutoModel

    print(f"transformers {transformers.__version__}", flush=True)
    repo = make_repo()
    os.chdir(WORK)
    if args.fixed:
        cfg = json.load(open(os.path.join(repo, "config.json")))
        print("auto_map:", cfg["auto_map"])
        print("code files:", sorted(f for f in os.listdir(repo) if f.endswith(".py")))
        model = AutoModel.from_pretrained("./tiny-custom-model", trust_remote_code=True)
        print("loaded", type(model).__name__)
        return
    AutoModel.from_pretrained("./tiny-custom-model")


if __name__ == "__main__":
    main()
