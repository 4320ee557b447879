"""torchrun stopping the surviving workers: 'Sending process N closing signal SIGTERM'.

CPU only, no process group needed: torchrun's agent does this to any worker group.

Run: torchrun --standalone --nproc_per_node=2 repro.py

    (default)           Rank 0 raises a Python exception; rank 1 is healthy and busy. torchrun
                        notices rank 0's exit, logs "Sending process <pid of rank 1> closing
                        signal SIGTERM", and rank 1 ends with exitcode -15 (SIGTERM) in the
                        ChildFailedError table. Rank 1 did nothing wrong.
    --agent-signalled   Nothing fails; rank 0 sends SIGTERM to its parent, the torchrun agent,
                        as a scheduler (scancel, preemption, a time limit) would. torchrun logs
                        "Received 15 death signal, shutting down workers", signals both workers
                        and exits with SignalException: the cause is outside the job.
    --ignore-sigterm    As the default, but rank 1 ignores SIGTERM (a handler that does not
                        exit). After 30 s torchrun logs "Unable to shutdown process ... via
                        15, forcefully exiting via 9" (older Pythons: Signals.SIGTERM/SIGKILL).

    python repro.py --function-entrypoint
                        The same failure launched through torch.distributed.launcher.api's
                        elastic_launch with a Python function as entry point (what notebook or
                        library launchers do): torch.multiprocessing.spawn logs "Terminating process <pid> via signal
                        SIGTERM" instead.

Every variant exits non-zero.
"""

import argparse
import os
import signal
import sys
import time


def worker(mode):
    rank = int(os.environ["RANK"])
    if mode == "agent-signalled":
        print(f"rank {rank}: training", flush=True)
        if rank == 0:
            time.sleep(2)
            os.kill(os.getppid(), signal.SIGTERM)  # the launcher is told to stop from outside
        time.sleep(60)
        return
    if rank == 0:
        time.sleep(1)
        raise ValueError("rank 0: invalid value in batch 17")  # the real failure
    if mode == "ignore-sigterm":
        signal.signal(signal.SIGTERM, lambda signum, frame: print("rank 1: SIGTERM ignored", flush=True))
    print("rank 1: busy with a long step", flush=True)
    for _ in range(120):
        time.sleep(0.5)


def function_entrypoint():
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    cfg = LaunchConfig(
        min_nodes=1,
        max_nodes=1,
        nproc_per_node=2,
        run_id="repro",
        rdzv_backend="c10d",
        rdzv_endpoint="localhost:0",
        max_restarts=0,
        monitor_interval=0.1,
    )
    elastic_launch(cfg, worker)("default")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--agent-signalled", action="store_true")
    g.add_argument("--ignore-sigterm", action="store_true")
    g.add_argument("--function-entrypoint", action="store_true")
    args = p.parse_args()
    if args.function_entrypoint:
        function_entrypoint()
        sys.exit(0)
    mode = (
        "agent-signalled" if args.agent_signalled else "ignore-sigterm" if args.ignore_sigterm else "default"
    )
    worker(mode)
