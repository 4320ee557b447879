"""``denpex-site diagnose``: name the known failures in training logs (exit 0 found, 1 none, 2 error)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from denpex_site.cli.common import base_url, bundle_path, matcher_options
from denpex_site.errors import InputError


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "diagnose", help="name the known failures in training logs (exit 0 found, 1 none, 2 error)"
    )
    p.add_argument(
        "files", nargs="+", metavar="FILE", help="log files, one per rank is best; - reads standard input"
    )
    p.add_argument("--json", action="store_true", help="print the structured result")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto")
    matcher_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    from denpex_site.matcher.bundle import load_bundle
    from denpex_site.matcher.diagnosis import Diagnosis
    from denpex_site.matcher.engine import Engine
    from denpex_site.matcher.report import text_report

    diagnosis = Diagnosis(Engine(load_bundle(bundle_path(args))))
    for name in args.files:
        try:
            if name == "-":
                diagnosis.add_stream(sys.stdin.buffer, "stdin")
            else:
                path = Path(name)
                if path.is_dir():
                    raise InputError(f"{name} is a directory")
                diagnosis.add_file(path, name)
        except OSError as exc:
            raise InputError(f"cannot read {name}: {exc.strerror or exc}") from exc
    result = diagnosis.result()
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
    else:
        colour = (sys.stdout.isatty() and args.color != "never") or args.color == "always"
        sys.stdout.write(text_report(result, base_url(args), colour=colour))
    return 0 if result["findings"] else 1
