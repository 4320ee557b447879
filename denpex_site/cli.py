"""The command line: ``denpex-site`` and ``python build.py``.

Commands: build (default), serve, check, new, schema, diagnose, watch.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .errors import Problems

SCHEMA_PATH = Path("schema/entry.schema.json")


def _root(args: argparse.Namespace) -> Path:
    return Path(args.root).resolve()


def cmd_build(args: argparse.Namespace) -> int:
    from .builder import Builder
    from .errors import BuildFailed

    start = time.perf_counter()
    builder = Builder(
        _root(args), Path(args.out) if args.out else None, jobs=args.jobs, index=not args.no_index
    )
    try:
        site = builder.build()
    except BuildFailed as exc:
        _print_problems(exc.problems, args.format)
        print(
            f"build failed: {len(exc.problems)} problem(s); {builder.out} was left unchanged", file=sys.stderr
        )
        return 1
    took = time.perf_counter() - start
    print(f"built {len(site.pages)} entries into {builder.out} in {took:.2f}s", file=sys.stderr)
    return 0


def _print_problems(problems: Problems, fmt: str) -> None:
    text = problems.format(fmt)
    if text:
        print(text)


def cmd_check(args: argparse.Namespace) -> int:
    from .builder import check

    problems = check(_root(args))
    if problems:
        _print_problems(problems, args.format)
        if args.format == "text":
            print(f"{len(problems)} problem(s) found", file=sys.stderr)
        return 1
    if args.format == "json":
        print("[]")
    else:
        print("content is valid", file=sys.stderr)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    return serve(_root(args), host=args.host, port=args.port, open_browser=args.open)


def cmd_schema(args: argparse.Namespace) -> int:
    from .model import Entry

    target = _root(args) / (args.output or SCHEMA_PATH)
    target.parent.mkdir(parents=True, exist_ok=True)
    schema = Entry.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "denpex-site failure entry"
    target.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return 0


SCAFFOLD = """\
# yaml-language-server: $schema=../../../schema/entry.schema.json
id: {id}
title: "TODO: the failure as users would search for it"
category: {category}
severity: critical  # critical: dies or hangs; high: silently wrong or 2x slower; medium; low
added: {today}
tags: [TODO]
systems: [pytorch]
versions:
  - system: pytorch
    versions: "TODO: affected range, e.g. >=2.0"
quick_answer:
  symptom: "TODO: what the reader sees, in one line"
  cause: "TODO: why it happens, in one line"
  fix: "TODO: the smallest correct change, in one line"
mechanism: |
  TODO: why it happens at the level of the real internals.
observations:
  - text: "TODO: an error line exactly as printed"
    versions: "TODO: which versions print it"
symptoms:
  - symptom: "TODO: one observable"
    why: "TODO: its own reason"
  - symptom: "TODO: another observable"
    why: "TODO: its own reason"
confirm:
  - step: "TODO: a concrete command or flag"
    shows: "TODO: what it shows when this is the cause"
signatures:
  - pattern: "TODO: the exact error text, with {{int}}, {{path}} ... for values that vary"
    role: root-cause
    source: "TODO: upstream file, reproduction or issue thread the text comes from"
    examples: [logs/example.log]
logs:
  - file: logs/example.log
    kind: captured
    origin: "TODO: the command and versions that produced it"
fix:
  summary: |
    TODO: the smallest correct change and its cost.
  examples:
    - stack: pytorch
      title: "TODO: what the snippet shows"
      code: |
        # TODO: code that runs as written
verify: |
  TODO: how to prove the fix worked.
prevention:
  - "TODO: a test, assertion, config check or monitor"
fingerprint: |
  TODO: the signal to alert on.
faq:
  - q: "TODO: a question users really ask"
    a: "TODO: its specific answer"
references:
  - title: "TODO: upstream documentation or issue thread"
    url: https://TODO.example
