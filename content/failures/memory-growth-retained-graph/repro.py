"""Memory grows every step because logged metrics keep their autograd graphs alive.

Run: python repro.py

CPU only, one process, finishes in a few seconds and needs well under 1 GB.

    python repro.py
        The loop logs `running_loss += loss` and a token-entropy metric computed from the
        logits with autograd on. Both sums print as `tensor(..., grad_fn=<AddBackward0>)`
        and resident memory climbs by ~50 MB per step.
        The entropy terms are not on the path of loss.backward(), so their saved
        softmax/log-softmax outputs (one vocabulary-sized tensor each per step) are never
        freed. The process address space is capped at +500 MB (RLIMIT_AS) so the growth
        ends in "DefaultCPUAllocator: can't allocate memory" after about 10 steps instead of
        hours. Exit code 1.
    python repro.py --fixed
        Same loop with `loss.item()` and the metric under torch.no_grad(): resident memory
        stays flat for 40 steps, exit code 0.
"""

import argparse
import resource

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, TOKENS = 8000, 64, 512
HEADROOM = 500 * 1024 * 1024


def status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = nn.Sequential(nn.Embedding(VOCAB, DIM), nn.Linear(DIM, VOCAB))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    # Cap the address space a little above what the process uses now, so that a leak of a
    # few hundred MB fails quickly instead of filling the machine.
    limit = status_kb("VmSize") * 1024 + HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    running_loss, running_entropy = 0.0, 0.0
    for step in range(40):
        tokens = torch.randint(0, VOCAB, (TOKENS,))
        targets = torch.randint(0, VOCAB, (TOKENS,))
        logits = model(tokens)
        loss = F.cross_entropy(logits, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()

        if args.fixed:
            running_loss += loss.item()
            with torch.no_grad():
                logp = logits.log_softmax(-1)
                running_entropy += -(logp.exp() * logp).sum(-1).mean().item()
        else:
            running_loss += loss  # keeps every step's graph reachable
            logp = logits.log_softmax(-1)  # off the backward path: saved tensors stay
            running_entropy += -(logp.exp() * logp).sum(-1).mean()

        if step % 4 == 0:
            rss_mb = status_kb("VmRSS") // 1024
            # print() uses str(), which shows grad_fn; an f-string "{t}" of a 0-dim
            # tensor formats t.item() and hides it.
            print(
                f"step {step}: running_loss",
                running_loss,
                "running_entropy",
                running_entropy,
                f"rss={rss_mb} MB",
                flush=True,
            )
    print(f"done: 40 steps, rss={status_kb('VmRSS') // 1024} MB", flush=True)


if __name__ == "__main__":
    main()
