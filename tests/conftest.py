"""Shared fixtures: a small throwaway project built from the real templates and taxonomies."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from denpex_site.site.model import Site

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite tests/golden/ from the current output"
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the selected reproductions at once, beside the rest of the suite (see test_repro)."""
    from tests import test_repro

    test_repro.start([p for item in session.items if (p := _repro_of(item)) is not None])


def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests import test_repro

    test_repro.stop()


def _repro_of(item: pytest.Item) -> Path | None:
    """The repro.py a collected test re-runs, if it is one of the reproduction tests."""
    callspec = getattr(item, "callspec", None)
    if item.get_closest_marker("repro") is None or callspec is None:
        return None
    return callspec.params.get("repro")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


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


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real content built once per test session, Pagefind index included: its output folder.

    Tests read it and never write into it."""
    from denpex_site.build.builder import Builder

    out = tmp_path_factory.mktemp("real") / "site"
    Builder(REPO, out).build()
    return out


@pytest.fixture(scope="session")
def real_content() -> Site:
    """The real content loaded, validated and linked once per test session (nothing written)."""
    from denpex_site.build.assets import Paths
    from denpex_site.build.builder import gather

    return gather(Paths(REPO))[2]
