"""The development server: build, serve _site/ on 127.0.0.1, rebuild on change, reload the browser.

livereload polls the watched folders and calls :meth:`Watcher.on_change` once per burst of
events (editors often write a file several times per save). The watcher compares modification
times to find what changed: an edit inside one entry folder re-renders only the pages that
entry affects; anything else (templates, static files, taxonomies) triggers a full build, which
swaps the output folder atomically, so a half-written page is never served.
"""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

from denpex_site.build.builder import Builder
from denpex_site.build.pagefind import index_site
from denpex_site.errors import InvalidContent, ServeError


def _snapshot(root: Path) -> dict[Path, float]:
    out: dict[Path, float] = {}
    for top in ("content", "templates", "static"):
        for path in (root / top).rglob("*"):
            if path.is_file() and not path.name.startswith("."):
                out[path] = path.stat().st_mtime
    return out


class Watcher:
    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.root = builder.paths.root
        self.state = _snapshot(self.root)
        self._indexing = threading.Lock()
        self._stale = threading.Event()

    def reindex(self) -> None:
        """Refresh the API documents and the search index in the background (again if edits arrive)."""
        self._stale.set()
        if not self._indexing.acquire(blocking=False):
            return

        def run() -> None:
            try:
                while self._stale.is_set():
                    self._stale.clear()
                    self.builder.flush_data()
                    if self.builder.index:
                        index_site(self.builder.out)
            except RuntimeError as exc:
                print(f"search index not refreshed: {exc}", file=sys.stderr)
            finally:
                self._indexing.release()

        threading.Thread(target=run, daemon=True).start()

    def changed(self) -> set[Path]:
        now = _snapshot(self.root)
        diff = {p for p in now.keys() | self.state.keys() if now.get(p) != self.state.get(p)}
        self.state = now
        return diff

    def on_change(self) -> None:
        diff = self.changed()
        if not diff:
            return
        failures = self.root / "content" / "failures"
        ids = set()
        full = False
        for path in diff:
            try:
                rel = path.relative_to(failures)
            except ValueError:
                full = True
                continue
            ids.add(rel.parts[0])
        try:
            if full:
                self.builder.build()
                print(f"rebuilt the whole site ({len(diff)} file(s) changed)", file=sys.stderr)
            else:
                took = self.builder.rebuild_entries(ids)
                print(f"re-rendered {', '.join(sorted(ids))} in {took * 1000:.0f} ms", file=sys.stderr)
                self.reindex()
        except InvalidContent as exc:
            print(exc.problems.format(), file=sys.stderr)
            print(
                f"build failed: {len(exc.problems)} problem(s); still serving the last good build",
                file=sys.stderr,
            )


def _snapshot_handler() -> type:
    """livereload's file handler, made safe for files replaced while they are served.

    Tornado sends a file's length from one ``stat`` and its bytes from a later ``open``; a
    rebuild that replaced the file between the two sent a truncated or overlong response. Here the
    file is read once per request and both come from those bytes. A path with a NUL byte is a bad
    request (it raised inside ``os.path``), and a missing page gets the site's own 404 page."""
    from livereload.handlers import StaticFileHandler
    from tornado import web

    class SnapshotHandler(StaticFileHandler):
        _data: bytes | None = None

        def validate_absolute_path(self, root: str, absolute_path: str) -> str | None:
            if "\0" in absolute_path:
                raise web.HTTPError(400)
            return super().validate_absolute_path(root, absolute_path)

        def _bytes(self) -> bytes:
            if self._data is None:
                with open(self.absolute_path, "rb") as fh:
                    self._data = fh.read()
            return self._data

        def compute_etag(self) -> str | None:
            return None  # the dev server never answers 304; this also keeps Tornado from re-reading

        def get_content_size(self) -> int:
            return len(self._bytes())

        def get_content(self, abspath: str, start: int | None = None, end: int | None = None) -> bytes:
            return self._bytes()[start:end]

        def write_error(self, status_code: int, **kwargs: object) -> None:
            page = Path(self.root) / "404.html"
            if status_code == 404 and page.is_file():
                self.set_header("Content-Type", "text/html; charset=utf-8")
                self.finish(page.read_bytes())
            else:
                super().write_error(status_code, **kwargs)

    return SnapshotHandler


def _check_port(host: str, port: int) -> None:
    """A busy port is a one-line error before anything is built."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ServeError(
                f"cannot listen on {host}:{port} ({exc.strerror or exc}): another server may be using it; "
                f"choose another port with --port"
            ) from None


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False) -> int:
    from livereload import Server

    _check_port(host, port)
    builder = Builder(root)
    try:
        builder.build()
    except InvalidContent as exc:
        print(exc.problems.format(), file=sys.stderr)
        print("fix these problems; serving will start once the content is valid", file=sys.stderr)
        if not builder.out.exists():
            builder.out.mkdir(parents=True)
    watcher = Watcher(builder)
    server = Server()
    server.SFH = _snapshot_handler()
    for top in ("content", "templates", "static"):
        server.watch(str(root / top), watcher.on_change, delay=0.2)
    print(f"serving on http://{host}:{port}/ (Ctrl-C to stop)", file=sys.stderr)
    server.serve(root=str(builder.out), host=host, port=port, open_url_delay=1 if open_browser else None)
    return 0
