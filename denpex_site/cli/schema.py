"""``denpex-site schema``: write the JSON Schema of an entry, for editor completion."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from denpex_site.cli.common import root

SCHEMA_PATH = Path("schema/entry.schema.json")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser("schema", help="write the JSON Schema of an entry")
    p.add_argument("--output", help=f"file to write (default: {SCHEMA_PATH})")
    return p


def run(args: argparse.Namespace) -> int:
    from denpex_site.content.model import Entry

    target = root(args) / (args.output or SCHEMA_PATH)
    target.parent.mkdir(parents=True, exist_ok=True)
    schema = Entry.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "denpex-site failure entry"
    target.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return 0
