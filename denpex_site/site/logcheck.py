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
from denpex_site.matcher.normalise import normalize_lines
from denpex_site.render.api import signature_bundle
from denpex_site.site.model import EntryPage, Site


def _diagnose(engine: Engine, text: str, name: str) -> dict:
    diagnosis = Diagnosis(engine)
    diagnosis.add_text(text, name)
    return diagnosis.result()


def _report_signature(page: EntryPage, index: int, message: str, problems: Problems) -> None:
    line, col = page.bundle.lines.at(("signatures", index, "pattern"))
    problems.add(page.bundle.path, line, col, f"signatures[{index}].pattern", message)


def _check_context_hits(page: EntryPage, log: str, text: str, result: dict, problems: Problems) -> None:
    """A signature that requires context (``raised_in``, ``traceback_has``) must find it in each of
    its example logs: the matcher, not only the pattern, must accept the line there."""
    own = next((f for f in result["findings"] if f["id"] == page.id), None)
    hit = set(own["signatures"]) if own is not None else set()
    for index, sig in enumerate(page.entry.signatures):
        if log not in sig.examples or index in hit or (sig.raised_in is None and sig.traceback_has is None):
            continue
        comp = page.compiled[index]
        if comp is None or not any(
            comp.anchor in x and comp.compile().search(x) for x in normalize_lines(text)
        ):
            continue  # the pattern itself matches no line: reported with the pattern
        wanted = []
        if sig.raised_in is not None:
            wanted.append(f"raised in '{sig.raised_in}'")
        if sig.traceback_has is not None:
            wanted.append("below a line matching traceback_has")
        field = "raised_in" if sig.raised_in is not None else "traceback_has"
        line, col = page.bundle.lines.at(("signatures", index, field))
        problems.add(
            page.bundle.path,
            line,
            col,
            f"signatures[{index}].{field}",
            f"the pattern matches its example log '{log}', but not inside a traceback "
            f"{' and '.join(wanted)}: the matcher ignores it there",
        )


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
            _check_context_hits(page, log.file, text, result, problems)
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
