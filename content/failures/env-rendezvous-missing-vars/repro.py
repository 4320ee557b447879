"""init_process_group() with the default env:// rendezvous but without the launcher's variables.

CPU only, one process, started with plain python (no torchrun), gloo.

Run: python repro.py

    (default)        dist.init_process_group("gloo") with none of RANK, WORLD_SIZE,
                     MASTER_ADDR, MASTER_PORT set: ValueError "Error initializing
                     torch.distributed using env:// rendezvous: environment variable RANK
                     expected, but not set".
    --rank-args      rank=0 and world_size=1 are passed as arguments, so RANK/WORLD_SIZE are
                     not needed, but MASTER_ADDR is still read from the environment: the same
                     error names MASTER_ADDR.
    --empty-port     MASTER_ADDR is set and MASTER_PORT is set to an empty string (a job
                     template that expands an unset variable): the error names MASTER_PORT;
                     an empty value counts as "not set".
    --fixed          The script fills the variables itself when no launcher did (single
                     process: rank 0, world size 1, 127.0.0.1 and a free port) and runs one
                     all_reduce: exit code 0.

Every variant except --fixed exits with code 1.
"""

import argparse
import os
import socket

import torch
import torch.distributed as dist

LAUNCHER_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--rank-args", action="store_true")
    g.add_argument("--empty-port", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    for var in LAUNCHER_VARS:  # behave the same whatever the calling shell exported
        os.environ.pop(var, None)
    print("launcher variables:", {v: os.environ.get(v) for v in LAUNCHER_VARS}, flush=True)

    if args.rank_args:
        dist.init_process_group("gloo", rank=0, world_size=1)
    elif args.empty_port:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = ""
        dist.init_process_group("gloo", rank=0, world_size=1)
    elif args.fixed:
        os.environ.setdefault("RANK", "0")
        os.environ.setdefault("WORLD_SIZE", "1")
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(free_port()))
        dist.init_process_group("gloo")
        t = torch.ones(2)
        dist.all_reduce(t)
        print(f"rank {dist.get_rank()} of {dist.get_world_size()}: all_reduce -> {t.tolist()}", flush=True)
        dist.destroy_process_group()
    else:
        dist.init_process_group("gloo")


if __name__ == "__main__":
    main()
