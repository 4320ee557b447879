"""The code base stays ruff clean: lint rules and formatting (configured in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["check", "format"])
def test_ruff(command: list[str]) -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is required (pip install -e '.[test]')")
    done = subprocess.run([ruff, *command], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_eslint() -> None:
    """The hand-written JavaScript passes eslint with the config in eslint.config.js."""
    eslint = ROOT / "node_modules/.bin/eslint"
    if not eslint.exists():
        pytest.fail("eslint is required for the JavaScript lint (npm ci)")
    done = subprocess.run(
        [str(eslint), "static/js", "tests/js", "eslint.config.js"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy() -> None:
    """The type hints hold: mypy over the package, configured in pyproject.toml."""
    mypy = shutil.which("mypy")
    if mypy is None:
        pytest.fail("mypy is required (pip install -e '.[test]')")
    done = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
