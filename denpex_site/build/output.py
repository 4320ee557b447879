"""Writing the site: files written atomically, and the swap of a finished build into place.

A build is written into a fresh folder beside the output (``.<name>.build-<pid>-<random>``) and
swapped in only when complete. The swap exchanges the two folders in one system call where the
kernel offers it (``renameat2`` with ``RENAME_EXCHANGE`` on Linux), so the output path never goes
missing, not even for a moment; elsewhere it falls back to two renames. Every build carries a
marker file, and an existing output folder is replaced only when it carries one: a mistyped
``--out`` can never delete a folder that is not a previous build.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
import threading
from pathlib import Path

from jinja2 import Environment

from denpex_site.errors import OutputError
from denpex_site.render.pages import Page, render_page

MARKER = ".denpex-build"
"""A file at the top of every build output: what makes a folder safe to replace."""

MARKER_TEXT = "This folder is a denpex-site build output; the next build replaces it whole.\n"

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


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


def check_output(out: Path, root: Path) -> None:
    """Refuse an output folder that a build would replace at the cost of data: the project folder
    or one that holds it, a folder with ``.git``, or any non-empty folder that is not a build."""
    out, root = out.resolve(), root.resolve()
    if out == root or out in root.parents:
        raise OutputError(f"the output folder {out} is the project folder or holds it: choose another --out")
    if not out.exists():
        return
    if not out.is_dir() or out.is_symlink():
        raise OutputError(f"the output path {out} exists and is not a folder: choose another --out")
    if (out / ".git").exists():
        raise OutputError(f"the output folder {out} holds a .git repository: choose another --out")
    if not is_build(out) and any(out.iterdir()):
        raise OutputError(
            f"the output folder {out} exists and is not a previous build (it has no {MARKER} file): "
            "choose another --out, or empty it yourself"
        )


def is_build(folder: Path) -> bool:
    """A build carries the marker; builds made before the marker existed have the JSON API."""
    return (folder / MARKER).is_file() or all(
        (folder / "api" / name).is_file() for name in ("entries.json", "signatures.json", "search.json")
    )


def new_build_folder(out: Path) -> Path:
    """A fresh folder beside ``out`` for a build to write into, marked as a build; folders that
    killed builds left behind are removed first."""
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-{os.getpid()}-", dir=out.parent))
    (tmp / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    return tmp


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(out: Path) -> None:
    """Remove the build folders beside ``out`` whose build process no longer runs."""
    prefix = f".{out.name}.build-"
    for folder in out.parent.glob(prefix + "*"):
        pid = folder.name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and (folder / MARKER).is_file():
            shutil.rmtree(folder, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one system call; False where the system cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return done == 0


def swap_in(tmp: Path, out: Path) -> None:
    """Put the finished build ``tmp`` at ``out`` and remove the build it replaces."""
    os.chmod(tmp, 0o755)
    if not out.exists():
        os.replace(tmp, out)
    elif _exchange(tmp, out):
        shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the previous build
    else:
        old = out.with_name(f".{out.name}.build-{os.getpid()}-old")
        os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
