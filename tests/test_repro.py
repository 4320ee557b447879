"""Every repro.py still reproduces its failure: its output is diagnosed as its own entry first.

Each bundle's repro.py names its command on a docstring line ``Run: <command>``; the test runs
exactly that command in the bundle folder. The tests need torch (the CPU build 2.13.0 that CI
installs) and skip with that reason where it is missing.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import shlex
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from denpex_site.matcher.diagnosis import Diagnosis
from denpex_site.matcher.engine import Engine
from denpex_site.render.api import signature_bundle
from denpex_site.site.model import Site

from .conftest import REPO

pytestmark = pytest.mark.repro

REPROS = sorted(REPO.glob("content/failures/*/repro.py"))
HAS_TORCH = importlib.util.find_spec("torch") is not None


def run_line(repro: Path) -> list[str]:
    doc = ast.get_docstring(ast.parse(repro.read_text())) or ""
    lines = [line.strip()[4:].strip() for line in doc.splitlines() if line.strip().startswith("Run:")]
    assert len(lines) == 1, f"{repro}: the docstring needs exactly one 'Run: <command>' line"
    return shlex.split(lines[0])


def run_repro(repro: Path) -> tuple[list[str], bytes]:
    command = run_line(repro)
    bin_dir = Path(sys.executable).parent
    if command[0] in ("python", "python3"):
        command[0] = sys.executable
    elif (bin_dir / command[0]).exists():
        command[0] = str(bin_dir / command[0])
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    proc = subprocess.run(
        command, cwd=repro.parent, env=env, capture_output=True, timeout=300, stdin=subprocess.DEVNULL
    )
    return command, proc.stdout + proc.stderr


_POOL: ThreadPoolExecutor | None = None
_RUNS: dict[Path, Future[tuple[list[str], bytes]]] = {}


def start(selected: list[Path]) -> None:
    """Start the selected reproductions, a few at a time, as soon as the tests are collected: they
    spend most of their time waiting (timeouts, process start-up, a compiler), so they run beside
    the rest of the suite instead of after it."""
    global _POOL
    if not HAS_TORCH or _POOL is not None or not selected:
        return
    _POOL = ThreadPoolExecutor(max_workers=3, thread_name_prefix="repro")
    for repro in selected:
        _RUNS[repro] = _POOL.submit(run_repro, repro)


def stop() -> None:
    """Drop the reproductions not yet started (an interrupted or deselected session)."""
    if _POOL is not None:
        _POOL.shutdown(wait=False, cancel_futures=True)


@pytest.fixture(scope="module")
def outputs() -> dict[Path, Future[tuple[list[str], bytes]]]:
    if not HAS_TORCH:
        pytest.skip("torch is not installed (pip install torch==2.13.0): the reproductions need it")
    start(REPROS)  # collected some other way (the hook in conftest.py starts them first)
    return _RUNS


@pytest.fixture(scope="module")
def engine(real_content: Site) -> Engine:
    """The matcher with the signatures of the content as it is now."""
    return Engine(signature_bundle(real_content))


@pytest.mark.parametrize("repro", REPROS, ids=lambda p: p.parent.name)
def test_repro_is_diagnosed_as_its_entry(
    repro: Path, outputs: dict[Path, Future[tuple[list[str], bytes]]], engine: Engine, tmp_path: Path
) -> None:
    run_line(repro)
    command, output_bytes = outputs[repro].result()
    output = tmp_path / "output.log"
    output.write_bytes(output_bytes)
    diagnosis = Diagnosis(engine)
    diagnosis.add_file(output)
    findings = diagnosis.result()["findings"]
    tail = output_bytes.decode(errors="replace")[-3000:]
    assert findings, f"nothing known was found in the output of {' '.join(command)}:\n{tail}"
    assert findings[0]["id"] == repro.parent.name, f"diagnosed as {findings[0]['id']}:\n{tail}"
