"""Full (unsharded) FSDP state dict requested on rank 0 only: rank 0 blocks in an all-gather.

CPU only (gloo), two processes, process-group timeout 5 s, one training step first.

Run: torchrun --standalone --nproc_per_node=2 repro.py

    (default)      FSDP1. Inside `if rank == 0:` the script enters
                   FSDP.state_dict_type(FULL_STATE_DICT, FullStateDictConfig(rank0_only=True))
                   and calls model.state_dict(); rank 1 goes on to a barrier. Rank 0's
                   traceback runs through _full_pre_state_dict_hook -> _all_gather_flat_param
                   and ends in a gloo send timeout; rank 1 times out in the barrier.
    --fsdp2        FSDP2 (fully_shard) with
                   get_model_state_dict(options=StateDictOptions(full_state_dict=True,
                   cpu_offload=True)) on rank 0 only: same hang, through _gather_state_dict and
                   DTensor.redistribute.
    --fixed        FSDP1, every rank calls state_dict() under the same config (rank 1 gets an
                   empty dict), only rank 0 writes the file: exit code 0.
    --fixed-fsdp2  FSDP2, every rank calls get_model_state_dict, only rank 0 writes: exit 0.
    --timeout S    Process-group timeout in seconds (default 5); a longer one leaves time to
                   attach py-spy to the hung ranks (logs/py-spy-dump-rank0-hung.log used 60).

Every variant except the --fixed ones exits non-zero.

Note: the FSDP1 variants use FullStateDictConfig(offload_to_cpu=False, rank0_only=True) because
the model lives on the CPU; with offload_to_cpu=True on a CPU-only FSDP1 model, torch 2.13.0
fails in state_dict() with "setStorage: ... out of bounds for storage of size 0". On GPUs use
offload_to_cpu=True as usual.
"""

import argparse
import datetime
import os
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn


def build_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--fsdp2", action="store_true")
    g.add_argument("--fixed", action="store_true")
    g.add_argument("--fixed-fsdp2", action="store_true")
    p.add_argument("--timeout", type=float, default=5.0, help="process-group timeout in seconds")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    rank = dist.get_rank()
    net = build_model()
    path = os.path.join(tempfile.gettempdir(), "fsdp_repro_full.pt")

    if args.fsdp2 or args.fixed_fsdp2:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard

        mesh = init_device_mesh("cpu", (dist.get_world_size(),))
        for layer in net:
            if isinstance(layer, nn.Linear):
                fully_shard(layer, mesh=mesh)
        model = fully_shard(net, mesh=mesh)
        model(torch.randn(4, 8)).sum().backward()
        print(f"rank {rank}: step done", flush=True)
        options = StateDictOptions(full_state_dict=True, cpu_offload=True)
        if args.fixed_fsdp2:
            sd = get_model_state_dict(model, options=options)  # every rank takes part
            if rank == 0:
                torch.save(sd, path)
        elif rank == 0:
            sd = get_model_state_dict(model, options=options)  # rank 0 alone: all-gather hangs
            torch.save(sd, path)
    else:
        from torch.distributed.fsdp import FullStateDictConfig, StateDictType
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

        model = FSDP(net, device_id=torch.device("cpu"))
        model(torch.randn(4, 8)).sum().backward()
        print(f"rank {rank}: step done", flush=True)
        cfg = FullStateDictConfig(offload_to_cpu=False, rank0_only=True)  # CPU repro; use True on GPUs
        if args.fixed:
            with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
                sd = model.state_dict()  # every rank takes part; non-zero ranks get {}
            if rank == 0:
                torch.save(sd, path)
        elif rank == 0:
            with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
                sd = model.state_dict()  # rank 0 alone: the all-gather never completes
            torch.save(sd, path)

    print(f"rank {rank}: waiting at the barrier after saving", flush=True)
    dist.barrier()
    if rank == 0:
        print("saved", sorted(torch.load(path, weights_only=True)), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
