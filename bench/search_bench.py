"""How fast the header search answers, in Chromium, on a site of N entries.

    python bench/search_bench.py [--entries 1000] [--write]

Replicates the real entries to N (as bench/build_bench.py does), builds the site with its Pagefind
index, opens an entry page in Chromium and types queries into the header search box, one key at a
time with a human pause between keys. For each query it measures the time from the last keystroke
to the moment the result list shows the results of the whole query (a MutationObserver in the page
records it). It also records the bytes a page transfers before the user types and the bytes the
first search loads. With --write the figures replace the "## Search" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from build_bench import Plan, load_sources, make_projects  # noqa: E402
from diagnose_bench import replace_section  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from denpex_site.build.builder import Builder  # noqa: E402
from denpex_site.build.pagefind import index_site  # noqa: E402
from tests.browser import CHROMIUM_ARGS, CHROMIUM_PATH, static_server  # noqa: E402

QUERIES = [
    "nccl timeout",
    "unused parameters",
    "address already in use",
    "cuda out of memory",
    "training hangs at the end of the epoch",
    "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.",
    "ncclSystemError",
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE",
]

OBSERVE = """() => {
  const popup = document.getElementById('search-popup');
  const box = document.getElementById('site-search');
  window.__bench = { key: 0, done: null };
  box.addEventListener('keydown', () => { window.__bench.key = performance.now(); window.__bench.done = null; }, true);
  new MutationObserver(() => {
    if (popup.querySelector('[role=option]') || popup.querySelector('.search-more')) {
      window.__bench.done = performance.now() - window.__bench.key;
    }
  }).observe(popup, { childList: true });
}"""


def build_site(entries: int, work: Path) -> Path:
    ours, hugo = work / "ours", work / "hugo"
    plan = Plan(load_sources(ROOT), entries)
    make_projects(plan, ROOT, ours, hugo)
    out = work / "site"
    Builder(ours, out).build()
    return out


def measure(site: Path, pause: float) -> tuple[list[tuple[str, float]], int, int, int]:
    timings = []
    with static_server(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        page = browser.new_page()
        sizes: dict[str, int] = {}
        page.on("requestfinished", lambda r: sizes.__setitem__(r.url, r.sizes()["responseBodySize"]))
        entry = next(iter(sorted((site / "failures").glob("*/index.html")))).parent.name
        page.goto(f"{base}/failures/{entry}/")
        page.wait_for_load_state("networkidle")
        before = sum(sizes.values())
        searching = [u for u in sizes if "/pagefind/" in u or "/api/" in u or "search-" in u]
        assert not searching, f"search loaded before typing: {searching}"
        site_js = sum(v for u, v in sizes.items() if "/assets/js/site." in u)
        page.evaluate(OBSERVE)
        page.click("#site-search")
        loaded = None
        for query in QUERIES:
            page.fill("#site-search", "")
            for ch in query[:-1]:
                page.keyboard.type(ch)
                time.sleep(pause)
            page.wait_for_timeout(300)  # the user pauses before the last key
            page.evaluate("() => { window.__bench.done = null; }")
            page.keyboard.type(query[-1])
            page.wait_for_function("() => window.__bench.done !== null", timeout=30_000)
            timings.append((query, float(page.evaluate("() => window.__bench.done"))))
            if loaded is None:
                loaded = sum(sizes.values()) - before
        browser.close()
    return timings, before, site_js, loaded or 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--pause", type=float, default=0.12, help="seconds between keystrokes")
    parser.add_argument("--site", help="measure an already built site instead")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    site = (
        Path(args.site)
        if args.site
        else build_site(args.entries, Path(tempfile.mkdtemp(prefix="denpex-search-")))
    )
    if not (site / "pagefind" / "pagefind.js").is_file():
        # build_bench's last cold run of a kept project is the one without Pagefind.
        print(f"{site} has no Pagefind index: indexing it first", file=sys.stderr)
        index_site(site)
    count = len(list((site / "failures").glob("*/index.html")))
    timings, before, site_js, loaded = measure(site, args.pause)
    values = [t for _, t in timings]
    rows = ["| query | last keystroke to results (ms) |", "|---|---:|"]
    rows += [f"| `{q[:70]}` | {t:.0f} |" for q, t in timings]
    summary = (
        f"median {statistics.median(values):.0f} ms, worst {max(values):.0f} ms over {len(values)} queries; "
        f"before the user types, an entry page transfers {before / 1024:.0f} KiB, of which search adds only "
        f"the header box's code in site.js ({site_js / 1024:.1f} KiB, the whole script); the first search "
        f"loads {loaded / 1024:.0f} KiB more, uncompressed (signature bundle, word index, Pagefind runtime "
        "and index chunks)"
    )
    print("\n".join(rows))
    print(summary)
    if args.write:
        command = (
            "`python bench/search_bench.py --site SITE`, SITE being the _site of the 1,000-entry project that "
            "`python bench/build_bench.py --sizes 1000 --keep` leaves"
            if args.site
            else f"`python bench/search_bench.py --entries {args.entries}`"
        )
        section = (
            "## Search\n\n"
            f"Command: {command} ({dt.date.today().isoformat()}; "
            f"{os.cpu_count()} cores, {platform.machine()}, headless Chromium). Site of {count} entries "
            "(the real entries replicated as in bench/build_bench.py) with its Pagefind index; "
            f"keys typed {args.pause * 1000:.0f} ms apart into the header box of an entry page.\n\n"
            f"Result: {summary}. Target: first result within 100 ms of the last keystroke; "
            "at most 100 KB of search transfer before the user types.\n\n" + "\n".join(rows) + "\n"
        )
        replace_section(ROOT / "docs/benchmarks.md", "## Search", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
