"""Writing the site: files written atomically, and the swap of a finished build into place."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from jinja2 import Environment

from denpex_site.render.pages import Page, render_page


def write_file(path: Path, data: bytes | str, *, atomic: bool = True) -> None:
    """Write through a temporary name and rename, so a reader never sees half a file. In a folder
    nobody reads yet (a full build's), ``atomic=False`` writes in place and saves the rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    if not atomic:
        path.write_bytes(raw)
        return
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}-{threading.get_ident()}")
    tmp.write_bytes(raw)
    os.replace(tmp, path)


def write_page(env: Environment, page: Page, out: Path, *, atomic: bool = True) -> None:
    html = render_page(env, page)
    write_file(out / page.path, html, atomic=atomic)
