"""Invalid fixture sites, one per class of error (as Zola's test sites are): each is the fixture
project with one broken entry (tests/fixtures/invalid/<class>/), and ``check`` must print exactly
the problems in its expected.txt. ``pytest --update-golden`` rewrites them after an intended change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from denpex_site.build.builder import Builder, check
from denpex_site.errors import InvalidContent

from ..conftest import FIXTURES

CASES = sorted(p for p in (FIXTURES / "invalid").iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_invalid_site_reports_exactly_its_problems(project: Path, case: Path, update_golden: bool) -> None:
    entry = project / "content/failures/demo-oom"
    shutil.rmtree(entry)
    shutil.copytree(case, entry, ignore=shutil.ignore_patterns("expected.txt"))
    got = "".join(p.text() + "\n" for p in check(project).sorted())
    expected = case / "expected.txt"
    if update_golden:
        expected.write_text(got)
    assert got, "an invalid site must have problems"
    assert got == expected.read_text(), got
    with pytest.raises(InvalidContent):
        Builder(project, index=False).build()
    assert not (project / "_site").exists()
