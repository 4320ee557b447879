"""Inductor on CPU tensors needs a working C++ compiler at run time.

Run: python repro.py

CPU only, one process, 10-30 s (Inductor starts its compile machinery before it
looks for the compiler). Each run uses a fresh, empty Inductor cache.

    python repro.py
        Sets CXX=/opt/no-toolchain/bin/g++ in the environment before torch is
        imported (what an image without g++, or a CXX variable naming a compiler
        that is not installed, looks like to Inductor), then runs a
        torch.compile'd function on a CPU tensor. The first call raises
        torch._inductor.exc.InductorError: InvalidCxxCompiler. Exit code 1.
        Same as: CXX=/opt/no-toolchain/bin/g++ python repro.py --use-env
    python repro.py --no-python-headers
        CXX is a wrapper around the real g++ that drops the Python include
        directories, as on an image with g++ but without the Python development
        headers (python3-dev): CppCompileError, "fatal error: Python.h: No such
        file or directory". Needs g++ on PATH. Exit code 1.
    python repro.py --suppress
        The default failure with torch._dynamo.config.suppress_errors = True:
        a "WON'T CONVERT" warning, then the function silently runs eagerly.
        Exit code 0.
    python repro.py --use-env
        Leaves CXX alone: with g++ (or $CXX) installed it compiles and exits 0.
"""

import argparse
import atexit
import os
import shutil
import stat
import sys
import tempfile

MISSING = "/opt/no-toolchain/bin/g++"

WRAPPER = """#!/bin/sh
# g++ without the Python development headers: drop every Python include directory.
args=""
for a in "$@"; do
  case "$a" in
    -I*include/python3*) ;;
    *) args="$args '$a'";;
  esac
done
eval exec g++ $args
"""


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--no-python-headers", action="store_true")
    g.add_argument("--suppress", action="store_true")
    g.add_argument("--use-env", action="store_true")
    args = p.parse_args()

    tmp = tempfile.mkdtemp(prefix="inductor-cxx-")
    atexit.register(shutil.rmtree, tmp, True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "cache")  # no cached kernels
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no worker pool: faster here
    if args.no_python_headers:
        wrapper = os.path.join(tmp, "g++-no-python-headers")
        with open(wrapper, "w") as f:
            f.write(WRAPPER)
        os.chmod(wrapper, stat.S_IRWXU)
        os.environ["CXX"] = wrapper
    elif not args.use_env:
        os.environ["CXX"] = MISSING  # read by torch._inductor.config at import time

    import torch  # after CXX is set
    import torch._dynamo

    if args.suppress:
        torch._dynamo.config.suppress_errors = True

    @torch.compile  # default backend: inductor; CPU tensors -> C++ code -> $CXX
    def gelu_sum(x):
        return torch.nn.functional.gelu(x * 2 + 1).sum()

    x = torch.randn(64)
    out = gelu_sum(x)
    print(f"compiled call returned {out.item():.4f}", flush=True)
    if args.suppress:
        print("no error raised: the function ran eagerly (suppress_errors=True)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
