"""Serve a built site on 127.0.0.1 and save screenshots of pages: ``python bench/screenshot.py SITE OUTDIR /path/ ...``."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.browser import CHROMIUM_ARGS, CHROMIUM_PATH, static_server


def main() -> int:
    site, out, *urls = sys.argv[1:]
    Path(out).mkdir(parents=True, exist_ok=True)
    dark = "--dark" in urls
    urls = [u for u in urls if u != "--dark"]
    with static_server(Path(site)) as base, sync_playwright() as pw:
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
