"""load_best_model_at_end with save and eval schedules that do not line up.

Run: python repro.py

CPU only; TrainingArguments validates in __post_init__, so nothing is trained. Under 5 s.

    python repro.py
        save_strategy="steps" while eval_strategy is left at "no" (the usual cause: an old
        evaluation_strategy key that the config loader dropped): ValueError "--load_best_model_at_end
        requires the save and eval strategy to match ...".
    python repro.py --steps
        Both "steps", save_steps=300 and eval_steps=200: "... saving steps to be a round multiple
        of the evaluation steps ...".
    python repro.py --fixed
        Both "steps", save_steps=400, eval_steps=200; prints the validated values, exit code 0.
"""

import argparse
import sys
import tempfile

from transformers import TrainingArguments


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group()
    g.add_argument("--steps", action="store_true")
    g.add_argument("--fixed", action="store_true")
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as out:
        common = dict(
            output_dir=out,
            load_best_model_at_end=True,
            metric_for_best_model="eval_loss",
            use_cpu=True,
            report_to=[],
        )
        if args.steps:
            ta = TrainingArguments(
                eval_strategy="steps", eval_steps=200, save_strategy="steps", save_steps=300, **common
            )
        elif args.fixed:
            ta = TrainingArguments(
                eval_strategy="steps", eval_steps=200, save_strategy="steps", save_steps=400, **common
            )
        else:
            ta = TrainingArguments(save_strategy="steps", save_steps=500, **common)
        print(
            f"ok: eval_strategy={ta.eval_strategy} eval_steps={ta.eval_steps} "
            f"save_strategy={ta.save_strategy} save_steps={ta.save_steps}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