"""


def cmd_new(args: argparse.Namespace) -> int:
    import datetime as dt
    import re

    from .model import KEBAB

    root = _root(args)
    if not re.fullmatch(KEBAB, args.id):
        print(f"error: id '{args.id}' must be kebab-case (lowercase words joined by '-')", file=sys.stderr)
        return 2
    categories = (root / "content/categories.yaml").read_text(encoding="utf-8")
    if not re.search(rf"^\s*- id: {re.escape(args.category)}\s*$", categories, re.M):
        print(f"error: unknown category '{args.category}' (see content/categories.yaml)", file=sys.stderr)
        return 2
    folder = root / "content/failures" / args.id
    if folder.exists():
        print(f"error: {folder} already exists", file=sys.stderr)
        return 2
    (folder / "logs").mkdir(parents=True)
    today = dt.date.today().isoformat()
    (folder / "entry.yaml").write_text(
        SCAFFOLD.format(id=args.id, category=args.category, today=today), encoding="utf-8"
    )
    (folder / "logs/example.log").write_text("TODO: paste the captured log here\n", encoding="utf-8")
    print(f"created {folder.relative_to(root)}/entry.yaml and logs/example.log")
    print("fill every TODO, then run: python build.py check")
    return 0


def _bundle(args: argparse.Namespace) -> dict:
    from .diagnose import load_bundle

    return load_bundle(Path(args.bundle) if args.bundle else None)


def _base_url(args: argparse.Namespace) -> str:
    return "https://denpex-site.netlify.app" if not args.base_url else args.base_url.rstrip("/")


def cmd_diagnose(args: argparse.Namespace) -> int:
    from .diagnose import Diagnosis, Engine
    from .report import text_report

    try:
        diagnosis = Diagnosis(Engine(_bundle(args)))
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: cannot read the signature bundle: {exc}", file=sys.stderr)
        return 2
    for name in args.files:
        try:
            if name == "-":
                diagnosis.add_stream(sys.stdin.buffer, "stdin")
            else:
                path = Path(name)
                if path.is_dir():
                    print(f"error: {name} is a directory", file=sys.stderr)
                    return 2
                diagnosis.add_file(path, name)
        except OSError as exc:
            print(f"error: cannot read {name}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    result = diagnosis.result()
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
    else:
        colour = (sys.stdout.isatty() and args.color != "never") or args.color == "always"
        sys.stdout.write(text_report(result, _base_url(args), colour=colour))
    return 0 if result["findings"] else 1


def cmd_watch(args: argparse.Namespace) -> int:
    from .watch import watch

    try:
        bundle = _bundle(args)
    except (OSError, ValueError) as exc:
        print(f"error: cannot read the signature bundle: {exc}", file=sys.stderr)
        return 2
    return watch(
        Path(args.file),
        bundle,
        base_url=_base_url(args),
        command=args.exec,
        from_end=args.from_end,
        interval=args.interval,
        exit_on_alert=args.exit_on_alert,
    )


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="denpex-site", description="Build and check the denpex encyclopedia."
    )
    parser.add_argument("--root", default=".", help="project folder (holds content/, templates/, static/)")
    sub = parser.add_subparsers(dest="command")

    def fmt(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--format", choices=["text", "github", "json"], default="text", help="how to print problems"
        )

    p = sub.add_parser("build", help="build the site into _site/ (the default)")
    p.add_argument("--out", help="output folder (default: _site)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--no-index", action="store_true", help="skip the Pagefind full-text index")
    fmt(p)
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("check", help="validate every entry and report all problems")
    fmt(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("serve", help="build, serve on 127.0.0.1 and rebuild on change")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--open", action="store_true", help="open a browser")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("new", help="scaffold a new entry bundle")
    p.add_argument("id")
    p.add_argument("--category", required=True)
    p.set_defaults(func=cmd_new)

    def matcher_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--bundle", help="signature bundle to use (default: the one installed with the package)"
        )
        p.add_argument("--base-url", help="site address used in links (default: the public site)")

    p = sub.add_parser(
        "diagnose", help="name the known failures in training logs (exit 0 found, 1 none, 2 error)"
    )
    p.add_argument(
        "files", nargs="+", metavar="FILE", help="log files, one per rank is best; - reads standard input"
    )
    p.add_argument("--json", action="store_true", help="print the structured result")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto")
    matcher_options(p)
    p.set_defaults(func=cmd_diagnose)

    p = sub.add_parser("watch", help="follow a growing log and alert on the first root-cause signature")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--exec", metavar="CMD", help="run this shell command on the first alert")
    p.add_argument("--from-end", action="store_true", help="ignore what the file already holds")
    p.add_argument("--exit-on-alert", action="store_true", help="stop after the first alert (exit 0)")
    p.add_argument("--interval", type=float, default=0.25, help="seconds between polls")
    matcher_options(p)
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("schema", help="write the JSON Schema of an entry")
    p.add_argument("--output", help=f"file to write (default: {SCHEMA_PATH})")
    p.set_defaults(func=cmd_schema)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args([*(argv if argv is not None else sys.argv[1:]), "build"])
    return int(args.func(args))
