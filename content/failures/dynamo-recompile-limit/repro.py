"""torch.compile: an int attribute that changes every step exhausts the recompile limit.

Run: python repro.py

CPU only, one process, a few seconds. The backend is Dynamo's CompileCounter (an
eager backend that counts graphs), so no C++ compiler is needed; the recompile
logic is the same for backend="inductor".

    python repro.py
        The module keeps a Python int step counter (self.step += 1 in forward).
        Dynamo treats int attributes of an nn.Module as constants, so every step
        fails the guard "self.step == k" and recompiles. On the 9th call Dynamo
        prints "torch._dynamo hit config.recompile_limit (8)" and runs forward
        eagerly for the rest of the process. The script counts compiled graphs
        and exits 1 because the later steps ran uncompiled.
    TORCH_LOGS=recompiles python repro.py
        Same, plus one "Recompiling function forward" block per step naming the
        failed guard.
    python repro.py --fullgraph
        torch.compile(..., fullgraph=True): the limit raises
        torch._dynamo.exc.FailOnRecompileLimitHit instead of falling back.
    python repro.py --dtype
        A plain function called with ten different dtypes (no module, default
        settings): the same warning, with a dtype guard as the last reason.
    python repro.py --accumulated
        The --dtype calls with accumulated_recompile_limit lowered to 4 (default
        256): the global cap trips first and the warning names
        config.accumulated_recompile_limit.
    python repro.py --fixed
        The counter is a tensor buffer (updated in place), so one graph serves
        every step; exits 0.

Every variant except --fixed exits non-zero. Captured output is in logs/.
"""

import argparse
import sys

import torch
import torch.nn as nn
from torch._dynamo.testing import CompileCounter

STEPS = 12


class Decay(nn.Module):
    """Scales its output by 0.9 ** step, a schedule kept inside the module."""

    def __init__(self, fixed):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.fixed = fixed
        if fixed:
            self.register_buffer("step", torch.zeros((), dtype=torch.long))
        else:
            self.step = 0  # a Python int: Dynamo specialises on its value

    def forward(self, x):
        if self.fixed:
            self.step.add_(1)  # in-place tensor update: no guard on the value
        else:
            self.step += 1
        return self.lin(x) * 0.9**self.step


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--fullgraph", action="store_true")
    g.add_argument("--dtype", action="store_true")
    g.add_argument("--accumulated", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    counter = CompileCounter()
    x = torch.ones(2, 4)

    if args.accumulated:
        torch._dynamo.config.accumulated_recompile_limit = 4  # default 256

    if args.dtype or args.accumulated:
        dtypes = [
            torch.float32,
            torch.float64,
            torch.float16,
            torch.bfloat16,
            torch.int64,
            torch.int32,
            torch.int16,
            torch.int8,
            torch.uint8,
            torch.complex64,
        ]
        cf = torch.compile(lambda t: t * 2 + 1, backend=counter)
        for d in dtypes:
            cf(torch.ones(4, dtype=d))
        calls = len(dtypes)
    else:
        model = torch.compile(Decay(args.fixed), backend=counter, fullgraph=args.fullgraph)
        for _step in range(STEPS):
            with torch.no_grad():
                model(x)
        calls = STEPS

    print(f"{calls} calls, {counter.frame_count} graphs compiled", flush=True)
    if not args.fixed and counter.frame_count < calls:
        print(f"{calls - counter.frame_count} calls ran eagerly after the recompile limit", flush=True)
        sys.exit(1)
    print("ok", flush=True)


if __name__ == "__main__":
    main()
