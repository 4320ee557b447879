"""``denpex-site diagnose``: name the known failures in training logs (exit 0 found, 1 none, 2 error)."""

from __future__ import annotations

import argparse
import gzip
import json
import stat
import sys
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from denpex_site.cli.common import base_url, bundle_path, matcher_options
from denpex_site.errors import InputError
from denpex_site.terminal import safe

if TYPE_CHECKING:
    from denpex_site.matcher.diagnosis import Readable


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "diagnose", help="name the known failures in training logs (exit 0 found, 1 none, 2 error)"
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="log files (.gz ones too), one per rank is best; a folder stands for the files in it; "
        "- reads standard input",
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
    failed: list[str] = []
    names = [name for given in args.files for name in _expand(given)]
    for name in names:
        try:
            if name == "-":
                diagnosis.add_stream(cast("Readable", sys.stdin.buffer), "stdin")
            elif name.endswith(".gz"):
                with gzip.open(_regular_file(name)) as fh:
                    diagnosis.add_stream(cast("Readable", fh), name)
            else:
                diagnosis.add_file(_regular_file(name), name)
        except (OSError, EOFError, zlib.error, InputError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            failed.append(f"cannot read {name}: {reason or type(exc).__name__}")
    if failed and len(failed) == len(names):
        raise InputError("; ".join(failed))
    result = diagnosis.result()
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
    else:
        colour = (sys.stdout.isatty() and args.color != "never") or args.color == "always"
        sys.stdout.write(text_report(result, base_url(args), colour=colour))
    failed += [
        f"{f['name']} looks like a binary file, not a text log" for f in result["files"] if f["skipped"]
    ]
    for message in failed:  # the other files were diagnosed; these are named, and the exit is 2
        print(f"error: {safe(message)}", file=sys.stderr)
    if failed:
        return 2
    return 0 if result["findings"] else 1


def _expand(name: str) -> list[str]:
    """A folder stands for the regular, visible files directly in it, sorted by name (one file per
    rank, as launchers write them); anything else stands for itself."""
    path = Path(name)
    if name == "-" or not path.is_dir():
        return [name]
    files = sorted(str(p) for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise InputError(f"{name} is a folder without files")
    return files


def _regular_file(name: str) -> Path:
    """A path to read: a FIFO or device would block or never end, a folder holds no log."""
    path = Path(name)
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise InputError(f"{name} is a directory")
    if not stat.S_ISREG(mode):
        raise InputError(f"{name} is not a regular file (a pipe or device): pipe it to standard input with -")
    return path
