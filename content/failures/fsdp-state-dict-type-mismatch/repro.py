"""FSDP state dicts come in three kinds (FULL, SHARDED, LOCAL); loading one kind into another kind, or into
the model without FSDP, fails with errors about local_shards, _flat_param, FlatParameter or ShardedTensor.

Run: torchrun --standalone --nproc_per_node=2 repro.py

CPU only: FSDP1 with device_id=cpu and FSDP2 (fully_shard) over gloo, 2 processes, 5-10 s per variant.
With one process FSDP1 falls back to NO_SHARD and most of these differences disappear, so use 2.

    torchrun --standalone --nproc_per_node=2 repro.py
        Each rank saves its SHARDED_STATE_DICT (ShardedTensor values), the evaluation code loads it into
        the plain model: 'While copying the parameter named "0.weight", ... an exception occurred :
        ("'Parameter' object has no attribute 'local_shards'",).'
    ... repro.py --local-dict
        LOCAL_STATE_DICT (one flat shard per rank) into the plain model:
        'Unexpected key(s) in state_dict: "_flat_param".'
    ... repro.py --full-into-local
        A full (unsharded) state dict loaded while the FSDP model is set to LOCAL_STATE_DICT:
        "No `FlatParameter` in `state_dict` for this FSDP instance but it has parameters".
    ... repro.py --full-into-sharded
        A full state dict loaded under SHARDED_STATE_DICT: "Expected ShardedTensor, got <class 'torch.Tensor'>".
    ... repro.py --local-into-sharded
        A LOCAL dict loaded under SHARDED_STATE_DICT: "Did not find param with FQN ..., skipping it."
        warnings, then Missing/Unexpected key(s) with "_flat_param".
    ... repro.py --mixed
        Only the inner FSDP unit was switched to SHARDED, then the root is used with FULL:
        "All FSDP modules should have the same state_dict_type."
    ... repro.py --fsdp2
        FSDP2 (fully_shard) state_dict() holds DTensors; loading it into the plain model:
        "aten.copy_.default got mixed torch.Tensor and DTensor ...".
    ... repro.py --dcp
        A torch.distributed.checkpoint directory (what Accelerate / HF Trainer write for
        SHARDED_STATE_DICT): torch.load of one __0_0.distcp file:
        "PytorchStreamReader failed reading zip archive: invalid header or archive is corrupted".
    ... repro.py --fixed
        Saves a FULL_STATE_DICT (rank0_only) from rank 0 and loads it into the plain
        model; also converts a DCP directory with dcp_to_torch_save and loads that. Exit code 0.

('...' is `torchrun --standalone --nproc_per_node=2`.) Every variant except --fixed exits non-zero.
"""

import argparse
import datetime
import os
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import FullStateDictConfig, StateDictType
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def fsdp1(nested=False):
    model = make_model()
    if nested:
        model[2] = FSDP(model[2], device_id=torch.device("cpu"))
    return FSDP(model, device_id=torch.device("cpu"))


def state_dict_of(model, kind):
    with FSDP.state_dict_type(model, kind):
        return model.state_dict()


def load_as(model, kind, sd):
    with FSDP.state_dict_type(model, kind):
        return model.load_state_dict(sd)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    for flag in (
        "--local-dict",
        "--full-into-local",
        "--full-into-sharded",
        "--local-into-sharded",
        "--mixed",
        "--fsdp2",
        "--dcp",
        "--fixed",
    ):
        g.add_argument(flag, action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    shared = os.path.join(tempfile.gettempdir(), "denpex-fsdp-ckpt")
    os.makedirs(shared, exist_ok=True)

    if args.fsdp2:
        from torch.distributed.fsdp import fully_shard

        model = make_model()
        fully_shard(model)
        sd = model.state_dict()
        print(
            f"rank {rank}: FSDP2 state_dict value types {sorted({type(v).__name__ for v in sd.values()})}",
            flush=True,
        )
        make_model().load_state_dict(sd)
    elif args.dcp:
        import torch.distributed.checkpoint as dcp

        model = fsdp1()
        path = os.path.join(shared, "pytorch_model_fsdp_0")
        dcp.save({"model": state_dict_of(model, StateDictType.SHARDED_STATE_DICT)}, checkpoint_id=path)
        dist.barrier()
        if rank == 0:
            print(f"DCP checkpoint: {sorted(os.listdir(path))}", flush=True)
            torch.load(os.path.join(path, "__0_0.distcp"), map_location="cpu", weights_only=True)
    elif args.fixed:
        model = fsdp1()
        # offload_to_cpu=True is what you want on GPUs; on this CPU-only FSDP1 model torch 2.13.0
        # fails inside the unshard with it, so the repro keeps the parameters where they are.
        cfg = FullStateDictConfig(offload_to_cpu=False, rank0_only=True)
        with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
            full = model.state_dict()  # collective: every rank calls it; only rank 0 gets tensors
        path = os.path.join(shared, "model_full.pt")
        if rank == 0:
            torch.save(full, path)
        import torch.distributed.checkpoint as dcp
        from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

        dcp_dir = os.path.join(shared, "dcp_fixed")
        other = fsdp1()  # a second job that saved in DCP format (Accelerate SHARDED_STATE_DICT)
        dcp.save({"model": state_dict_of(other, StateDictType.SHARDED_STATE_DICT)}, checkpoint_id=dcp_dir)
        dist.barrier()
        if rank == 0:
            print(
                "plain model <- FULL_STATE_DICT:",
                make_model().load_state_dict(torch.load(path, map_location="cpu", weights_only=True)),
                flush=True,
            )
            dcp_to_torch_save(dcp_dir, os.path.join(shared, "from_dcp.pt"))
            converted = torch.load(os.path.join(shared, "from_dcp.pt"), map_location="cpu", weights_only=True)
            print(
                "plain model <- dcp_to_torch_save:",
                make_model().load_state_dict(converted["model"]),
                flush=True,
            )
        dist.barrier()
    else:
        model = fsdp1(nested=args.mixed)
        if args.mixed:
            FSDP.set_state_dict_type(model[2], StateDictType.SHARDED_STATE_DICT)  # inner unit only
            state_dict_of(model, StateDictType.FULL_STATE_DICT)
        elif args.full_into_local or args.full_into_sharded:
            full = make_model().state_dict()  # e.g. a pretrained checkpoint
            kind = (
                StateDictType.LOCAL_STATE_DICT if args.full_into_local else StateDictType.SHARDED_STATE_DICT
            )
            load_as(model, kind, full)
        elif args.local_into_sharded:
            local = state_dict_of(model, StateDictType.LOCAL_STATE_DICT)
            load_as(model, StateDictType.SHARDED_STATE_DICT, local)
        else:
            kind = StateDictType.LOCAL_STATE_DICT if args.local_dict else StateDictType.SHARDED_STATE_DICT
            sd = state_dict_of(model, kind)
            path = os.path.join(shared, f"rank{rank}.pt")
            torch.save(sd, path)
            print(f"rank {rank}: saved {kind.name} keys {list(sd)}", flush=True)
            plain = make_model()  # evaluation code without FSDP
            plain.load_state_dict(torch.load(path, map_location="cpu", weights_only=False))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
