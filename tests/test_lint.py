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
