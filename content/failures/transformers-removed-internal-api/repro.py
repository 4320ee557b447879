"""Code written against transformers internals that later releases removed.

Run: python repro.py

CPU only, about 3 s. Each variant runs one import line that real remote-code models and
older libraries contain:

    python repro.py
        from transformers.utils import is_torch_fx_available      (modeling_deepseek.py style
        remote code; present up to 4.57, removed in 5.0)
    python repro.py --name shard_checkpoint
        from transformers.modeling_utils import shard_checkpoint  (removed after 4.46)
    python repro.py --name top_k_top_p_filtering
        from transformers import top_k_top_p_filtering            (removed after 4.38; old trl)
    python repro.py --name is_flash_attn_available
        from transformers.utils import is_flash_attn_available    (removed after 4.38)
    python repro.py --fixed
        the replacements that exist in current releases; exit code 0.

Every variant except --fixed exits non-zero on transformers 5.x. Captured output is in logs/.
"""

import argparse

import transformers

IMPORTS = {
    "is_torch_fx_available": "from transformers.utils import is_torch_fx_available",
    "shard_checkpoint": "from transformers.modeling_utils import shard_checkpoint",
    "top_k_top_p_filtering": "from transformers import top_k_top_p_filtering",
    "is_flash_attn_available": "from transformers.utils import is_flash_attn_available",
}

p = argparse.ArgumentParser()
g = p.add_mutually_exclusive_group()
g.add_argument("--name", choices=sorted(IMPORTS), default="is_torch_fx_available")
g.add_argument("--fixed", action="store_true")
args = p.parse_args()

print("transformers", transformers.__version__, flush=True)
if args.fixed:
    from huggingface_hub import split_torch_state_dict_into_shards  # replaces shard_checkpoint
    from transformers.utils import is_flash_attn_2_available  # replaces is_flash_attn_available

    print(
        "replacements import fine:",
        split_torch_state_dict_into_shards.__name__,
        is_flash_attn_2_available.__name__,
    )
else:
    exec(IMPORTS[args.name])
    print("imported", args.name)
