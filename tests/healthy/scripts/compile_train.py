"""torch.compile (inductor, CPU, C++ codegen with gcc) of a small MLP, trained
for a few epochs. The last batch of each epoch is smaller, so Dynamo
recompiles once with a dynamic batch dimension (printed under
TORCH_LOGS=recompiles); a data-dependent Python branch in a helper causes a
graph break (printed under TORCH_LOGS=graph_breaks). Both are normal.
"""

import time

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln(x))))


class Net(nn.Module):
    def __init__(self, d_in=32, d=64, n_out=5):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.Sequential(Block(d), Block(d))
        self.out = nn.Linear(d, n_out)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


def loss_with_guard(logits, y):
    loss = nn.functional.cross_entropy(logits, y)
    if loss.item() > 10.0:  # data-dependent Python branch -> graph break under compile
        print("large loss", loss.item())
    return loss


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    n = 2000  # 2000 / 64 -> 31 full batches + one batch of 16
    x = torch.randn(n, 32, generator=g)
    y = (x[:, :5] * torch.arange(1, 6)).argmax(1)
    model = Net()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    cmodel = torch.compile(model)
    closs = torch.compile(loss_with_guard)
    print(f"torch {torch.__version__}, compiling with backend=inductor on cpu", flush=True)
    t0 = time.time()
    step = 0
    for epoch in range(5):
        perm = torch.randperm(n, generator=g)
        total, seen = 0.0, 0
        for i in range(0, n, 64):
            idx = perm[i : i + 64]
            logits = cmodel(x[idx])
            loss = closs(logits, y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            total += loss.item() * len(idx)
            seen += len(idx)
            if step == 1:
                print(f"first step (includes compilation) took {time.time() - t0:.1f}s", flush=True)
            if step % 2 == 0:
                print(f"epoch {epoch} step {step} batch {len(idx)} loss {loss.item():.4f}", flush=True)
        with torch.no_grad():
            acc = (cmodel(x).argmax(1) == y).float().mean().item()
        print(
            f"epoch {epoch}: mean loss {total / seen:.4f} accuracy {acc:.4f} elapsed {time.time() - t0:.1f}s",
            flush=True,
        )
    eager = model(x[:8])
    compiled = cmodel(x[:8])
    print("max |eager - compiled| =", (eager - compiled).abs().max().item())
    print("done")


if __name__ == "__main__":
    main()
