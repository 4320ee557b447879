"""bf16=True where the bf16 probe fails: HF TrainingArguments refuses to start.

Run: python repro.py

CPU only, a few seconds (needs transformers; verified with 5.24.0). On a machine
where torch.cuda.is_bf16_supported() is False (here: no CUDA at all), building
TrainingArguments(bf16=True) raises transformers' "Your setup doesn't support
bf16/gpu" ValueError before any model is touched. On a machine with CUDA the same
message continues with " You need Ampere+ GPU with cuda>=11.0."

    python repro.py
        TrainingArguments(output_dir=..., bf16=True): ValueError, exit code 1.
    python repro.py --probe
        Prints what each library's bf16 check sees on this machine and exits 0.
    python repro.py --use-cpu
        TrainingArguments(..., bf16=True, use_cpu=True): accepted (CPU autocast
        supports bfloat16), exit code 0.
"""

import argparse
import tempfile

import torch


def probe():
    print("torch", torch.__version__, "cuda available:", torch.cuda.is_available(), flush=True)
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        print(f"compute capability {major}.{minor}", flush=True)
        print("is_bf16_supported() (counts emulation):", torch.cuda.is_bf16_supported(), flush=True)
        print(
            "is_bf16_supported(including_emulation=False):",
            torch.cuda.is_bf16_supported(including_emulation=False),
            flush=True,
        )
    else:
        print("is_bf16_supported():", torch.cuda.is_bf16_supported(), flush=True)
    from transformers.utils import is_torch_bf16_gpu_available

    print("transformers is_torch_bf16_gpu_available():", is_torch_bf16_gpu_available(), flush=True)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--probe", action="store_true")
    g.add_argument("--use-cpu", action="store_true")
    args = p.parse_args()
    if args.probe:
        probe()
        return
    from transformers import TrainingArguments

    out = tempfile.mkdtemp()
    targs = TrainingArguments(output_dir=out, bf16=True, use_cpu=args.use_cpu, report_to=[])
    print("accepted: bf16 =", targs.bf16, "device =", targs.device, flush=True)


if __name__ == "__main__":
    main()
