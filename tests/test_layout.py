"""The package layout is the architecture: the matcher imports nothing of the generator."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "denpex_site"
SHARED = {"denpex_site.errors", "denpex_site.terminal"}
"""Modules of neither product, which both may import."""


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] == "denpex_site"}


@pytest.mark.parametrize("module", sorted((PACKAGE / "matcher").glob("*.py")), ids=lambda p: p.name)
def test_matcher_imports_only_itself_and_shared_modules(module: Path) -> None:
    outside = {m for m in _imports(module) if not m.startswith("denpex_site.matcher") and m not in SHARED}
    assert not outside, f"{module.name} imports the generator: {sorted(outside)}"


def test_no_relative_imports() -> None:
    """Absolute imports everywhere, so a module's dependencies read the same wherever it moves."""
    relative = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level
    ]
    assert not relative, relative
