"""The development server: serves the build, re-renders an edited entry, keeps serving on errors."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from ..conftest import REPO

BUILD = REPO / "build.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.read().decode()
    except OSError:
        return None


def wait_for(predicate, timeout: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_serve_rebuilds_on_edit_and_survives_bad_content(project: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/failures/demo-oom/"
    proc = subprocess.Popen(
        [sys.executable, str(BUILD), "--root", str(project), "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        assert wait_for(lambda: (fetch(url) or "").find("Reserved but unallocated") >= 0), (
            "the server did not start"
        )
        entry = project / "content/failures/demo-oom/entry.yaml"
        entry.write_text(entry.read_text().replace("Reserved but unallocated", "Reserved but idle"))
        assert wait_for(lambda: "Reserved but idle" in (fetch(url) or "")), "the edit was not re-rendered"
        # A broken edit: the last good page keeps being served.
        entry.write_text(entry.read_text().replace("severity: critical", "severity: [broken"))
        time.sleep(1.5)
        assert "Reserved but idle" in (fetch(url) or "")
        entry.write_text(
            entry.read_text().replace("severity: [broken", "severity: critical").replace("idle", "free")
        )
        assert wait_for(lambda: "Reserved but free" in (fetch(url) or "")), "the server did not recover"
        template = project / "templates/404.html"
        template.write_text(template.read_text().replace("Page not found", "Nothing here"))
        assert wait_for(lambda: "Nothing here" in (fetch(f"http://127.0.0.1:{port}/404.html") or ""))
    finally:
        proc.terminate()
        out = proc.communicate(timeout=10)[0].decode(errors="replace")
    assert "re-rendered demo-oom" in out, out
    assert "build failed" in out and "content/failures/demo-oom/entry.yaml:5:" in out, out


def start_server(project: Path, page: str = "/failures/demo-oom/") -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(BUILD), "--root", str(project), "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    assert wait_for(lambda: fetch(base + page) is not None, timeout=120), "the server did not start"
    return proc, base


def test_no_response_is_cut_or_half_written_during_rebuilds(tmp_path: Path) -> None:
    """The API document was once sent truncated (2,293,760 of 2,324,627 bytes) during a rebuild: the
    real content, whose API documents are megabytes, is served while one entry is edited again and again."""
    import json
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    repo = BUILD.parent
    project = tmp_path / "real"
    for top in ("content", "templates", "static"):
        shutil.copytree(repo / top, project / top)
    proc, base = start_server(project, "/failures/cuda-oom/")
    entry = project / "content/failures/cuda-oom/entry.yaml"
    original = entry.read_text()
    paths = ["/api/entries.json", "/api/search.json", "/api/signatures.json", "/failures/cuda-oom/", "/"]
    bad: list[str] = []

    def get(i: int) -> None:
        path = paths[i % len(paths)]
        try:
            with urllib.request.urlopen(base + path, timeout=30) as response:
                body = response.read()
                length = response.headers.get("Content-Length")
        except OSError as exc:
            bad.append(f"{path}: {exc}")
            return
        if length is not None and int(length) != len(body):
            bad.append(f"{path}: {len(body)} of {length} bytes")
        elif path.endswith(".json"):
            try:
                json.loads(body)
            except ValueError:
                bad.append(f"{path}: not whole JSON")
        elif not body.rstrip().endswith(b"</html>"):
            bad.append(f"{path}: not a whole page")

    try:
        with ThreadPoolExecutor(max_workers=200) as pool:
            for round_ in range(4):  # a bounded loop: 4 rebuilds, 200 requests during each
                entry.write_text(
                    original.replace("severity: critical", f"severity: critical\n# round {round_}", 1)
                )
                list(pool.map(get, range(200)))
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert not bad, bad[:10]


def test_a_busy_port_is_one_line_and_unknown_urls_get_the_404_page(project: Path) -> None:
    proc, base = start_server(project)
    try:
        port = base.rsplit(":", 1)[1]
        busy = subprocess.run(
            [sys.executable, str(BUILD), "--root", str(project), "serve", "--port", port],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert busy.returncode == 2 and "Traceback" not in busy.stderr
        assert busy.stderr.startswith("error: cannot listen on 127.0.0.1:") and "--port" in busy.stderr
        for path in ("/no/such/page/", "/a%00b"):
            try:
                urllib.request.urlopen(base + path, timeout=10)
            except urllib.error.HTTPError as exc:
                body = exc.read().decode()
                assert exc.code == (404 if "%00" not in path else 400), (path, exc.code)
                if exc.code == 404:
                    assert "Page not found" in body
            else:
                raise AssertionError(f"{path} was served")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


def _served(handler: type, folder: Path, race: bool) -> tuple[int | None, int, bytes]:
    """Content-Length, body length and body of /big.json from ``handler``; with ``race`` the file is
    replaced (as a rebuild does) right after the handler has taken its length."""
    import asyncio
    import os

    from tornado import httpclient, httpserver, testing, web

    class Racing(handler):  # type: ignore[misc, valid-type]
        def get_content_size(self) -> int:
            size = super().get_content_size()
            if race:
                new = folder / ".big.json.new"
                new.write_bytes(b"b" * 50_000)
                os.replace(new, folder / "big.json")
            return size

    async def fetch() -> httpclient.HTTPResponse:
        app = web.Application([(r"/(.*)", Racing, {"path": str(folder)})])
        server = httpserver.HTTPServer(app)
        sock, port = testing.bind_unused_port()
        server.add_sockets([sock])
        try:
            return await httpclient.AsyncHTTPClient().fetch(
                f"http://127.0.0.1:{port}/big.json", raise_error=False
            )
        finally:
            server.stop()

    (folder / "big.json").write_bytes(b"a" * 100_000)
    try:
        response = asyncio.run(fetch())
    except (httpclient.HTTPClientError, OSError):  # the server cut the response off
        return None, -1, b""
    length = response.headers.get("Content-Length")
    return (int(length) if length else None), len(response.body or b""), response.body or b""


def test_a_file_replaced_mid_request_is_sent_whole_as_it_was_read(tmp_path: Path) -> None:
    """The dev server's handler sends the length and the bytes of one read of the file; Tornado's
    own handler, given the same race, announces one file's length and sends another's bytes."""
    from livereload.handlers import StaticFileHandler

    from denpex_site.build.devserver import _snapshot_handler

    length, size, body = _served(_snapshot_handler(), tmp_path, race=True)
    assert length == size == 100_000 and body == b"a" * 100_000
    old_length, old_size, _ = _served(StaticFileHandler, tmp_path, race=True)
    assert old_size != 100_000 or old_length != old_size, "the race no longer shows on Tornado's handler"
