"""Remote modeling code written for the transformers 4.3x/4.4x cache API, run on a newer transformers.

Run: python repro.py

CPU only, one process, 3-6 s (importing transformers), no model download. Verified with
transformers 5.24.0, 4.51.3 and 4.46.3.

The function below is the cache handling of prepare_inputs_for_generation as it was copied into
many trust_remote_code models (Phi-3, MiniCPM, DeepSeek-V2 style) from the Llama code of 2024.

    python repro.py
        seen_tokens / get_max_length / get_usable_length on a DynamicCache:
        5.x (and >= 4.54): "AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'"
        4.49-4.53:         "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'"
        4.41-4.48:         works, with deprecation warnings.
    python repro.py --legacy
        DynamicCache.from_legacy_cache(...) as used by remote forward() code:
        5.x: "AttributeError: type object 'DynamicCache' has no attribute 'from_legacy_cache'".
    python repro.py --fixed
        The same bookkeeping with get_seq_length() only (present in every 4.3x-5.x release). Exit code 0.

Every variant except --fixed exits with code 1 on transformers 5.x.
"""

import argparse
import sys

import torch
import transformers
from transformers import DynamicCache


def filled_cache(seq_len=5, layers=2):
    cache = DynamicCache()
    for layer in range(layers):
        k = torch.zeros(1, 2, seq_len, 4)
        cache.update(k, k.clone(), layer)
    return cache


def old_prepare_inputs(input_ids, past_key_values):
    # written for transformers ~4.38-4.45
    cache_length = past_key_values.get_seq_length()
    past_length = past_key_values.seen_tokens
    max_cache_length = past_key_values.get_max_length()
    usable = past_key_values.get_usable_length(input_ids.shape[1], 0)
    return cache_length, past_length, max_cache_length, usable


def fixed_prepare_inputs(input_ids, past_key_values):
    cache_length = past_length = usable = past_key_values.get_seq_length()
    max_cache_length = None  # DynamicCache has no maximum length
    return cache_length, past_length, max_cache_length, usable


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--legacy", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)
    input_ids = torch.tensor([[7]])
    if args.legacy:
        legacy = tuple((torch.zeros(1, 2, 5, 4), torch.zeros(1, 2, 5, 4)) for _ in range(2))
        cache = DynamicCache.from_legacy_cache(legacy)
        print("converted legacy cache, length", cache.get_seq_length())
        return
    cache = filled_cache()
    fn = fixed_prepare_inputs if args.fixed else old_prepare_inputs
    print("cache_length, past_length, max_cache_length, usable =", fn(input_ids, cache))
    sys.exit(0)


if __name__ == "__main__":
    main()
