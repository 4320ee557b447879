"""The development server: serves the build, re-renders an edited entry, keeps serving on errors."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

BUILD = Path(__file__).resolve().parent.parent / "build.py"


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
