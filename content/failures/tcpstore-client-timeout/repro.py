"""Non-zero ranks cannot reach the rendezvous TCPStore: "The client socket has timed out after ...".

CPU only (gloo). Each variant runs in a few seconds to ~25 s and exits non-zero.

Run: python repro.py
    Starts two processes with env:// rendezvous (MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE), the
    way srun, mpirun or a custom launcher does. Rank 0 crashes in its setup code before it reaches
    init_process_group, so nobody ever hosts the store; rank 1 retries the connection and fails
    with DistNetworkError "The client socket has timed out after 5000ms while trying to connect
    to (127.0.0.1, PORT)". Rank 0's FileNotFoundError, printed first, is the real cause.

Other variants:
    python repro.py --torchrun-node1
        torchrun --nnodes=2 --node_rank=1 --master_addr=127.0.0.1 --master_port=PORT
        --rdzv-conf timeout=5, with no node 0: the torchrun agent of node 1 times out connecting
        to the static rendezvous store; no worker starts.
    python repro.py --c10d
        torchrun --nnodes=2 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:PORT
        --rdzv-conf is_host=0,read_timeout=5, with nothing listening on the endpoint: the same
        client timeout, wrapped in RendezvousConnectionError "The connection to the C10d store
        has failed. See inner exception for details."
    python repro.py --hardcoded-port
        torchrun --standalone --nproc_per_node=2 on a script that overwrites
        os.environ["MASTER_PORT"] before init_process_group: torchrun's store listens on another
        port, so every rank times out.
    python repro.py --fixed
        Both ranks start and reach init_process_group: exit 0.
"""

import argparse
import datetime
import os
import socket
import subprocess
import sys

HERE = os.path.abspath(__file__)
TIMEOUT = datetime.timedelta(seconds=5)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(crash_rank0, hardcoded_port):
    import torch.distributed as dist

    rank = int(os.environ["RANK"])
    if hardcoded_port:
        os.environ["MASTER_PORT"] = str(hardcoded_port)  # the bug: overrides the launcher's port
    print(
        f"rank {rank}: setup (MASTER_ADDR={os.environ['MASTER_ADDR']} "
        f"MASTER_PORT={os.environ['MASTER_PORT']})",
        flush=True,
    )
    if crash_rank0 and rank == 0:
        with open("/nonexistent/dataset/train-00000.bin", "rb") as f:  # dies before init_process_group
            f.read()
    dist.init_process_group("gloo", timeout=TIMEOUT)
    dist.barrier()
    print(f"rank {rank}: init_process_group done", flush=True)
    dist.destroy_process_group()


def run(cmd, env=None):
    shown = ["python" if c == sys.executable else os.path.basename(c) if c == HERE else c for c in cmd]
    print("$ " + " ".join(shown), flush=True)
    return subprocess.call(cmd, env=env)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--torchrun-node1", action="store_true")
    g.add_argument("--c10d", action="store_true")
    g.add_argument("--hardcoded-port", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--crash-rank0", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--override-port", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.worker:
        worker(args.crash_rank0, args.override_port)
        return 0

    port = free_port()
    if args.torchrun_node1:
        rc = run(
            [
                "torchrun",
                "--nnodes=2",
                "--node_rank=1",
                "--nproc_per_node=1",
                "--master_addr=127.0.0.1",
                f"--master_port={port}",
                "--rdzv-conf",
                "timeout=5",
                HERE,
                "--worker",
            ]
        )
    elif args.c10d:
        rc = run(
            [
                "torchrun",
                "--nnodes=2",
                "--nproc_per_node=1",
                "--rdzv-backend=c10d",
                f"--rdzv-endpoint=127.0.0.1:{port}",
                "--rdzv-conf",
                "is_host=0,read_timeout=5",
                HERE,
                "--worker",
            ]
        )
    elif args.hardcoded_port:
        rc = run(
            ["torchrun", "--standalone", "--nproc_per_node=2", HERE, "--worker", f"--override-port={port}"]
        )
    else:
        # Two ranks started by a launcher that only sets the env:// variables.
        procs = []
        for rank in range(2):
            env = dict(
                os.environ,
                MASTER_ADDR="127.0.0.1",
                MASTER_PORT=str(port),
                RANK=str(rank),
                WORLD_SIZE="2",
                LOCAL_RANK=str(rank),
            )
            cmd = [sys.executable, HERE, "--worker"] + ([] if args.fixed else ["--crash-rank0"])
            if rank == 0:
                print(
                    f"$ RANK=0,1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT={port} "
                    f"python repro.py --worker",
                    flush=True,
                )
            procs.append(subprocess.Popen(cmd, env=env))
        codes = [pr.wait() for pr in procs]
        print(f"exit codes per rank: {codes}", flush=True)
        rc = max(codes)
    print(f"exit code {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
