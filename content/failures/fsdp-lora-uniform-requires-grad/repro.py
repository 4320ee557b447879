"""FSDP1 with frozen base weights and trainable LoRA weights in one wrapped unit.

Run: torchrun --standalone --nproc_per_node=2 repro.py

CPU only (gloo), two processes, a few seconds. Each block holds a frozen base Linear and a
trainable low-rank adapter (lora_A, lora_B), as PEFT's LoRA does.

    torchrun --standalone --nproc_per_node=2 repro.py
        One FSDP unit per block, use_orig_params=False (the FSDP1 default): the unit's
        FlatParameter would mix requires_grad=False and True tensors. ValueError at wrap time
        on every rank, exit 1.
    torchrun --standalone --nproc_per_node=2 repro.py --use-orig-params
        Same wrapping with use_orig_params=True: wraps, trains two steps, exit 0.
    torchrun --standalone --nproc_per_node=2 repro.py --module-wrap-policy
        The same units chosen by ModuleWrapPolicy({LoraBlock}) (a policy object, not a
        function): FSDP checks before wrapping and raises "... has both parameters with
        requires_grad=True and False ...", listing both groups of names. Exit 1.
    torchrun --standalone --nproc_per_node=2 repro.py --module-wrap-policy --use-orig-params
        The same check only warns (gradient memory for the whole unit), then trains. Exit 0.
    torchrun --standalone --nproc_per_node=2 repro.py --adapter-units
        use_orig_params=False, but every module whose own weight is trainable becomes its own
        FSDP unit first (the lambda policy PEFT's fsdp_auto_wrap_policy adds), so each
        FlatParameter is uniform. Exit 0.
    torchrun --standalone --nproc_per_node=2 repro.py --fsdp2
        FSDP2 (fully_shard) shards each parameter separately: no uniformity rule. Exit 0.
"""

import argparse
import datetime
import functools

import torch
import torch.distributed as dist
import torch.nn as nn


class LoraBlock(nn.Module):
    def __init__(self, d=16, r=2):
        super().__init__()
        self.base = nn.Linear(d, d)
        self.lora_A = nn.Linear(d, r, bias=False)
        self.lora_B = nn.Linear(r, d, bias=False)
        self.base.requires_grad_(False)

    def forward(self, x):
        return torch.relu(self.base(x) + self.lora_B(self.lora_A(x)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--use-orig-params", action="store_true")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--module-wrap-policy", action="store_true")
    g.add_argument("--adapter-units", action="store_true")
    g.add_argument("--fsdp2", action="store_true")
    args = p.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = nn.Sequential(LoraBlock(), LoraBlock(), nn.Linear(16, 1).requires_grad_(False))

    if args.fsdp2:
        from torch.distributed.fsdp import fully_shard

        for block in model[:2]:
            fully_shard(block)
        fully_shard(model)
    else:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
        from torch.distributed.fsdp.wrap import (
            ModuleWrapPolicy,
            _or_policy,
            lambda_auto_wrap_policy,
            transformer_auto_wrap_policy,
        )

        # what Accelerate builds for fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP
        policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={LoraBlock})
        if args.module_wrap_policy:
            policy = ModuleWrapPolicy({LoraBlock})
        if args.adapter_units:

            def leaf_with_trainable_weight(m):
                return (
                    len(list(m.children())) == 0
                    and getattr(m, "weight", None) is not None
                    and m.weight.requires_grad
                )

            policy = functools.partial(
                _or_policy,
                policies=[
                    functools.partial(lambda_auto_wrap_policy, lambda_fn=leaf_with_trainable_weight),
                    policy,
                ],
            )
        model = FSDP(
            model,
            auto_wrap_policy=policy,
            device_id=torch.device("cpu"),
            use_orig_params=args.use_orig_params,
        )

    opt = torch.optim.SGD([q for q in model.parameters() if q.requires_grad], lr=0.1)
    for step in range(2):
        loss = model(torch.randn(4, 16)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if rank == 0:
            print(f"rank 0: step {step} done, loss {loss.item():.4f}", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
