"""Code written against transformers internals that later releases removed.

Run: python repro.py

CPU only, about 3 s. Each variant runs one import line that real remote-code models and
older libraries contain:

    python repro.py
        from transformers.utils import is_torch_fx_available      (removed in 5.0)
    python repro.py --name is_torch_fx_available_import_utils
        from transformers.utils.import_utils import is_torch_fx_available
                                       (the form in DeepSeek/MiniCPM remote code; removed in 5.0)
    python repro.py --name is_torch_greater_or_equal_than_1_13
        from transformers.pytorch_utils import is_torch_greater_or_equal_than_1_13
                                       (missing only in 4.48.0 and 4.48.1)
    python repro.py --name shard_checkpoint
        from transformers.modeling_utils import shard_checkpoint  (removed in 4.47.0)
    python repro.py --name top_k_top_p_filtering
        from transformers import top_k_top_p_filtering            (removed in 4.39.0; trl < 0.8)
    python repro.py --name is_flash_attn_available
        from transformers.utils import is_flash_attn_available    (removed in 4.39.0; on
                                       4.35-4.38 calling it logs a deprecation warning)
    python repro.py --fixed
        the replacements that exist in current releases; exit code 0.

A removed name exits non-zero with ImportError. Captured output is in logs/.
"""

import argparse

import transformers

IMPORTS = {
    "is_torch_fx_available": "from transformers.utils import is_torch_fx_available as obj",
    "is_torch_fx_available_import_utils": (
        "from transformers.utils.import_utils import is_torch_fx_available as obj"
    ),
    "is_torch_greater_or_equal_than_1_13": (
        "from transformers.pytorch_utils import is_torch_greater_or_equal_than_1_13 as obj"
    ),
    "shard_checkpoint": "from transformers.modeling_utils import shard_checkpoint as obj",
    "top_k_top_p_filtering": "from transformers import top_k_top_p_filtering as obj",
    "is_flash_attn_available": "from transformers.utils import is_flash_attn_available as obj",
}

p = argparse.ArgumentParser()
g = p.add_mutually_exclusive_group()
g.add_argument("--name", choices=sorted(IMPORTS), default="is_torch_fx_available")
g.add_argument("--fixed", action="store_true")
args = p.parse_args()

print("transformers", transformers.__version__, flush=True)
if args.fixed:
    from huggingface_hub import split_torch_state_dict_into_shards  # replaces shard_checkpoint
    from transformers.generation import TopKLogitsWarper, TopPLogitsWarper  # top_k_top_p_filtering
    from transformers.utils import is_flash_attn_2_available  # replaces is_flash_attn_available

    print(
        "replacements import fine:",
        split_torch_state_dict_into_shards.__name__,
        TopKLogitsWarper.__name__,
        TopPLogitsWarper.__name__,
        is_flash_attn_2_available.__name__,
    )
else:
    scope = {}
    exec(IMPORTS[args.name], scope)
    obj = scope["obj"]
    if args.name.startswith("is_"):
        # availability helpers are called the way remote code calls them
        value = obj() if callable(obj) else obj
        print("imported", args.name, "->", value, flush=True)
    else:
        print("imported", args.name)
