"""Gloo collective timeout: one rank waits in a collective that a peer does not join in time.

CPU only (gloo), two processes, process-group timeout 5 s. Rank 1 stands in for a slow or
stuck rank (a long rank-local step: checkpoint write, evaluation, a blocked data loader).

Run: torchrun --standalone --nproc_per_node=2 repro.py

    (default)     Rank 0 waits in all_reduce; after 5 s gloo raises "Timed out waiting 5000ms
                  for recv operation to complete". The script's `finally:` block then calls
                  dist.barrier(), which fails at once with "Application timeout caused pair
                  closure": the second error hides nothing new, the first one is the cause.
    --send        Rank 0 is the root of a broadcast: it times out on the *send* side
                  ("Timed out waiting 5000ms for send operation to complete").
    --monitored   Rank 0 waits in dist.monitored_barrier(timeout=3 s) instead: gloo names
                  the missing rank ("Rank 1 failed to pass monitoredBarrier in 3000 ms").
    --fixed       Rank 1 finishes its slow step within the timeout: both ranks pass the
                  all_reduce and the barrier, exit code 0.

Every variant except --fixed exits non-zero (torchrun SIGTERMs the sleeping rank 1).
"""

import argparse
import datetime
import time

import torch
import torch.distributed as dist

TIMEOUT = datetime.timedelta(seconds=5)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--send", action="store_true")
    g.add_argument("--monitored", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=TIMEOUT)
    rank = dist.get_rank()
    t = torch.ones(4)

    if rank == 1:
        # The slow rank: its rank-local work outlasts the process-group timeout.
        late = 1 if args.fixed else 20
        print(f"rank 1: busy for {late} s before joining the collective", flush=True)
        time.sleep(late)

    try:
        if args.send:
            dist.broadcast(t, src=0)
        elif args.monitored:
            if rank == 0:
                dist.monitored_barrier(timeout=datetime.timedelta(seconds=3))
            else:
                dist.monitored_barrier()
        else:
            dist.all_reduce(t)
        print(f"rank {rank}: collective done, t={t.tolist()}", flush=True)
    finally:
        if not (args.send or args.monitored):
            dist.barrier()  # typical cleanup collective in a finally/teardown hook
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
