"""A JIT-compiled torch extension whose build fails: torch.utils.cpp_extension.load -> Error building extension.

Run: python repro.py

CPU only, one process, 3-10 s (one small C++ file; no torch headers are included, so it compiles
quickly). Needs a C++ compiler and ninja (verified with torch 2.13.0+cpu, gcc 12.2, ninja 1.13).

    python repro.py
        load(name="fused_scale", sources=[fused_scale.cpp]) where the source has a C++ error:
        the compiler output is printed inside
        "RuntimeError: Error building extension 'fused_scale': [1/2] c++ ... FAILED: ... error: ..."
        followed by "ninja: build stopped: subcommand failed.".
    python repro.py --stale-lock
        A previous build was killed and left build/lock behind: load() waits on the lock forever.
        The script gives up after 8 s and prints what it found.
    python repro.py --fixed
        The same extension with the error corrected builds into a shared library. Exit code 0.

The default variant exits with code 1.
"""

import argparse
import multiprocessing as mp
import os
import shutil
import sys
import tempfile

SOURCE = r"""
#include <cstddef>
extern "C" void fused_scale(float* x, std::size_t n, float a) {
    for (std::size_t i = 0; i < n; ++i) x[i] *= a
}
"""


def build(src_dir, build_dir, fixed):
    from torch.utils.cpp_extension import load

    src = os.path.join(src_dir, "fused_scale.cpp")
    with open(src, "w") as f:
        f.write(SOURCE.replace("*= a\n", "*= a;\n") if fixed else SOURCE)
    return load(
        name="fused_scale", sources=[src], build_directory=build_dir, is_python_module=False, verbose=False
    )


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--stale-lock", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    import torch

    print(f"torch {torch.__version__}", flush=True)
    work = tempfile.mkdtemp(prefix="jit-")
    build_dir = os.path.join(work, "build")
    os.makedirs(build_dir)
    try:
        if args.stale_lock:
            open(os.path.join(build_dir, "lock"), "w").close()  # left by a killed build
            proc = mp.Process(target=build, args=(work, build_dir, True))
            proc.start()
            proc.join(8)
            if proc.is_alive():
                proc.terminate()
                print(
                    f"load() still waiting after 8 s; {build_dir}/lock exists: "
                    f"{os.path.exists(os.path.join(build_dir, 'lock'))}; files: {sorted(os.listdir(build_dir))}"
                )
                sys.exit(1)
            sys.exit(proc.exitcode)
        build(work, build_dir, args.fixed)
        print("built", sorted(f for f in os.listdir(build_dir) if f.endswith(".so")))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
