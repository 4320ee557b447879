"""In-place op overwrites a tensor that autograd saved: error at backward, not at the in-place line.

Run: python repro.py

CPU only, one process, a few seconds. A hand-written softmax normalises exp(x) in
place (probs /= probs.sum(...)). exp's backward needs its own output, which the
in-place division has changed, so loss.backward() raises "one of the variables
needed for gradient computation has been modified by an inplace operation".

    python repro.py
        Manual softmax with an in-place division: RuntimeError at backward, exit 1.
    python repro.py --anomaly
        Same under torch.autograd.set_detect_anomaly(True): the warning before the
        error shows the forward line of the op whose saved tensor was changed (exp),
        and the hint ends with "Good luck!". Exit 1.
    python repro.py --relu-inplace
        nn.Sigmoid() followed by nn.ReLU(inplace=True): ReLU overwrites the output
        Sigmoid saved for its backward. Exit 1.
    python repro.py --step-before-backward
        GAN-style ordering bug: optimizer.step() updates a weight in place between the
        forward and the backward of a loss that used it. Exit 1.
    python repro.py --fixed
        Out-of-place division and non-inplace ReLU: three steps, exit 0.
"""

import argparse

import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, fixed=False, relu_inplace=False):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.proj = nn.Linear(8, 4)
        self.fixed = fixed
        self.act = nn.Sequential(nn.Sigmoid(), nn.ReLU(inplace=relu_inplace and not fixed))
        self.use_act = relu_inplace

    def forward(self, x):
        self.features = torch.tanh(self.encoder(x))
        logits = self.proj(self.features)
        if self.use_act:
            return self.act(logits).sum(-1)
        probs = logits.exp()
        if self.fixed:
            probs = probs / probs.sum(-1, keepdim=True)
        else:
            probs /= probs.sum(-1, keepdim=True)  # in-place: overwrites exp's saved output
        return probs


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--anomaly", action="store_true")
    g.add_argument("--relu-inplace", action="store_true")
    g.add_argument("--step-before-backward", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()
    torch.autograd.set_detect_anomaly(args.anomaly)

    torch.manual_seed(0)
    model = Head(fixed=args.fixed or args.step_before_backward, relu_inplace=args.relu_inplace)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        x = torch.randn(16, 8)
        target = torch.randint(0, 4, (16,))
        out = model(x)
        loss = out.pow(2).mean() if args.relu_inplace else -out.gather(1, target[:, None]).log().mean()
        if args.step_before_backward:
            # e.g. a second loss on the same weights was stepped first (GAN D/G updates)
            aux = model.proj(model.features.detach()).pow(2).mean()
            aux.backward()
            opt.step()  # modifies proj.weight in place; backward of `loss` into the
            #             encoder still needs the old proj.weight
            opt.zero_grad()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
