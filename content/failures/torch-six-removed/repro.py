"""torch._six (Python 2/3 shims) no longer exists on PyTorch 2.x.

Run: python repro.py

CPU only, about 2 s. Code written for PyTorch 1.x imports names from torch._six:

    python repro.py
        `from torch._six import inf` (DeepSpeed <= 0.8.1, apex, old ZeRO/clip-grad code)
        -> ModuleNotFoundError: No module named 'torch._six'
    python repro.py --attribute
        `torch._six.string_classes` used as an attribute without importing the submodule
        (DDIM, pycocotools-era detection utils) -> AttributeError: module 'torch' has no attribute '_six'
    python repro.py --fixed
        the replacements: math.inf / torch.inf, str, int, collections.abc; exit code 0.

Every variant except --fixed exits non-zero. Captured output is in logs/.
"""

import argparse
import sys

import torch


def clip_coef(total_norm, max_norm):
    if args.fixed:
        import math

        inf = math.inf  # or: from torch import inf
    else:
        from torch._six import inf
    if total_norm == inf:
        return 0.0
    return max_norm / (total_norm + 1e-6)


def is_path(obj):
    if args.fixed:
        return isinstance(obj, str)
    return isinstance(obj, torch._six.string_classes)


p = argparse.ArgumentParser()
g = p.add_mutually_exclusive_group()
g.add_argument("--attribute", action="store_true")
g.add_argument("--fixed", action="store_true")
args = p.parse_args()

print(f"torch {torch.__version__}, python {sys.version.split()[0]}", flush=True)
if args.attribute:
    print("checkpoint is a path:", is_path("ckpt/last.pt"))
elif args.fixed:
    print("clip coefficient:", clip_coef(torch.tensor(3.0).item(), 1.0))
    print("checkpoint is a path:", is_path("ckpt/last.pt"))
else:
    print("clip coefficient:", clip_coef(torch.tensor(3.0).item(), 1.0))
