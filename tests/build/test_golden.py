"""The fixture site's whole output against a committed copy (tests/golden/), as Pelican's tests do.

A template, a filter or a renderer change shows here as a diff of the pages it changes. When the
change is intended: ``python -m pytest tests/build/test_golden.py --update-golden`` and commit the diff.
Fingerprinted assets and Pagefind's index are left out (their names appear in the pages)."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

from denpex_site.build.builder import Builder

from ..conftest import FIXTURES, REPO, TESTS

GOLDEN = TESTS / "golden"


def golden_site(root: Path) -> Path:
    shutil.copytree(REPO / "templates", root / "templates")
    shutil.copytree(REPO / "static", root / "static")
    (root / "content/failures").mkdir(parents=True)
    shutil.copy(REPO / "content/site.yaml", root / "content/site.yaml")
    for name in ("categories.yaml", "systems.yaml"):
        shutil.copy(FIXTURES / "golden" / name, root / "content" / name)
    shutil.copytree(FIXTURES / "demo-oom", root / "content/failures/demo-oom")
    Builder(root, index=False).build()
    return root / "_site"


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).parts[0] not in ("assets", "pagefind")
    }


def test_fixture_site_output_equals_the_golden_copy(tmp_path: Path, update_golden: bool) -> None:
    got = tree(golden_site(tmp_path / "site"))
    if update_golden:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for name, data in got.items():
            (GOLDEN / name).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / name).write_bytes(data)
    want = tree(GOLDEN)
    assert sorted(got) == sorted(want), "files differ: run pytest tests/build/test_golden.py --update-golden"
    for name in want:
        if got[name] != want[name]:
            diff = difflib.unified_diff(
                want[name].decode().splitlines(),
                got[name].decode().splitlines(),
                name,
                name,
                lineterm="",
                n=2,
            )
            raise AssertionError(
                "\n".join(list(diff)[:60]) + "\n(run pytest tests/build/test_golden.py --update-golden)"
            )
