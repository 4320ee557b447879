"""Import a C++ extension whose std::string ABI differs from torch's.

    python repro.py            # builds with -D_GLIBCXX_USE_CXX11_ABI=0: undefined symbol at import
    python repro.py --same-abi # builds with torch's own setting: imports and runs

Run: python repro.py

Needs g++ and ninja (pip install ninja). Captured with torch 2.13.0+cpu, g++ 12.2, Python 3.11.
"""

import os
import sys
import tempfile

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>

torch::Tensor scale(const torch::Tensor& x, double factor) {
  TORCH_CHECK(x.dim() > 0, "scale: expected at least one dimension, got ", x.dim());
  return x * factor;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale); }
"""

same_abi = "--same-abi" in sys.argv
print(
    "torch",
    torch.__version__,
    "cuda",
    torch.version.cuda,
    "cxx11_abi",
    torch.compiled_with_cxx11_abi(),
    flush=True,
)

build_dir = os.path.join(tempfile.gettempdir(), "scale_ext_same" if same_abi else "scale_ext_old")
os.makedirs(build_dir, exist_ok=True)
ext = load_inline(
    name="scale_ext_same" if same_abi else "scale_ext_old",
    cpp_sources=SOURCE,
    extra_cflags=[] if same_abi else ["-D_GLIBCXX_USE_CXX11_ABI=0"],
    build_directory=build_dir,
)
print(ext.scale(torch.ones(3), 2.0))
