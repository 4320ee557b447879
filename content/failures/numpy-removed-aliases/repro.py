"""Old NumPy spellings (np.float, np.int, np.NaN, np.float_) raise AttributeError on current NumPy.

Run: python repro.py

CPU only, one process, under a second. Needs nothing but numpy (verified with 2.4.6, 2.0.2, 1.26.4).

    python repro.py
        A box-decoding helper written for NumPy < 1.24 casts with dtype=np.float.
        NumPy 1.24+ raises "AttributeError: module 'numpy' has no attribute 'float'." followed by
        the replacement advice; NumPy 1.20-1.23 only print a DeprecationWarning (run with -W default).
    python repro.py --nan
        The same helper pads with np.NaN. NumPy 2.0+ raises
        "AttributeError: `np.NaN` was removed in the NumPy 2.0 release. Use `np.nan` instead.";
        NumPy 1.x accepts it.
    python repro.py --scan FILE_OR_DIR
        Lists every use of a removed name in Python files (a plain regular-expression scan).
    python repro.py --fixed
        The same helper with float, np.float64 and np.nan: works on NumPy 1.x and 2.x. Exit code 0.

Every variant except --fixed and --scan exits with code 1.
"""

import argparse
import pathlib
import re
import sys

import numpy as np

# Names removed in 1.24 (aliases of builtins) and in 2.0 (NEP 52 clean-up), with what to write instead.
REMOVED = {
    "float": "float or np.float64",
    "int": "int or np.int64",
    "bool": "bool or np.bool_",
    "object": "object",
    "str": "str",
    "complex": "complex or np.complex128",
    "long": "np.int64",
    "NaN": "np.nan",
    "NAN": "np.nan",
    "Inf": "np.inf",
    "Infinity": "np.inf",
    "infty": "np.inf",
    "PINF": "np.inf",
    "NINF": "-np.inf",
    "float_": "np.float64",
    "complex_": "np.complex128",
    "string_": "np.bytes_",
    "unicode_": "np.str_",
    "cfloat": "np.complex128",
    "round_": "np.round",
    "product": "np.prod",
    "alltrue": "np.all",
    "sometrue": "np.any",
    "asfarray": "np.asarray(x, dtype=float)",
}


def decode_boxes(raw, pad_to):
    """Old-style code: dtype=np.float, padding with np.NaN."""
    boxes = np.asarray(raw, dtype=np.float)
    pad = np.full((pad_to - len(boxes), 4), np.NaN)
    return np.concatenate([boxes, pad])


def decode_boxes_nan_only(raw, pad_to):
    boxes = np.asarray(raw, dtype=float)
    pad = np.full((pad_to - len(boxes), 4), np.NaN)
    return np.concatenate([boxes, pad])


def decode_boxes_fixed(raw, pad_to):
    boxes = np.asarray(raw, dtype=np.float64)
    pad = np.full((pad_to - len(boxes), 4), np.nan)
    return np.concatenate([boxes, pad])


def scan(root):
    pattern = re.compile(r"\b(?:np|numpy)\.(%s)\b" % "|".join(map(re.escape, REMOVED)))
    root = pathlib.Path(root)
    files = [root] if root.is_file() else sorted(root.rglob("*.py"))
    hits = 0
    for path in files:
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for m in pattern.finditer(line):
                print(f"{path}:{lineno}: np.{m.group(1)} -> {REMOVED[m.group(1)]}")
                hits += 1
    print(f"{hits} use(s) of removed NumPy names")


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--nan", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--scan", metavar="PATH")
    args = p.parse_args()
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}", flush=True)
    raw = [[0, 0, 10, 10], [5, 5, 20, 20]]
    if args.scan:
        scan(args.scan)
        return
    if args.fixed:
        out = decode_boxes_fixed(raw, 4)
    elif args.nan:
        out = decode_boxes_nan_only(raw, 4)
    else:
        out = decode_boxes(raw, 4)
    print(out.dtype, out.shape, "padded rows:", int(np.isnan(out[:, 0]).sum()))


if __name__ == "__main__":
    main()
