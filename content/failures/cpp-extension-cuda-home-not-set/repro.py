"""Building a CUDA extension with torch.utils.cpp_extension when torch sees no CUDA toolkit.

Run: python repro.py

CPU only, one process, 2-4 s, compiles nothing. Verified with torch 2.13.0+cpu and setuptools 84.

    python repro.py
        Writes a one-kernel setup.py (CUDAExtension + BuildExtension) into a temporary folder and
        runs `setup.py build_ext`. With a CPU-only torch (torch.version.cuda is None) the toolkit
        is never looked up, so CUDAExtension() itself raises
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
        even when CUDA_HOME is exported and nvcc is on PATH. A CUDA torch without a toolkit
        raises the same line from the same place.
    python repro.py --cpp-extension
        Same .cu source declared as a CppExtension: the build gets past setup() and
        BuildExtension.build_extensions raises "RuntimeError: CUDA was not found on the system,
        please set the CUDA_HOME or the CUDA_PATHenvironment variable ...".
    python repro.py --check
        Prints what cpp_extension will use: torch.version.cuda, the CUDA_HOME it found, the nvcc
        on PATH and its release. Exit code 0.

Every variant except --check exits with code 1.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

KERNEL = textwrap.dedent(
    """
    #include <torch/extension.h>
    __global__ void add_one(float* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] += 1.f;
    }
    void add_one_(torch::Tensor x) {
      int n = x.numel();
      add_one<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n);
    }
    PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("add_one_", &add_one_); }
    """
)

SETUP = textwrap.dedent(
    """
    from setuptools import setup
    from torch.utils.cpp_extension import BuildExtension, {cls}

    setup(
        name="add_kernel",
        ext_modules=[{cls}("add_kernel", ["add_kernel.cu"])],
        cmdclass={{"build_ext": BuildExtension}},
    )
    """
)


def check():
    import torch
    import torch.utils.cpp_extension as ce

    print(
        f"torch {torch.__version__}  torch.version.cuda={torch.version.cuda}  "
        f"built with CUDA: {torch.cuda._is_compiled()}"
    )
    print(f"CUDA_HOME env={os.environ.get('CUDA_HOME')!r}  CUDA_PATH env={os.environ.get('CUDA_PATH')!r}")
    print(f"cpp_extension.CUDA_HOME={ce.CUDA_HOME!r}")
    nvcc = shutil.which("nvcc")
    print(f"nvcc on PATH: {nvcc}")
    if nvcc:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        print("  " + (out.strip().splitlines() or ["?"])[-2])
    if torch.version.cuda is None:
        print("verdict: CPU-only torch; install a CUDA build of torch before building CUDA extensions")
    elif ce.CUDA_HOME is None:
        print("verdict: CUDA torch but no toolkit found; install nvcc and export CUDA_HOME")


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cpp-extension", action="store_true")
    g.add_argument("--check", action="store_true")
    args = p.parse_args()
    if args.check:
        check()
        return
    cls = "CppExtension" if args.cpp_extension else "CUDAExtension"
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "add_kernel.cu"), "w") as f:
            f.write(KERNEL)
        with open(os.path.join(d, "setup.py"), "w") as f:
            f.write(SETUP.format(cls=cls))
        print(f"$ python setup.py build_ext --inplace   ({cls}, add_kernel.cu)", flush=True)
        proc = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=d,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        print(proc.stdout.replace(d, "/home/user/add_kernel"), end="")
        sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
