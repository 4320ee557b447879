"""Crafted lines against every signature: how long the worst line takes in each matcher's regex engine.

    python bench/matcher_fuzz.py [--bundle _site/api/signatures.json] [--width 4000] [--repeat 20]

For every signature the lines of tests/crafted.py (near misses, and near misses ending in a real
match) are matched with the exact regex, in Python's ``re`` and in Node's V8: the slowest
signatures per engine are printed, with the time per line. A pattern whose parts that take any
text multiply each other's tries shows here as a per-line time orders of magnitude above the rest.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.crafted import crafted_lines  # noqa: E402

NODE_TIMER = """
import { readFileSync } from "node:fs";
const jobs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const repeat = Number(process.argv[3]);
const out = [];
for (const [regex, lines] of jobs) {
  const rx = new RegExp(regex);
  const t = process.hrtime.bigint();
  for (let i = 0; i < repeat; i++) for (const line of lines) rx.test(line);
  out.push(Number(process.hrtime.bigint() - t) / 1e9 / repeat / lines.length);
}
process.stdout.write(JSON.stringify(out));
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bundle", type=Path, default=ROOT / "_site/api/signatures.json")
    parser.add_argument("--width", type=int, default=4000, help="characters per crafted line")
    parser.add_argument("--repeat", type=int, default=20, help="times each line is matched")
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args()
    signatures = json.loads(args.bundle.read_text(encoding="utf-8"))["signatures"]
    jobs = [(s["regex"], crafted_lines(s["pattern"], args.width)) for s in signatures]
    python = []
    for regex, lines in jobs:
        rx = re.compile(regex, re.ASCII)
        start = time.perf_counter()
        for _ in range(args.repeat):
            for line in lines:
                rx.search(line)
        python.append((time.perf_counter() - start) / args.repeat / len(lines))
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "jobs.json").write_text(json.dumps(jobs))
        (Path(tmp) / "timer.mjs").write_text(NODE_TIMER)
        out = subprocess.run(
            ["node", str(Path(tmp) / "timer.mjs"), str(Path(tmp) / "jobs.json"), str(args.repeat)],
            capture_output=True,
            text=True,
            check=True,
        )
    node = json.loads(out.stdout)
    print(f"{len(signatures)} signatures, lines of {args.width} characters")
    for name, times in (("Python re", python), ("Node V8", node)):
        worst = sorted(zip(times, (s["pattern"] for s in signatures), strict=True), reverse=True)[: args.top]
        print(f"\n{name}: slowest signatures (time per line)")
        for seconds, pattern in worst:
            print(f"  {seconds * 1e6:9.1f} us  {pattern[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
