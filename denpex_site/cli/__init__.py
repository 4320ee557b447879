"""The command line: ``denpex-site`` and ``python build.py``.

One module per command, each with ``add_parser`` (its arguments) and ``run`` (what it does).
Every error the project raises on purpose is a :class:`~denpex_site.errors.DenpexError`, caught
here once and printed as one line with its exit code; no user error ends in a traceback.
"""

from __future__ import annotations

import argparse
import sys

from denpex_site.cli import build, check, diagnose, new, schema, serve, watch
from denpex_site.errors import DenpexError
from denpex_site.terminal import safe

COMMANDS = (build, check, serve, new, diagnose, watch, schema)


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="denpex-site", description="Build and check the denpex encyclopedia."
    )
    parser.add_argument("--root", default=".", help="project folder (holds content/, templates/, static/)")
    sub = parser.add_subparsers(dest="command")
    for command in COMMANDS:
        command.add_parser(sub).set_defaults(func=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args([*(argv if argv is not None else sys.argv[1:]), "build"])
    try:
        return int(args.func(args))
    except DenpexError as exc:
        exc.report()
        print(f"error: {safe(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
