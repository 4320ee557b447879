"""The text report: the decisive line, and for each finding the entry's cause, fix and first check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from denpex_site.matcher.diagnosis import Diagnosis
from denpex_site.matcher.report import text_report

from .test_matcher import LOGS, OOM, engine_of


@pytest.fixture(scope="module")
def bundle_path(real_site: Path) -> Path:
    return real_site / "api/signatures.json"


def report_of(bundle: Path, text: str) -> tuple[dict, str]:
    diagnosis = Diagnosis(engine_of(bundle))
    diagnosis.add_text(text)
    result = json.loads(json.dumps(diagnosis.result()))
    return result, text_report(result, "https://example.org")


def test_a_finding_shows_its_cause_fix_and_confirm_step(bundle_path: Path) -> None:
    result, report = report_of(bundle_path, OOM + "\n")
    lead = result["findings"][0]
    meta = json.loads(bundle_path.read_text())["entries"][lead["id"]]
    assert (lead["cause"], lead["fix"], lead["confirm"]) == (meta["cause"], meta["fix"], meta["confirm"])
    assert f"   cause: {meta['cause']}" in report and f"   fix:   {meta['fix']}" in report
    assert meta["confirm"].strip().splitlines()[0] in report


def test_the_score_stays_in_the_json(bundle_path: Path) -> None:
    result, report = report_of(bundle_path, OOM + "\n")
    assert "score" in result["findings"][0] and "score" not in report


def test_no_match_shows_the_decisive_line_and_a_search_for_it(bundle_path: Path) -> None:
    _, report = report_of(bundle_path, (LOGS / "decisive-raised-in-library.log").read_text())
    assert "No known failure matched." in report
    assert "  > ValueError: Unsupported rank 0: r must be a positive integer" in report
    assert "raised in peft/tuners/lora/model.py (peft)" in report
    assert "https://example.org/search/?q=ValueError%3A%20Unsupported%20rank%200" in report


def test_collateral_only_with_a_real_error_says_no_entry_covers_it(bundle_path: Path) -> None:
    _, report = report_of(bundle_path, (LOGS / "decisive-torchrun-worker-traceback.log").read_text())
    assert "no entry covers the decisive line" in report
    assert "[rank1]: ModuleNotFoundError: No module named 'einops'" in report
