"""The figures of the real-log development set (tests/real/): how much of what users hit is covered.

Each log is diagnosed alone, as a user pasting it would have it diagnosed. The figures:

* coverage: among logs whose cause the thread established (label other than ``none``), the share
  whose label is an entry that exists;
* first: among the logs labelled with an entry, the share for which the matcher names that entry
  first;
* no wrong root cause: among the logs whose failure has no entry (``new:...`` or ``none``), the share
  for which the matcher names no root-cause entry, or names one only when that entry is the
  thread's cause;
* decisive line: among the logs with a ``decisive`` line, the share whose ``first_error`` is that
  line (its text holds the decisive line, or is a part of it of 20 characters or more when the
  paste split it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from denpex_site.matcher.diagnosis import Diagnosis
from denpex_site.matcher.engine import Engine

REAL = Path(__file__).resolve().parent / "real"
FIELDS = {"source", "query", "scope", "cause", "decisive", "label", "log"}


def real_logs() -> list[tuple[Path, dict[str, Any]]]:
    return [(path, yaml.safe_load(path.read_text(encoding="utf-8"))) for path in sorted(REAL.glob("*.yaml"))]


@dataclass
class Figures:
    logs: int = 0
    established: int = 0
    covered: int = 0
    first: int = 0
    uncovered: int = 0
    no_wrong_root_cause: int = 0
    misses: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    with_decisive: int = 0
    decisive_right: int = 0
    decisive_wrong: list[str] = field(default_factory=list)
    by_scope: dict[str, list[int]] = field(default_factory=dict)

    def share(self, part: int, whole: int) -> float:
        return part / whole if whole else 1.0


def figures(engine: Engine, entry_ids: set[str]) -> Figures:
    out = Figures()
    for path, log in real_logs():
        out.logs += 1
        label = log["label"]
        diagnosis = Diagnosis(engine)
        diagnosis.add_text(log["log"], path.stem)
        result = diagnosis.result()
        findings = result["findings"]
        if log["decisive"]:
            out.with_decisive += 1
            got = (result["first_error"] or {}).get("text", "")
            if _same_line(log["decisive"], got):
                out.decisive_right += 1
            else:
                out.decisive_wrong.append(f"{path.name}: want {log['decisive'][:90]!r}, got {got[:90]!r}")
        root = [f["id"] for f in findings if f["role"] == "root-cause"]
        scope = out.by_scope.setdefault(log["scope"], [0, 0, 0])
        scope[0] += 1
        if label != "none":
            out.established += 1
        if label in entry_ids:
            out.covered += 1
            scope[1] += 1
            if findings and findings[0]["id"] == label:
                out.first += 1
                scope[2] += 1
            else:
                out.misses.append(f"{path.name}: {label}, matcher: {[f['id'] for f in findings[:3]]}")
        else:
            out.uncovered += 1
            if not root:
                out.no_wrong_root_cause += 1
            else:
                out.wrong.append(f"{path.name}: {label}, matcher names {root[0]}")
    return out


def _same_line(want: str, got: str) -> bool:
    want, got = " ".join(want.split()), " ".join(got.split())
    return bool(got) and (want in got or (len(got) >= 20 and got in want))
