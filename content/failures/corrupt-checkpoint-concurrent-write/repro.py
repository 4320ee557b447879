"""torch.load on a file that is not a complete checkpoint: truncated by an interrupted save or copy,
interleaved by two writers, a Git LFS pointer or an HTML page instead of the weights.

Run: python repro.py

CPU only. Single-process variants take 1-3 s; the two-writer variants need torchrun (about 10 s).

    python repro.py
        A 4 MiB checkpoint cut at 60 % (a save killed mid-write, a partial copy or download):
        "PytorchStreamReader failed reading zip archive: failed finding central directory".
    torchrun --standalone --nproc_per_node=2 repro.py --two-writers
        Both ranks torch.save different-sized state to the same path at the same time (no rank guard):
        "PytorchStreamReader failed reading file data/N: invalid header or archive is corrupted".
    torchrun --standalone --nproc_per_node=2 repro.py --two-writers --same-size
        Same, but equally sized state: the file usually loads WITHOUT error and holds a mix of both
        ranks' tensors; `python -m zipfile -t` reports the CRC failure that torch.load ignores.
    python repro.py --legacy
        A truncated file in the legacy (non-zip) format: "unexpected EOF, expected N more bytes".
    python repro.py --lfs
        A Git LFS pointer file instead of the weights, default weights_only=True:
        "WeightsUnpickler error: Unsupported operand 118".
    python repro.py --lfs --weights-only-false
        The same pointer with weights_only=False: "_pickle.UnpicklingError: invalid load key, 'v'."
    python repro.py --html
        An HTML error page saved as the checkpoint: "Unsupported operand 60".
    python repro.py --safetensors
        A truncated .safetensors file: "Error while deserializing header: incomplete metadata, file
        not fully covered" (safetensors >= 0.6; verified with 0.8.0).
    python repro.py --safetensors --lfs
        An LFS pointer named .safetensors: "Error while deserializing header: header too large".
    python repro.py --disk-full
        torch.save to /dev/full (every write fails with ENOSPC, like a full disk):
        "[enforce fail at inline_container.cc:...] . unexpected pos ... vs ...".
    python repro.py --fixed
        Atomic save (temporary file, flush, fsync, os.replace) plus a sha256 sidecar; verifies the
        checksum and `zipfile.ZipFile.testzip()` before loading. Exit code 0.

The outcome of the two-writer variants depends on timing: besides the messages above, rank 0 can
also fail inside the unpickler (UnicodeDecodeError, "Unsupported operand N") when data.pkl itself
was interleaved. Every variant except --fixed (and usually --two-writers --same-size) exits with code 1.
"""

import argparse
import datetime
import hashlib
import os
import tempfile
import zipfile

import torch

LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:9f2c1d0e4b7a65f38e21c0d9a7b6e5f4c3d2b1a09f8e7d6c5b4a392817160504\n"
    "size 438012345\n"
)
HTML_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>403 Forbidden</title></head><body>Access denied</body></html>\n"
)


def state(seed=0, n=4):
    g = torch.Generator().manual_seed(seed)
    return {f"layer{i}.weight": torch.randn(512, 512, generator=g) for i in range(n)}  # 1 MiB each


def truncate(path, fraction):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(int(size * fraction))
    print(f"{path}: {size} bytes written, {int(size * fraction)} bytes left (interrupted save)", flush=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def atomic_save(obj, path):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".pt")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)  # atomic on POSIX within one file system
    except BaseException:
        os.unlink(tmp)
        raise
    with open(path + ".sha256", "w") as f:
        f.write(f"{sha256(path)}  {os.path.basename(path)}\n")


def two_writers(path, same_size):
    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank = dist.get_rank()
    obj = state(seed=rank, n=16 if same_size else 16 + rank)
    dist.barrier()
    torch.save(obj, path)  # the bug: every rank writes the same file
    dist.barrier()
    if rank != 0:
        dist.destroy_process_group()
        return
    if rank == 0:
        print(f"{path}: {os.path.getsize(path)} bytes after both ranks saved", flush=True)
        loaded = torch.load(path, map_location="cpu", weights_only=True)
        mine = state(seed=0, n=16)
        other = state(seed=1, n=16)
        print(
            f"loaded without error: {sum(torch.equal(loaded[k], mine[k]) for k in mine)} tensors from rank 0, "
            f"{sum(torch.equal(loaded[k], other[k]) for k in other)} from rank 1",
            flush=True,
        )
        bad = zipfile.ZipFile(path).testzip()
        print(f"zipfile CRC check: first bad member = {bad}", flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--two-writers", action="store_true")
    p.add_argument("--same-size", action="store_true")
    p.add_argument("--legacy", action="store_true")
    p.add_argument("--lfs", action="store_true")
    p.add_argument("--weights-only-false", action="store_true")
    p.add_argument("--html", action="store_true")
    p.add_argument("--safetensors", action="store_true")
    p.add_argument("--disk-full", action="store_true")
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    if args.two_writers:
        two_writers(os.path.join(tempfile.gettempdir(), "denpex-shared-ckpt.pt"), args.same_size)
        return

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.safetensors" if args.safetensors else "step_5000.pt")
        if args.safetensors:
            from safetensors.torch import load_file, save_file

            if args.lfs:
                with open(path, "w") as f:
                    f.write(LFS_POINTER)
                print(f"{path}: {os.path.getsize(path)} bytes (a Git LFS pointer)", flush=True)
            else:
                save_file(state(), path)
                truncate(path, 0.6)
            load_file(path)
        elif args.lfs or args.html:
            with open(path, "w") as f:
                f.write(LFS_POINTER if args.lfs else HTML_PAGE)
            with open(path) as f:
                head = f.read(20)
            print(f"{path}: {os.path.getsize(path)} bytes, starts with {head!r}", flush=True)
            torch.load(path, map_location="cpu", weights_only=not args.weights_only_false)
        elif args.disk_full:
            print("saving to /dev/full (every write returns ENOSPC)", flush=True)
            torch.save(state(), "/dev/full")
        elif args.legacy:
            torch.save(state(), path, _use_new_zipfile_serialization=False)
            truncate(path, 0.6)
            torch.load(path, map_location="cpu", weights_only=True)
        elif args.fixed:
            atomic_save(state(), path)
            with open(path + ".sha256") as f:
                expected = f.read().split()[0]
            assert sha256(path) == expected, "checksum mismatch: incomplete or modified file"
            assert zipfile.ZipFile(path).testzip() is None, "CRC error inside the checkpoint"
            sd = torch.load(path, map_location="cpu", weights_only=True)
            print(f"verified sha256 {expected[:16]}... and zip CRCs; loaded {len(sd)} tensors", flush=True)
        else:
            torch.save(state(), path)
            truncate(path, 0.6)
            torch.load(path, map_location="cpu", weights_only=True)


if __name__ == "__main__":
    main()
