"""safetensors refuses a weights file that is not really a safetensors file.

Run: python repro.py --empty

CPU only, one process, a tiny randomly initialised Llama saved to a temporary folder
(nothing is downloaded), a few seconds.

    python repro.py --empty
        model.safetensors is a zero-byte file (a download or copy that wrote nothing, a full
        disk): "Error while deserializing header: header too small" (HeaderTooSmall before 0.6).
    python repro.py
        model.safetensors is replaced by the three-line text a Git LFS pointer holds
        (what `git clone` leaves without `git lfs`): from_pretrained raises
        "Error while deserializing header: header too large" (HeaderTooLarge before 0.6).
    python repro.py --html
        The file holds an HTML page (a browser "blob" link, a login or error page): same error.
    python repro.py --torch-save
        The file is a torch.save zip archive renamed to .safetensors: same error.
    python repro.py --truncated
        The first 150,000 bytes of the real file (an interrupted download): the header is intact
        but the data is short, so the message is "incomplete metadata, file not fully covered".
    python repro.py --fixed
        The real file: its first 8 bytes give a small header length and it loads, exit code 0.

Before loading, each variant prints the file's size, its first 8 bytes and the header length
they encode, the three facts that tell a real file from an impostor.
"""

import argparse
import struct
import sys
import tempfile
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM

LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:9d3a5b8f0c2e4d6a7b1c3e5f7a9b0d2c4e6f8a1b3d5c7e9f0a2b4c6d8e1f3a5b\n"
    "size 4976698672\n"
)
HTML_PAGE = "<!DOCTYPE html>\n<html><head><title>model.safetensors</title></head><body>...</body></html>\n"


def describe(path: Path) -> None:
    head = path.read_bytes()[:8]
    n = struct.unpack("<Q", head)[0] if len(head) == 8 else None
    print(f"{path.name}: {path.stat().st_size} bytes, first 8 bytes {head!r}, header length {n}", flush=True)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--empty", action="store_true")
    g.add_argument("--html", action="store_true")
    g.add_argument("--torch-save", action="store_true")
    g.add_argument("--truncated", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=128,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "tiny-llama"
        LlamaForCausalLM(cfg).save_pretrained(folder)
        weights = folder / "model.safetensors"
        real = weights.read_bytes()
        if args.empty:
            weights.write_bytes(b"")
        elif args.html:
            weights.write_text(HTML_PAGE)
        elif args.torch_save:
            torch.save({"w": torch.zeros(3)}, weights)
        elif args.truncated:
            weights.write_bytes(real[:150_000])
        elif not args.fixed:
            weights.write_text(LFS_POINTER)
        describe(weights)
        model = AutoModelForCausalLM.from_pretrained(folder)
        print(f"loaded {sum(p.numel() for p in model.parameters())} parameters", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
