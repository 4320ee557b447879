"""The rendezvous port is already taken: torchrun (or rank 0) cannot start the TCPStore server.

CPU only. The script first starts a TCPStore server on a free port and keeps it open: a stand-in
for a previous job (or a second job on the same node) that still owns MASTER_PORT. Then it
launches a 2-process job on that same port.

Run: python repro.py
    torchrun --master_addr=127.0.0.1 --master_port=<busy port> (static rendezvous, the default
    when --rdzv-backend is not given): the torchrun agent itself raises DistNetworkError
    "... name: EADDRINUSE, message: address already in use" before any worker starts. Exit 1.

Other variants:
    python repro.py --env
        No torchrun: one process calls init_process_group("gloo") with env:// (MASTER_ADDR,
        MASTER_PORT=<busy port>, RANK=0, WORLD_SIZE=1), as mp.spawn scripts and notebooks do:
        the same EADDRINUSE text, raised from rendezvous.py inside init_process_group. Exit 1.
    python repro.py --legacy
        As --env, with USE_LIBUV=0 (the older socket-based TCPStore server, the default before
        torch 2.4): the message lists each failed bind with
        "(errno: 98 - Address already in use)". Exit 1.
    python repro.py --fixed
        Same busy port held, but the job is launched with torchrun --standalone, which picks a
        free port itself: both ranks initialise, exit 0.
"""

import argparse
import datetime
import os
import subprocess
import sys

HERE = os.path.abspath(__file__)


def worker():
    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
    print(
        f"rank {dist.get_rank()}: init_process_group done, store at "
        f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
        flush=True,
    )
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--env", action="store_true")
    g.add_argument("--legacy", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker()
        return 0

    from torch.distributed import TCPStore

    # The "other job": a store server that keeps the port while this script runs.
    holder = TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=30))
    port = holder.port
    print(f"port {port} is held by another TCPStore server (pid {os.getpid()})", flush=True)

    env = dict(os.environ)
    if args.env or args.legacy:
        env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK="0", WORLD_SIZE="1")
        if args.legacy:
            env["USE_LIBUV"] = "0"
        cmd = [sys.executable, HERE, "--worker"]
    elif args.fixed:
        cmd = ["torchrun", "--standalone", "--nproc_per_node=2", HERE, "--worker"]
    else:
        cmd = [
            "torchrun",
            "--nnodes=1",
            "--nproc_per_node=2",
            "--master_addr=127.0.0.1",
            f"--master_port={port}",
            HERE,
            "--worker",
        ]
    shown = ["python" if c == sys.executable else os.path.basename(c) if c == HERE else c for c in cmd]
    print("$ " + " ".join(shown), flush=True)
    rc = subprocess.call(cmd, env=env)
    print(f"exit code {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
