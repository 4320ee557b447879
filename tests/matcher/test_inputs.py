"""What the terminal matcher reads: .gz logs, folders of per-rank files; what watch alerts on."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from itertools import count
from pathlib import Path

import pytest

from denpex_site.matcher.watch import watch

from .test_matcher import LOGS, OOM

WATCHDOG = (
    "[rank1]:[E1130 02:24:09.164985364 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=4123, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600051 "
    "milliseconds before timing out."
)


@pytest.fixture(scope="module")
def bundle_path(real_site: Path) -> Path:
    return real_site / "api/signatures.json"


def diagnose(bundle: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "denpex_site", "diagnose", "--bundle", str(bundle), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_a_folder_is_its_files_and_gz_logs_are_read(bundle_path: Path, tmp_path: Path) -> None:
    ranks = tmp_path / "job-logs"
    ranks.mkdir()
    (ranks / "rank0.log").write_bytes((LOGS / "rank0.log").read_bytes())
    with gzip.open(ranks / "rank1.log.gz", "wb") as fh:
        fh.write((LOGS / "rank1.log").read_bytes())
    (ranks / ".hidden").write_text(OOM + "\n")
    (ranks / "sub").mkdir()
    res = diagnose(bundle_path, "--json", str(ranks))
    assert res.returncode == 0, res.stderr
    result = json.loads(res.stdout)
    assert [(Path(f["name"]).name, f["rank"]) for f in result["files"]] == [
        ("rank0.log", 0),
        ("rank1.log.gz", 1),
    ]
    assert result["findings"][0]["id"] == "cuda-oom" and result["initiating"]["rank"] == 1
    assert result["initiating"]["file"].endswith("rank1.log.gz")


def test_a_broken_gz_and_an_empty_folder_are_named(bundle_path: Path, tmp_path: Path) -> None:
    broken = tmp_path / "rank0.log.gz"
    broken.write_bytes(gzip.compress(OOM.encode())[:-12] + b"garbage!")
    empty = tmp_path / "empty"
    empty.mkdir()
    res = diagnose(bundle_path, str(broken), str(LOGS / "rank1.log"))
    assert res.returncode == 2 and "cannot read" in res.stderr and "rank0.log.gz" in res.stderr
    assert "Traceback" not in res.stderr and "CUDA out of memory" in res.stdout
    res = diagnose(bundle_path, str(empty))
    assert res.returncode == 2 and "folder without files" in res.stderr and "Traceback" not in res.stderr


def test_watch_marks_collateral_lines(
    bundle_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text("step 1\n" + WATCHDOG + "\n")
    marker = tmp_path / "env"
    command = f"echo $DENPEX_ROLE:$DENPEX_ENTRY:$DENPEX_RANK > {marker}"
    bundle = json.loads(bundle_path.read_text())
    code = watch(log, bundle, base_url="https://x", command=command, interval=0, max_polls=2)
    out = capsys.readouterr().out
    assert (
        code == 0
        and out.startswith("COLLATERAL (printed by the victims")
        and "/failures/nccl-watchdog-timeout/" in out
    )
    assert "fix:" not in out  # a victim's line carries no fix of its own
    assert marker.read_text().strip() == "collateral:nccl-watchdog-timeout:1"


def test_watch_alerts_once_when_the_log_stops_growing(
    bundle_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text("step 1\nstep 2\n")
    marker = tmp_path / "env"
    minutes = count(step=0.5)  # the clock moves half a minute per poll
    bundle = json.loads(bundle_path.read_text())
    code = watch(
        log,
        bundle,
        base_url="https://x",
        command=f"echo $DENPEX_ROLE:$DENPEX_LINE >> {marker}",
        interval=0,
        stall=2,
        max_polls=12,
        clock=lambda: next(minutes) * 60,
    )
    out = capsys.readouterr().out
    assert code == 0 and out.count("STALL train.log has had no new line for 2 minute(s)") == 1
    assert marker.read_text().splitlines() == ["stall:2"]


def test_watch_help_lists_the_exec_environment() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "denpex_site", "watch", "--help"], capture_output=True, text=True
    )
    for name in ("DENPEX_ROLE", "DENPEX_ENTRY", "DENPEX_FILE", "DENPEX_LINE", "DENPEX_RANK", "--stall"):
        assert name in res.stdout
