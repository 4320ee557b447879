"""``denpex-site watch``: follow a growing log and alert on known failures and on stalls."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from denpex_site.cli.common import base_url, bundle_path, matcher_options

ENVIRONMENT = """\
--exec runs its command on the first alert of each run of the file (a rotation or truncation
starts a new run) and on each stall, with these environment variables:
  DENPEX_ROLE   root-cause, warning, collateral, or stall (--stall: the log stopped growing)
  DENPEX_ENTRY  the entry id (empty for a stall)
  DENPEX_FILE   the file watched
  DENPEX_LINE   the line of the first matching line (for a stall: the last line read)
  DENPEX_RANK   its rank, when the line or the file name gives one (else empty)"""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "watch",
        help="follow a growing log and alert on known failures and stalls",
        description="Follow a growing log and alert on each known failure's first line (root causes, "
        "warnings, collateral lines marked as such), and with --stall when the log stops growing.",
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--exec", metavar="CMD", help="run this shell command on the first alert (see below)")
    p.add_argument(
        "--stall",
        metavar="MINUTES",
        type=float,
        help="alert when the log has had no new line for this long (a hang prints nothing)",
    )
    p.add_argument("--from-end", action="store_true", help="ignore what the file already holds")
    p.add_argument("--exit-on-alert", action="store_true", help="stop after the first alert (exit 0)")
    p.add_argument("--interval", type=float, default=0.25, help="seconds between polls")
    matcher_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    from denpex_site.matcher.bundle import load_bundle
    from denpex_site.matcher.watch import watch

    return watch(
        Path(args.file),
        load_bundle(bundle_path(args)),
        base_url=base_url(args),
        command=args.exec,
        from_end=args.from_end,
        interval=args.interval,
        exit_on_alert=args.exit_on_alert,
        stall=args.stall,
    )
