"""Search quality: how often each query returns its entry first.

    python bench/search_quality.py [--write]

Builds the site from content/, runs every query of tests/search_queries.yaml and of the held-out
set bench/search_heldout.yaml on the /search/ page in Chromium and reports, per file and kind of
query (words, paraphrase, error-line), the share that returns the expected entry first and in the
top 3, and lists every miss. With --write the figures replace the "## Search quality" section of
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from diagnose_bench import replace_section  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from denpex_site.build.builder import Builder  # noqa: E402
from tests.browser import CHROMIUM_ARGS, CHROMIUM_PATH, search_results, static_server  # noqa: E402

FILES = {"tests/search_queries.yaml": "test queries", "bench/search_heldout.yaml": "held-out queries"}


def measure(page: object, base: str, queries: list[dict]) -> tuple[str, list[str]]:
    """The table of one query file and its misses."""
    first: dict[str, int] = defaultdict(int)
    top3: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    misses = []
    for q in queries:
        ids = search_results(page, base, q["query"])
        kind = q["kind"]
        total[kind] += 1
        first[kind] += ids[:1] == [q["expect"]]
        top3[kind] += q["expect"] in ids[:3]
        if ids[:1] != [q["expect"]]:
            rank = ids.index(q["expect"]) + 1 if q["expect"] in ids else "not found"
            misses.append(f"| {kind} | `{q['query'][:80]}` | {q['expect']} | {rank} | {', '.join(ids[:2])} |")
    rows = ["| kind | queries | first | top 3 |", "|---|---:|---:|---:|"]
    for kind in sorted(total):
        rows.append(
            f"| {kind} | {total[kind]} | {first[kind]} ({first[kind] / total[kind]:.0%}) "
            f"| {top3[kind]} ({top3[kind] / total[kind]:.0%}) |"
        )
    return "\n".join(rows), misses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    site = Path(tempfile.mkdtemp(prefix="denpex-quality-")) / "site"
    built = Builder(ROOT, site).build()
    parts = []
    with static_server(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        page = browser.new_page()
        for path, name in FILES.items():
            queries = yaml.safe_load((ROOT / path).read_text())["queries"]
            table, misses = measure(page, base, queries)
            print(f"{path} ({len(queries)} queries)\n{table}\n" + "\n".join(misses) + "\n")
            listed = (
                "Misses:\n\n| kind | query | expected | its rank | first two |\n|---|---|---|---:|---|\n"
                + "\n".join(misses)
                if misses
                else "Misses: none."
            )
            parts.append(f"### {name.capitalize()}: {path} ({len(queries)})\n\n{table}\n\n{listed}\n")
        browser.close()
    if args.write:
        section = (
            "## Search quality\n\n"
            f"Command: `python bench/search_quality.py` ({dt.date.today().isoformat()}): every query on the "
            f"/search/ page in Chromium, site of {len(built.pages)} entries. Goal: every query returns its "
            "entry first (at most 3 paraphrases only in the top 3). The test queries' misses show where "
            "entries lack the words people use, and entries have been given those words; the held-out "
            "queries are never used that way, so they measure how search does on queries nobody tuned "
            "for. Each test query names one failure: a query that fits two entries equally is asked once "
            "per entry, with the word that tells them apart.\n\n" + "\n".join(parts)
        )
        replace_section(ROOT / "docs/benchmarks.md", "## Search quality", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
