"""Shared fixtures: a small throwaway project built from the real templates and taxonomies."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with the real templates, static files and taxonomies, and one fixture entry."""
    root = tmp_path / "project"
    shutil.copytree(REPO / "templates", root / "templates")
    shutil.copytree(REPO / "static", root / "static")
    (root / "content" / "failures").mkdir(parents=True)
    for name in ("categories.yaml", "systems.yaml", "site.yaml"):
        shutil.copy(REPO / "content" / name, root / "content" / name)
    shutil.copytree(FIXTURES / "demo-oom", root / "content" / "failures" / "demo-oom")
    return root
