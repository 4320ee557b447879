"""``denpex-site watch``: follow a growing log and alert on the first root-cause signature."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from denpex_site.cli.common import base_url, bundle_path, matcher_options


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "watch", help="follow a growing log and alert on the first root-cause signature"
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--exec", metavar="CMD", help="run this shell command on the first alert")
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
    )
