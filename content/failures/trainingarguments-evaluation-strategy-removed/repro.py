"""TrainingArguments(evaluation_strategy=...) on a transformers release that no longer has the argument.

Run: python repro.py

CPU only, one process, 3-6 s (importing transformers). Verified with transformers 5.24.0 and
4.51.3 (TypeError), 4.41-4.50 (FutureWarning only), 4.30.2 (the reverse case with eval_strategy).

    python repro.py
        TrainingArguments(output_dir=..., evaluation_strategy="steps", eval_steps=50):
        "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'"
        on transformers >= 4.51; 4.41-4.50 accept it with a FutureWarning.
    python repro.py --cli
        The same setting passed on the command line through HfArgumentParser:
        "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--evaluation_strategy', 'steps']".
    python repro.py --fixed
        Picks whichever name the installed release accepts (eval_strategy from 4.41, evaluation_strategy
        before) and prints the resulting strategy. Exit code 0 on any 4.x or 5.x release.

Every variant except --fixed exits with code 1.
"""

import argparse
import inspect
import sys
import tempfile

import transformers
from transformers import HfArgumentParser, TrainingArguments


def strategy_kwargs(value):
    """Return {'eval_strategy': value} or {'evaluation_strategy': value}, whichever exists."""
    params = inspect.signature(TrainingArguments.__init__).parameters
    key = "eval_strategy" if "eval_strategy" in params else "evaluation_strategy"
    return {key: value}


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cli", action="store_true")
    g.add_argument("--fixed", action="store_true")
    opts = p.parse_args()
    print(f"transformers {transformers.__version__}", flush=True)
    out = tempfile.mkdtemp()
    if opts.cli:
        argv = [
            "--output_dir",
            out,
            "--evaluation_strategy",
            "steps",
            "--eval_steps",
            "50",
            "--report_to",
            "none",
        ]
        print("train.py " + " ".join(argv[2:]), flush=True)
        (args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses(args=argv)
    elif opts.fixed:
        kw = strategy_kwargs("steps")
        print(f"using {kw}", flush=True)
        args = TrainingArguments(output_dir=out, eval_steps=50, report_to="none", **kw)
    else:
        args = TrainingArguments(
            output_dir=out,
            evaluation_strategy="steps",
            eval_steps=50,
            per_device_train_batch_size=8,
            report_to="none",
        )
    strategy = getattr(args, "eval_strategy", None) or getattr(args, "evaluation_strategy")
    print(f"evaluation every {args.eval_steps} steps: {strategy}")
    sys.exit(0)


if __name__ == "__main__":
    main()
