"""The full-text index: Pagefind run over the written site."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def pagefind_command(site: Path) -> list[str]:
    """The command that indexes the entry pages of ``site`` into ``site/pagefind``: Pagefind's binary
    itself when pagefind[bin] is installed (no Python start).

    Only entry pages carry ``data-pagefind-body``, so only they are handed to Pagefind: parsing the
    other pages would find nothing to index.
    """
    try:
        from pagefind_bin import get_executable
    except ImportError:
        program = [sys.executable, "-m", "pagefind"]
    else:
        program = [str(get_executable())]
    return [*program, "--site", str(site), "--glob", "failures/*/index.html", "--quiet"]


def start_index(out: Path) -> subprocess.Popen[str]:
    """Start building the Pagefind full-text index of ``out`` into ``out/pagefind``."""
    return subprocess.Popen(
        pagefind_command(out), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def finish_index(proc: subprocess.Popen[str]) -> None:
    output, _ = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"pagefind failed:\n{output}")


def index_site(out: Path) -> None:
    """Build the Pagefind index of ``out`` and wait for it."""
    finish_index(start_index(out))
