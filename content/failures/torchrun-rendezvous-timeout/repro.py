"""torchrun's c10d rendezvous never completes: RendezvousTimeoutError before any worker starts.

CPU only. join_timeout is shortened to 10 s (default 600 s). Each variant takes 15-25 s.

Run: python repro.py
    One torchrun agent with --nnodes=2 --rdzv-backend=c10d --rdzv-endpoint=localhost:PORT.
    The second node never joins (it was not started, or, on a real cluster, every node was given
    "localhost" as endpoint and so hosts its own private store). After join_timeout the agent
    raises torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError (no message). Exit 1.

Other variants:
    python repro.py --rdzv-id-mismatch
        Two agents on the same endpoint, --rdzv-id=job-a and --rdzv-id=job-b: each waits for a
        second node in its own rendezvous and both time out. Exit 1.
    python repro.py --empty-rdzv-id
        Two agents started with --rdzv-id= (an empty variable such as $SLURM_JOB_ID outside a
        SLURM job): each agent logs "config has no run_id, generated a random run_id: ...",
        so they land in two different rendezvous and both time out. Exit 1.
    python repro.py --elastic
        One agent with --nnodes=1:2: it waits last_call_timeout (2 s here) for more nodes, then
        starts with one node. Exit 0.
    python repro.py --fixed
        Two agents with the same --rdzv-id and --nnodes=2: they form one rendezvous and both
        workers start (ranks 0 and 1 of 2). Exit 0.
"""

import argparse
import datetime
import os
import socket
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker():
    import torch.distributed as dist

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
    print(
        f"worker rank {dist.get_rank()} of {dist.get_world_size()} started "
        f"(TORCHELASTIC_RUN_ID={os.environ.get('TORCHELASTIC_RUN_ID')})",
        flush=True,
    )
    dist.barrier()
    dist.destroy_process_group()


def agent_cmd(port, nnodes, run_id, conf):
    return [
        "torchrun",
        f"--nnodes={nnodes}",
        "--nproc_per_node=1",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint=localhost:{port}",
        f"--rdzv-id={run_id}",
        "--rdzv-conf",
        conf,
        HERE,
        "--worker",
    ]


def show(cmd):
    print("$ " + " ".join(os.path.basename(c) if c == HERE else c for c in cmd), flush=True)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--rdzv-id-mismatch", action="store_true")
    g.add_argument("--empty-rdzv-id", action="store_true")
    g.add_argument("--elastic", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker()
        return 0

    port = free_port()
    if args.rdzv_id_mismatch or args.empty_rdzv_id or args.fixed:
        if args.fixed:
            ids = ["job-a", "job-a"]
        elif args.empty_rdzv_id:
            ids = ["", ""]
        else:
            ids = ["job-a", "job-b"]
        # The first agent hosts the store; give it the longer timeout so that it outlives the
        # second one (otherwise the second loses its store instead of timing out).
        confs = ["join_timeout=15", "join_timeout=10"]
        procs = []
        for run_id, conf in zip(ids, confs, strict=True):
            cmd = agent_cmd(port, 2, run_id, conf)
            show(cmd)
            procs.append(subprocess.Popen(cmd))
            time.sleep(2)
        codes = [pr.wait() for pr in procs]
        print(f"exit codes per agent: {codes}", flush=True)
        rc = max(codes)
    elif args.elastic:
        cmd = agent_cmd(port, "1:2", "job-a", "join_timeout=10,last_call_timeout=2")
        show(cmd)
        rc = subprocess.call(cmd)
    else:
        cmd = agent_cmd(port, 2, "job-a", "join_timeout=10")
        show(cmd)
        rc = subprocess.call(cmd)
    print(f"exit code {rc}", flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
