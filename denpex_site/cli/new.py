"""``denpex-site new``: scaffold an entry folder whose TODO markers ``check`` reports until filled."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from typing import Any

from denpex_site.cli.common import root
from denpex_site.errors import UsageError

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


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser("new", help="scaffold a new entry folder")
    p.add_argument("id", help="the entry id: kebab-case, naming the failure")
    p.add_argument("--category", required=True, help="one of the ids in content/categories.yaml")
    return p


def _category_ids(text: str) -> list[str]:
    return re.findall(r"^\s*- id: ([a-z0-9-]+)\s*$", text, re.M)


def run(args: argparse.Namespace) -> int:
    from denpex_site.content.model import KEBAB

    project = root(args)
    if not re.fullmatch(KEBAB, args.id):
        raise UsageError(f"id '{args.id}' must be kebab-case (lowercase words joined by '-')")
    categories = _category_ids((project / "content/categories.yaml").read_text(encoding="utf-8"))
    if args.category not in categories:
        raise UsageError(f"unknown category '{args.category}'; the categories are: {', '.join(categories)}")
    folder = project / "content/failures" / args.id
    if folder.exists():
        raise UsageError(f"{folder} already exists")
    (folder / "logs").mkdir(parents=True)
    today = dt.date.today().isoformat()
    (folder / "entry.yaml").write_text(
        SCAFFOLD.format(id=args.id, category=args.category, today=today), encoding="utf-8"
    )
    (folder / "logs/example.log").write_text("TODO: paste the captured log here\n", encoding="utf-8")
    print(f"created {folder.relative_to(project)}/entry.yaml and logs/example.log")
    print("fill every TODO, then run: python build.py check", file=sys.stderr)
    return 0
