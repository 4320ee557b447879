"""Rank 0's TCPStore gives up waiting: "Timed out after N seconds waiting for clients. J/W clients joined."

CPU only (gloo), 5 s timeouts; every variant exits non-zero except --fixed.

Run: python repro.py
    A launcher that sets the env:// variables starts 2 processes but tells them WORLD_SIZE=3
    (e.g. a world size computed for more GPUs or nodes than were started). Rank 0 hosts the store
    and waits for 3 clients; after the timeout it raises DistStoreError "Timed out after 6 seconds
    waiting for clients. 2/3 clients joined." Rank 1 connected fine, then fails waiting for a key
    that rank 0 never wrote ("wait timeout after 5000ms, keys: /default_pg/...").

Other variants:
    python repro.py --torchrun-node0
        torchrun --nnodes=2 --node_rank=0 --master_addr=127.0.0.1 --master_port=PORT
        --rdzv-conf timeout=5 with no node 1: node 0's torchrun agent hosts the static
        rendezvous store and raises "... 1/2 clients joined." before starting any worker.
    python repro.py --fixed
        WORLD_SIZE equals the number of processes started: both ranks initialise, exit 0.
"""

import argparse
import datetime
import os
import socket
import subprocess
import sys

HERE = os.path.abspath(__file__)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker():
    import torch.distributed as dist

    rank = os.environ["RANK"]
    print(f"rank {rank}: init_process_group(WORLD_SIZE={os.environ['WORLD_SIZE']})", flush=True)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    dist.barrier()
    print(f"rank {rank}: init_process_group done", flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--torchrun-node0", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker()
        return 0

    port = free_port()
    if args.torchrun_node0:
        cmd = [
            "torchrun",
            "--nnodes=2",
            "--node_rank=0",
            "--nproc_per_node=1",
            "--master_addr=127.0.0.1",
            f"--master_port={port}",
            "--rdzv-conf",
            "timeout=5",
            HERE,
            "--worker",
        ]
        print("$ " + " ".join(os.path.basename(c) if c == HERE else c for c in cmd), flush=True)
        rc = subprocess.call(cmd)
    else:
        started, world_size = 2, (2 if args.fixed else 3)
        print(
            f"$ launching {started} processes with WORLD_SIZE={world_size} "
            f"MASTER_ADDR=127.0.0.1 MASTER_PORT={port}",
            flush=True,
        )
        procs = [
            subprocess.Popen(
                [sys.executable, HERE, "--worker"],
                env=dict(
                    os.environ,
                    MASTER_ADDR="127.0.0.1",
                    MASTER_PORT=str(port),
                    RANK=str(rank),
                    WORLD_SIZE=str(world_size),
                ),
            )
            for rank in range(started)
        ]
        codes = [pr.wait() for pr in procs]
        print(f"exit codes per rank: {codes}", flush=True)
        rc = max(codes)
    print(f"exit code {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
