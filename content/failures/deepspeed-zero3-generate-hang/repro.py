"""Sharded-parameter generate() hangs when ranks stop decoding at different steps.

CPU only (gloo), two processes, process-group timeout 10 s. A tiny random GPT-2 (built from a
config, nothing downloaded) is sharded with FSDP2 (fully_shard on every block and on the root),
so every forward step all-gathers the parameters. Each rank decodes its own prompt greedily;
rank 1's end-of-sequence token is taken from its own greedy output, so it stops after its first
new token(s), while rank 0 needs all 8 (as when one rank's batch hits EOS early).

Run: torchrun --standalone --nproc_per_node=2 repro.py

    (default)    generate(..., synced_gpus=False), as a custom rollout loop or a setup where
                 transformers cannot detect the sharding (e.g. DeepSpeed ZeRO-3 without an
                 HfDeepSpeedConfig) would run it. Rank 1 leaves generate() early and
                 waits in a barrier; rank 0's next forward waits in FSDP's parameter all-gather.
                 Both fail after 10 s with gloo timeouts; rank 0's traceback runs through
                 transformers' _sample loop.
    --synced     generate(..., synced_gpus=True): a finished rank keeps running dummy forwards
                 until every rank is done (one all_reduce per step decides). Exit code 0.
    --auto       synced_gpus left unset: transformers sees the FSDP-managed root module
                 (_is_fsdp_managed_module) and turns synced_gpus on itself. Exit code 0.
    --timeout S  process-group timeout in seconds (default 10), e.g. 60 to attach py-spy.

The default exits non-zero, the other variants exit 0.
"""

import argparse
import datetime

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from transformers import GPT2Config, GPT2LMHeadModel

NEW_TOKENS = 8


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--synced", action="store_true")
    g.add_argument("--auto", action="store_true")
    p.add_argument("--timeout", type=float, default=10.0)
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    rank = dist.get_rank()
    torch.manual_seed(0)
    cfg = GPT2Config(
        vocab_size=64,
        n_positions=64,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=0,
        eos_token_id=None,
        pad_token_id=0,
    )
    model = GPT2LMHeadModel(cfg).eval()
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    for block in model.transformer.h:
        fully_shard(block, mesh=mesh)
    fully_shard(model, mesh=mesh)

    prompt = torch.tensor([[3 + rank, 5, 7]])
    with torch.no_grad():
        # Probe: every rank decodes NEW_TOKENS greedily with no EOS (same number of steps).
        probe = model.generate(
            prompt,
            max_new_tokens=NEW_TOKENS,
            do_sample=False,
            eos_token_id=None,
            pad_token_id=0,
            synced_gpus=True,
        )
        new = probe[0, prompt.shape[1] :].tolist()
        # Rank 1 "hits EOS" early: the first token of its probe that differs from the ones
        # before it (so it stops after 2 or 3 tokens); rank 0 gets an EOS id it never produces.
        early = next((t for i, t in enumerate(new[1:], 1) if t not in new[:i]), new[0])
        eos = early if rank == 1 else next(t for t in range(1, 64) if t not in new)
        synced = True if args.synced else None if args.auto else False
        out = model.generate(
            prompt,
            max_new_tokens=NEW_TOKENS,
            do_sample=False,
            eos_token_id=eos,
            pad_token_id=0,
            synced_gpus=synced,
        )
    print(f"rank {rank}: generated {out.shape[1] - prompt.shape[1]} tokens", flush=True)
    dist.barrier()  # e.g. gathering the rollouts of all ranks
    print(f"rank {rank}: all ranks finished generating", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
