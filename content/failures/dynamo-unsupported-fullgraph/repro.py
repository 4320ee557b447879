"""torch.compile(fullgraph=True): code Dynamo cannot trace is an error, not a graph break.

Run: python repro.py

CPU only, one process, backend="eager" (no C++ compiler needed), a few seconds.
Each variant puts one untraceable construct in a small model's forward and
compiles it with fullgraph=True; the first call raises
torch._dynamo.exc.Unsupported and the script exits 1.

    python repro.py
        A debug print() in forward: "Failed to trace builtin operator".
    python repro.py --branch
        A Python `if` on a tensor value: "Data-dependent branching".
    python repro.py --skipped
        A call into a C builtin (random.random): "Attempted to call function
        marked as skipped".
    python repro.py --logger
        logging.Logger.warning in forward: "logging.Logger method not supported
        for non-export cases".
    python repro.py --error-on-graph-break
        No fullgraph; the print sits inside torch._dynamo.error_on_graph_break(True),
        which makes that region strict: the same error.
    TORCHDYNAMO_VERBOSE=1 python repro.py
        Same as the default, with Dynamo's internal stack trace.
    python repro.py --explain
        No error: torch._dynamo.explain lists the graph breaks that fullgraph=True
        would reject (exits 0).
    python repro.py --fixed
        The print moved out of the compiled region and the branch written with
        torch.where: compiles as one graph, exits 0.
"""

import argparse
import logging
import random

import torch
import torch.nn as nn

logger = logging.getLogger("model")


class Net(nn.Module):
    def __init__(self, variant):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.variant = variant

    def forward(self, x):
        h = self.lin(x)
        v = self.variant
        if v in ("print", "error-on-graph-break", "explain"):
            print("debug: hidden norm computed")  # the offending line
        elif v == "branch":
            if h.mean() > 0:  # Python control flow on a tensor value
                h = h * 0.5
        elif v == "skipped":
            h = h * random.random()  # a C function Dynamo cannot trace
        elif v == "logger":
            logger.warning("hidden computed")
        elif v == "fixed":
            h = torch.where(h.mean() > 0, h * 0.5, h)  # branchless form of --branch
        return h.relu().sum()


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    for name in ("branch", "skipped", "logger", "error-on-graph-break", "explain", "fixed"):
        g.add_argument(f"--{name}", action="store_true")
    args = p.parse_args()
    variant = "print"
    for name in ("branch", "skipped", "logger", "error_on_graph_break", "explain", "fixed"):
        if getattr(args, name):
            variant = name.replace("_", "-")

    model = Net(variant)
    x = torch.randn(4, 8)

    if variant == "explain":
        explanation = torch._dynamo.explain(model)(x)
        print(f"graphs: {explanation.graph_count}, graph breaks: {explanation.graph_break_count}")
        for reason in explanation.break_reasons:
            print("break reason:", reason.reason.splitlines()[0])
        return

    if variant == "error-on-graph-break":

        def step(inp):
            with torch._dynamo.error_on_graph_break(True):
                return model(inp)

        compiled = torch.compile(step, backend="eager")
    else:
        compiled = torch.compile(model, backend="eager", fullgraph=True)

    loss = compiled(x)
    loss.backward()
    print(f"step ok, loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
