"""torch.utils.cpp_extension.load() without a ninja on PATH.

Run: python repro.py

CPU only, about 3 s, nothing is compiled. The ninja package may well be installed: what
matters is whether the process that calls load() finds a `ninja` executable on its PATH.
The script re-runs itself in a child process whose PATH lacks every directory holding one
(as happens when an environment's python is called by absolute path from cron, Slurm or an
IDE without activating the environment).

    python repro.py
        child PATH without ninja: torch.utils.cpp_extension.load(...) raises
        RuntimeError: Ninja is required to load C++ extensions (pip install ninja to get it)
    python repro.py --setup
        same PATH, BuildExtension (the setup.py route) only warns and falls back to the slow
        setuptools backend; exit code 0
    python repro.py --fixed
        child PATH starts with the directory of sys.executable (the environment's bin/, where
        `pip install ninja` puts the executable): is_ninja_available() is True; exit code 0.

The default variant exits non-zero. Captured output is in logs/.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

CHILD = r"""
import os, sys, tempfile
import torch
from torch.utils import cpp_extension
print("torch", torch.__version__, "| ninja on PATH:", cpp_extension.is_ninja_available(), flush=True)
if sys.argv[1] == "setup":
    from setuptools import Distribution
    cpp_extension.BuildExtension(Distribution())
    print("BuildExtension created; it will compile without ninja", flush=True)
elif sys.argv[1] == "load":
    src = os.path.join(tempfile.mkdtemp(), "fused_op.cpp")
    with open(src, "w") as f:
        f.write("#include <torch/extension.h>\n"
                "torch::Tensor twice(torch::Tensor x) { return x * 2; }\n"
                "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"twice\", &twice); }\n")
    cpp_extension.load(name="fused_op", sources=[src], verbose=False)
"""


def path_without_ninja():
    keep = []
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if d and not os.path.exists(os.path.join(d, "ninja")):
            keep.append(d)
    return os.pathsep.join(keep)


p = argparse.ArgumentParser()
g = p.add_mutually_exclusive_group()
g.add_argument("--setup", action="store_true")
g.add_argument("--fixed", action="store_true")
args = p.parse_args()

env = dict(os.environ, TORCH_EXTENSIONS_DIR=tempfile.mkdtemp(prefix="torch-ext-"))
env["PATH"] = path_without_ninja()
if args.fixed:
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
print("ninja found by the child:", shutil.which("ninja", path=env["PATH"]), flush=True)
mode = "setup" if args.setup else ("check" if args.fixed else "load")
proc = subprocess.run([sys.executable, "-c", CHILD, mode], env=env)
sys.exit(proc.returncode)
