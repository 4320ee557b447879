"""Helpers for driving Debian's chromium with Playwright against a site served on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


NETLIFY = Path(__file__).resolve().parent.parent / "netlify.toml"


def netlify_headers(path: str) -> dict[str, str]:
    """The headers netlify.toml sets for ``path`` (rules for /* and prefix/* patterns)."""
    config = tomllib.loads(NETLIFY.read_text())
    out: dict[str, str] = {}
    for rule in config.get("headers", []):
        pattern = rule["for"]
        if (
            pattern in ("/*", path)
            or (pattern.endswith("/*") and path.startswith(pattern[:-1]))
            or (pattern.startswith("/*.") and path.endswith(pattern[2:]))
        ):
            out.update(rule["values"])
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site with the same headers netlify would send, CSP included."""

    def end_headers(self) -> None:
        for name, value in netlify_headers(self.path.split("?", 1)[0]).items():
            if name != "Strict-Transport-Security":
                self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if code == 404:
            page = Path(self.directory) / "404.html"
            if page.is_file():
                body = page.read_bytes()
                self.send_response(404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
        super().send_error(code, message, explain)


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # A page left before a response was sent in full (the next test navigates on) is normal.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def static_server(root: Path) -> Iterator[str]:
    """Serve ``root`` on a free loopback port (404s get the site's 404 page, like netlify)."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def search_results(page: Any, base: str, query: str, **filters: str) -> list[str]:
    """Open the /search/ page for ``query`` (and filters) and return the result entry ids in order."""
    page.goto(f"{base}/search/?{urlencode({'q': query, **filters})}")
    page.wait_for_selector("#search-count:not(:empty)", timeout=15_000)
    return page.locator("#search-results [data-entry-id]").evaluate_all(
        "els => els.map(e => e.dataset.entryId)"
    )
