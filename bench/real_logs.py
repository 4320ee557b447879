"""Figures of the real-log development set (tests/real/): coverage, entry first, no wrong root cause,
decisive line.

    python bench/real_logs.py [--root .] [--list]

Prints the figures overall and per scope, and with --list the logs the matcher misses and those
for which it names a wrong root cause. The definitions are in tests/realset.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from denpex_site.build.assets import Paths  # noqa: E402
from denpex_site.build.builder import gather  # noqa: E402
from denpex_site.matcher.engine import Engine  # noqa: E402
from denpex_site.render.api import signature_bundle  # noqa: E402
from tests.realset import figures  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--list", action="store_true", help="list misses and wrong root causes")
    args = parser.parse_args()
    site = gather(Paths(args.root.resolve()))[2]
    f = figures(Engine(signature_bundle(site)), set(site.pages))
    print(f"{f.logs} logs, {f.established} with an established cause, {f.covered} whose failure has an entry")
    print(
        f"coverage (entry exists / cause established): {f.covered}/{f.established} = {f.share(f.covered, f.established):.1%}"
    )
    print(f"entry named first (of covered): {f.first}/{f.covered} = {f.share(f.first, f.covered):.1%}")
    print(
        f"no wrong root cause (of uncovered): {f.no_wrong_root_cause}/{f.uncovered} = "
        f"{f.share(f.no_wrong_root_cause, f.uncovered):.1%}"
    )
    print(
        f"decisive line right (of logs with one): {f.decisive_right}/{f.with_decisive} = "
        f"{f.share(f.decisive_right, f.with_decisive):.1%}"
    )
    print("\n| scope | logs | covered | first |\n|---|---:|---:|---:|")
    for scope, (n, covered, first) in sorted(f.by_scope.items()):
        print(f"| {scope} | {n} | {covered} | {first} |")
    if args.list:
        print("\nMisses:", *f.misses, sep="\n  ")
        print("\nWrong root causes:", *f.wrong, sep="\n  ")
        print("\nWrong decisive lines:", *f.decisive_wrong, sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
