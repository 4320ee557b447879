"""``denpex-site check``: report every problem in every file, in one run."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from denpex_site.cli.common import format_option, print_problems, root


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser("check", help="validate every entry and report all problems")
    format_option(p)
    return p


def run(args: argparse.Namespace) -> int:
    from denpex_site.build.builder import check

    problems = check(root(args))
    if problems:
        print_problems(problems, args.format)
        if args.format == "text":
            print(f"{len(problems)} problem(s) found", file=sys.stderr)
        return 1
    if args.format == "json":
        print("[]")
    else:
        print("content is valid", file=sys.stderr)
    return 0
