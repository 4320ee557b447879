"""Serve a built site on 127.0.0.1 and save screenshots of pages: ``python bench/screenshot.py SITE OUTDIR /path/ ...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.browser import CHROMIUM_ARGS, CHROMIUM_PATH, static_server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split(":")[0])
    parser.add_argument("site", type=Path, help="a built site (e.g. _site)")
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("urls", nargs="+", help="paths of pages, e.g. / /failures/")
    parser.add_argument("--dark", action="store_true", help="prefers-color-scheme: dark")
    args = parser.parse_args()
    out, urls, dark = args.out, args.urls, args.dark
    out.mkdir(parents=True, exist_ok=True)
    with static_server(args.site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        for width in (1280, 420):
            page = browser.new_page(
                viewport={"width": width, "height": 900}, color_scheme="dark" if dark else "light"
            )
            for url in urls:
                page.goto(base + url)
                name = url.strip("/").replace("/", "_") or "home"
                page.screenshot(path=f"{out}/{name}-{width}{'-dark' if dark else ''}.png", full_page=True)
            page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
