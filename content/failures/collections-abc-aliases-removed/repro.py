"""Old code that takes the container ABCs (Mapping, Iterable, ...) from `collections` on Python 3.10+.

Run: python repro.py

CPU only, one process, well under a second, standard library only. Verified with CPython
3.9.18 (DeprecationWarning only), 3.10.13, 3.11.7 and 3.12.1 (errors).

    python repro.py
        A config-merge helper tests isinstance(value, collections.Mapping):
        "AttributeError: module 'collections' has no attribute 'Mapping'" on 3.10+.
    python repro.py --import
        The module-level form used by old packages (attrdict 2.0.1, for example):
        "from collections import Iterable, Mapping" ->
        "ImportError: cannot import name 'Iterable' from 'collections' (.../collections/__init__.py)".
    python repro.py --fixed
        The same helper with collections.abc.Mapping. Exit code 0 on Python 3.3 and later.

Run any variant with python3.9 -W default to see the DeprecationWarning that preceded the removal.
Every variant except --fixed exits with code 1 on Python 3.10+.
"""

import argparse
import collections
import collections.abc
import sys


def merge_old(base, override):
    for key, value in override.items():
        if isinstance(value, collections.Mapping) and isinstance(base.get(key), collections.Mapping):
            merge_old(base[key], value)
        else:
            base[key] = value
    return base


def merge_fixed(base, override):
    for key, value in override.items():
        if isinstance(value, collections.abc.Mapping) and isinstance(base.get(key), collections.abc.Mapping):
            merge_fixed(base[key], value)
        else:
            base[key] = value
    return base


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--import", dest="imp", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    print(f"python {sys.version.split()[0]}", flush=True)
    if args.imp:
        from collections import Iterable, Mapping  # noqa: F401  (the pre-3.3 spelling)

        print("imported Iterable and Mapping from collections")
        return
    merge = merge_fixed if args.fixed else merge_old
    print(merge({"optim": {"lr": 0.1, "weight_decay": 0.0}}, {"optim": {"lr": 0.01}}))


if __name__ == "__main__":
    main()
