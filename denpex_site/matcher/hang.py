"""Hangs: which rank never reached the collective that the others wait on.

NCCL's watchdog prints, on each rank that waited too long, the collective it waited on
(``[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4123, OpType=ALLREDUCE,
NumelIn=1, NumelOut=1, Timeout(ms)=600000) ...``), and newer releases print how far each rank got
(``last enqueued NCCL work: 4123, last completed NCCL work: 4122``). From these lines the matcher
builds a table per process group, ranks x last collective, and names the rank that is behind (its
last collective is older than the one the others wait on) or silent (it printed no watchdog line
while ranks around it did). The rules are data, shipped in the bundle (``normalize.hang``), so that
static/js/matcher.js applies the same ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

ANCHORS = ["Watchdog caught collective operation timeout", "ast enqueued NCCL work: "]
"""Every line the table reads holds one of these."""


RANK = r"\[(?:PG ([^\]\[]{1,120}) )?Rank ([0-9]{1,6})\]"
"""NCCL's log prefix: ``[Rank 3]``, ``[PG 0 (default_pg) Rank 3]``, ``[PG ID 0 PG GUID 0(default_pg) Rank 3]``."""


TIMEOUT = (
    r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=([0-9]{1,15}), OpType=([A-Za-z_]{1,40})"
    r"(?:, NumelIn=([0-9]{1,18}), NumelOut=([0-9]{1,18}))?"
)
"""The collective a rank waited on: sequence number, operation, element counts (2.2 and later)."""


PROGRESS = r"[Ll]ast enqueued NCCL work: (-?[0-9]{1,15}), last completed NCCL work: (-?[0-9]{1,15})"
"""How far a rank got: the last collective it enqueued and the last that completed."""


CAUSES = [
    "rank0-long-work-timeout",
    "rank-conditional-collective",
    "collective-order-mismatch",
    "early-exit-one-rank",
    "ddp-uneven-inputs",
    "straggler-rank",
    "nccl-watchdog-timeout",
]
"""Entries that explain why one rank falls behind the others (those the bundle has are linked)."""


def rules() -> dict[str, Any]:
    return {"anchors": ANCHORS, "rank": RANK, "timeout": TIMEOUT, "progress": PROGRESS, "causes": CAUSES}


MAX_RANKS = 4096
"""Ranks per process group kept in the table (a bigger job keeps its first ones)."""


@dataclass
class Row:
    rank: int
    file: str
    line: int
    seq: int | None = None
    op: str | None = None
    numel_in: int | None = None
    numel_out: int | None = None
    enqueued: int | None = None
    completed: int | None = None

    def reached(self) -> int:
        """The newest collective this rank is known to have reached."""
        return max(x for x in (self.seq, self.enqueued, -1) if x is not None)

    def as_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in Row.__dataclass_fields__}


@dataclass
class HangTable:
    """Watchdog and progress lines per process group and rank, over every file of a diagnosis."""

    rank_re: re.Pattern[str]
    timeout_re: re.Pattern[str]
    progress_re: re.Pattern[str]
    anchors: list[str]
    causes: list[str]
    groups: dict[str, dict[int, Row]] = field(default_factory=dict)

    @classmethod
    def compile(cls, data: dict[str, Any], entries: dict[str, Any]) -> HangTable:
        return cls(
            re.compile(data["rank"], re.ASCII),
            re.compile(data["timeout"], re.ASCII),
            re.compile(data["progress"], re.ASCII),
            list(data["anchors"]),
            [c for c in data["causes"] if c in entries],
        )

    def add(self, line: str, rank: int | None, file: str, line_no: int) -> None:
        """Read one cleaned line; ``rank`` is the rank its prefix or file names, if any."""
        timeout = self.timeout_re.search(line)
        progress = self.progress_re.search(line) if timeout is None else None
        if timeout is None and progress is None:
            return
        named = self.rank_re.search(line)
        group = _group(named.group(1)) if named and named.group(1) else ""
        if named:
            rank = int(named.group(2))
        if rank is None:
            return
        rows = self.groups.setdefault(group, {})
        row = rows.get(rank)
        if row is None:
            if len(rows) >= MAX_RANKS:
                return
            row = rows[rank] = Row(rank, file, line_no)
        if timeout is not None:
            seq = int(timeout.group(1))
            if row.seq is None or seq > row.seq:
                row.seq, row.op = seq, timeout.group(2)
                row.numel_in = int(timeout.group(3)) if timeout.group(3) else None
                row.numel_out = int(timeout.group(4)) if timeout.group(4) else None
                row.file, row.line = file, line_no
        elif progress is not None:
            row.enqueued = _newer(row.enqueued, int(progress.group(1)))
            row.completed = _newer(row.completed, int(progress.group(2)))

    def result(self) -> list[dict[str, Any]]:
        """One analysis per process group that has a watchdog timeout, the default group first."""
        out = []
        for name in sorted(self.groups, key=lambda g: (g not in ("", "default_pg"), g)):
            rows = self.groups[name]
            waited = [r for r in rows.values() if r.seq is not None]
            if waited:
                out.append(self._analyse(name, rows, waited))
        return out

    def _analyse(self, name: str, rows: dict[int, Row], waited: list[Row]) -> dict[str, Any]:
        target = max(r.reached() for r in rows.values())
        op = next((r.op for r in waited if r.seq == target), None)
        behind = sorted(r.rank for r in rows.values() if r.reached() < target)
        top = max(rows)
        silent = [k for k in range(top + 1) if k not in rows] if len(rows) >= 2 and top < MAX_RANKS else []
        sizes = {r.numel_in for r in waited if r.seq == target and r.numel_in is not None}
        what = f"SeqNum {target}" + (f" ({op})" if op else "")
        culprit: int | None = None
        if behind:
            culprit = behind[0]
            got = rows[culprit].reached()
            reason = f"rank {culprit} never reached {what}: its last collective is SeqNum {got}"
            if len(behind) > 1:
                reason += f" (ranks behind: {', '.join(map(str, behind))})"
        elif len(silent) == 1:
            culprit = silent[0]
            reason = (
                f"rank {culprit} printed no watchdog line while the other ranks waited on {what}: "
                "it most likely never reached it (or its log is not in the input)"
            )
        elif silent:
            reason = f"ranks {', '.join(map(str, silent))} printed no watchdog line while the others waited on {what}"
        elif len(sizes) > 1:
            reason = f"every rank reached {what}, but with different sizes (NumelIn {sorted(sizes)}): the ranks disagree on the collective"
        else:
            reason = f"every rank in the log waited on {what}: no rank is behind here; the slow rank's log may be missing"
        return {
            "pg": name or None,
            "seq": target,
            "op": op,
            "ranks": [rows[k].as_json() for k in sorted(rows)],
            "behind": behind,
            "silent": silent,
            "rank": culprit,
            "reason": reason,
            "causes": self.causes,
        }


def _group(text: str) -> str:
    """A process group's name from NCCL's prefix: ``default_pg`` in ``ID 0 PG GUID 0(default_pg)``."""
    m = re.search(r"\(([^()]{1,80})\)", text)
    return m.group(1) if m else text.strip()


def _newer(old: int | None, new: int) -> int:
    return new if old is None or new > old else old
