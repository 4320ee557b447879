"""``denpex-site build``: check everything, then build the site and swap it in atomically."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from denpex_site.cli.common import format_option, print_problems, root
from denpex_site.errors import InvalidContent


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser("build", help="build the site into _site/ (the default)")
    p.add_argument("--out", help="output folder (default: _site)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--no-index", action="store_true", help="skip the Pagefind full-text index")
    format_option(p)
    return p


def run(args: argparse.Namespace) -> int:
    from denpex_site.build.builder import Builder

    start = time.perf_counter()
    builder = Builder(
        root(args), Path(args.out) if args.out else None, jobs=args.jobs, index=not args.no_index
    )
    try:
        site = builder.build()
    except InvalidContent as exc:
        print_problems(exc.problems, args.format)
        print(
            f"build failed: {len(exc.problems)} problem(s); {builder.out} was left unchanged", file=sys.stderr
        )
        return 1
    took = time.perf_counter() - start
    print(f"built {len(site.pages)} entries into {builder.out} in {took:.2f}s", file=sys.stderr)
    return 0
