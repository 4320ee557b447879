"""Checks that need the matcher: every example log against every signature.

* Each example log must be diagnosed as its own entry first.
* A root-cause or warning signature may match another entry's example logs only where one of the
  two entries declares the other in ``overlaps``. Collateral signatures are exempt: lines printed
  by the victims of a failure (a watchdog timeout, torchrun's summary) are expected beside every
  root cause, and naming them as collateral is what the diagnosis is for.
* No signature may match a line of the healthy training logs (``tests/healthy/*.log``): such a
  pattern is too general.
"""

from __future__ import annotations

from pathlib import Path

from denpex_site.content.load import read_log
from denpex_site.content.model import Role
from denpex_site.errors import Problems
from denpex_site.matcher.diagnosis import Diagnosis
from denpex_site.matcher.engine import Engine
from denpex_site.render.api import signature_bundle
from denpex_site.site.model import EntryPage, Site


def _diagnose(engine: Engine, text: str, name: str) -> dict:
    diagnosis = Diagnosis(engine)
    diagnosis.add_text(text, name)
    return diagnosis.result()


def _report_signature(page: EntryPage, index: int, message: str, problems: Problems) -> None:
    line, col = page.bundle.lines.at(("signatures", index, "pattern"))
    problems.add(page.bundle.path, line, col, f"signatures[{index}].pattern", message)


def check_logs(site: Site, problems: Problems, healthy: list[Path]) -> None:
    bundle = signature_bundle(site)
    if not bundle["signatures"]:
        return
    engine = Engine(bundle)
    for page in site.ordered():
        for i, log in enumerate(page.entry.logs):
            text = page.bundle.logs.get(log.file)
            if text is None:
                continue
            result = _diagnose(engine, text, log.file)
            ids = [f["id"] for f in result["findings"]]
            if ids[:1] != [page.id]:
                line, col = page.bundle.lines.at(("logs", i, "file"))
                got = f"as '{ids[0]}' first" if ids else "as no known failure"
                problems.add(
                    page.bundle.path,
                    line,
                    col,
                    f"logs[{i}].file",
                    f"example log '{log.file}' is diagnosed {got}; its own entry must rank first",
                )
            for finding in result["findings"]:
                other = site.pages.get(finding["id"])
                if other is None or other.id == page.id:
                    continue
                if page.id in other.entry.overlaps or other.id in page.entry.overlaps:
                    continue
                for index in finding["signatures"]:
                    if other.entry.signatures[index].role == Role.collateral:
                        continue
                    _report_signature(
                        other,
                        index,
                        f"matches the example log {page.id}/{log.file} of another entry "
                        f"(line {finding['first']['line']}); make the pattern specific, "
                        f"or declare the shared text with `overlaps: [{page.id}]`",
                        problems,
                    )
    for path in healthy:
        result = _diagnose(engine, read_log(path), path.name)
        for finding in result["findings"]:
            page = site.pages[finding["id"]]
            for ev in finding["evidence"]:
                _report_signature(
                    page,
                    ev["signature"],
                    f"too general: matches line {ev['line']} of the healthy log {path.name}: {ev['text'][:120]!r}",
                    problems,
                )


def healthy_logs(root: Path) -> list[Path]:
    return sorted((root / "tests" / "healthy").glob("*.log"))
