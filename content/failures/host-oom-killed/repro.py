"""Host RAM exhausted: the kernel OOM killer SIGKILLs a torchrun worker (exit code -9).

Run: python repro.py

CPU only (gloo), Linux, root. Finishes in about 15 s and never lets the leaking worker use
more than 256 MB: the script creates a child memory cgroup under its own (cgroup v1
memory.limit_in_bytes, or v2 memory.max), runs
`python -m torch.distributed.run --standalone --nproc_per_node=2 repro.py --worker` (torchrun),
and rank 1 moves itself into
that cgroup and then "caches the dataset in RAM" 32 MB at a time. The kernel kills it with
SIGKILL; rank 1 prints nothing, torchrun reports exitcode -9 / Signal 9 (SIGKILL), and the
script then prints the kernel's own lines about the kill from `dmesg`
("Memory cgroup out of memory: Killed process ..."). Exit code 1.

    python repro.py --rlimit
        The in-process variant: one process under an address-space limit (RLIMIT_AS)
        asks for more memory than is left and gets
        "DefaultCPUAllocator: can't allocate memory" instead of a SIGKILL. Exit code 1.
        The default run falls back to this when it cannot create a cgroup or read dmesg.
"""

import argparse
import contextlib
import datetime
import os
import resource
import subprocess
import sys
import tempfile
import time

LIMIT = 256 * 1024 * 1024
CHUNK_MB = 32


def own_memory_cgroup():
    """(path, version) of a writable memory cgroup directory for this process, or None."""
    with open("/proc/self/cgroup") as f:
        lines = [line.rstrip("\n").split(":", 2) for line in f]
    for _, controllers, path in lines:
        if "memory" in controllers.split(","):
            base = "/sys/fs/cgroup/memory" + path
            if os.path.isdir(base):
                return base, 1
    for hid, controllers, path in lines:
        if hid == "0" and controllers == "":
            for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                base = root + path
                if os.path.isfile(os.path.join(base, "cgroup.controllers")):
                    return base, 2
    return None


def make_limited_cgroup():
    found = own_memory_cgroup()
    if found is None:
        return None
    base, version = found
    path = os.path.join(base, f"denpex-host-oom-{os.getpid()}")
    try:
        os.mkdir(path)
        if version == 1:
            with open(os.path.join(path, "memory.limit_in_bytes"), "w") as f:
                f.write(str(LIMIT))
            swap = os.path.join(path, "memory.memsw.limit_in_bytes")
            if os.path.exists(swap):
                with open(swap, "w") as f:
                    f.write(str(LIMIT))
        else:
            with open(os.path.join(path, "memory.max"), "w") as f:
                f.write(str(LIMIT))
            with open(os.path.join(path, "memory.swap.max"), "w") as f:
                f.write("0")
    except OSError as e:
        print(f"[repro] cannot create a memory cgroup ({e}); using the RLIMIT_AS variant", flush=True)
        with contextlib.suppress(OSError):
            os.rmdir(path)
        return None
    return path


def worker(cgroup, pidfile):
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank = dist.get_rank()
    if rank == 1:
        with open(pidfile, "w") as f:
            f.write(str(os.getpid()))
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
        cache = []
        for i in range(64):  # 2 GB if nothing stopped it; the cgroup allows 256 MB
            cache.append(torch.ones(CHUNK_MB * 1024 * 1024 // 4))
            print(f"rank 1: cached {(i + 1) * CHUNK_MB} MB of samples", flush=True)
    dist.barrier()
    dist.destroy_process_group()


def rlimit_variant():
    import torch

    def vm_size():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError("no VmSize")

    limit = vm_size() + LIMIT
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    cache = []
    for i in range(64):
        cache.append(torch.ones(CHUNK_MB * 1024 * 1024 // 4))
        print(f"cached {(i + 1) * CHUNK_MB} MB of samples", flush=True)


def kernel_lines(pid):
    try:
        out = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    keys = (f"Killed process {pid} ", f"pid={pid},", f"Kill process {pid} ")
    return [line for line in out.splitlines() if any(k in line for k in keys)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--worker", action="store_true")
    p.add_argument("--rlimit", action="store_true")
    p.add_argument("--cgroup")
    p.add_argument("--pidfile")
    args = p.parse_args()

    if args.worker:
        worker(args.cgroup, args.pidfile)
        return 0
    if args.rlimit:
        rlimit_variant()
        return 0

    cgroup = make_limited_cgroup()
    if cgroup is None:
        rlimit_variant()
        return 0
    pidfile = tempfile.mktemp(prefix="denpex-oom-pid-")
    try:
        # `python -m torch.distributed.run` is torchrun, without depending on PATH.
        cmd = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc_per_node=2",
            os.path.abspath(__file__),
            "--worker",
            "--cgroup",
            cgroup,
            "--pidfile",
            pidfile,
        ]
        rc = subprocess.run(cmd, stdin=subprocess.DEVNULL).returncode
        print(f"[repro] torchrun exit code: {rc}", flush=True)
        pid = "?"
        if os.path.exists(pidfile):
            with open(pidfile) as f:
                pid = f.read().strip()
        time.sleep(0.5)
        lines = kernel_lines(pid)
        print(f"[repro] kernel log (dmesg) for pid {pid}:", flush=True)
        for line in lines:
            print(line, flush=True)
    finally:
        for _ in range(20):
            try:
                os.rmdir(cgroup)
                break
            except OSError:
                time.sleep(0.25)
        if os.path.exists(pidfile):
            os.unlink(pidfile)
    if not lines:
        print("[repro] no kernel line could be read; running the RLIMIT_AS variant", flush=True)
        rlimit_variant()
    return rc or 1


if __name__ == "__main__":
    sys.exit(main())
