"""The terminal report of a diagnosis (the JSON form is the diagnosis itself).

Everything taken from a log or a file name passes through :func:`~denpex_site.terminal.safe`, so
an escape sequence in a log is shown, never obeyed; the report's own colours are added after.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from denpex_site.terminal import safe

_COLOURS = {"root-cause": "31", "warning": "33", "collateral": "2", "bold": "1", "dim": "2", "link": "36"}


def _paint(text: str, style: str, colour: bool) -> str:
    return f"\x1b[{_COLOURS[style]}m{text}\x1b[0m" if colour else text


def _where(ev: dict[str, Any]) -> str:
    parts = [f"{ev['file']}:{ev['line']}"]
    if ev.get("rank") is not None:
        parts.append(f"rank {ev['rank']}")
    if ev.get("time"):
        t = ev["time"]
        parts.append(f"{t[:2]}-{t[2:4]} {t[5:17]}")
    if ev.get("began") is not None and ev["began"] != ev["line"]:
        parts.append(f"traceback began at line {ev['began']}")
    return safe(" · ".join(parts))


_KINDS = {
    "signature": "the root-cause line of the entry below",
    "exception": "the exception that ends a traceback",
    "kill": "a kill by the shell or the kernel",
    "fatal": "a fatal error",
    "error": "an error line",
    "wrapper": "a launcher's report of another process's failure",
    "collateral": "a line that victims of a failure print",
    "warning": "a warning that an entry knows",
}


def _decisive(first: dict[str, Any] | None, colour: bool) -> list[str]:
    """The decisive line: where, what kind of line, its text and the frame that raised it."""
    if first is None:
        return []
    lines = ["", _paint("Decisive line", "bold", colour) + f" ({_KINDS.get(first['kind'], first['kind'])})"]
    lines.append(f"  at {_where(first)}")
    lines.append(f"  > {safe(first['text'][:300])}")
    raised = first.get("raised_in")
    if raised:
        library = f" ({raised['library']})" if raised["library"] else ""
        lines.append(f"  raised in {safe(raised['path'] + library)}")
    return lines


HANG_ROWS = 16
"""Ranks shown per process group in the terminal; the JSON has them all."""


def _hang(result: dict[str, Any], base_url: str, colour: bool) -> list[str]:
    """Per process group: ranks x the last collective each reached, and the rank that is behind."""
    lines: list[str] = []
    for h in result.get("hang", []):
        group = f" (process group {h['pg']})" if h["pg"] else ""
        lines += ["", _paint(f"Hang: the last collective of each rank{group}", "bold", colour)]
        for row in h["ranks"][:HANG_ROWS]:
            cells = [f"  rank {row['rank']:>4}"]
            if row["seq"] is not None:
                cells.append(f"waited on SeqNum {row['seq']} {row['op']}")
            if row["numel_in"] is not None:
                cells.append(f"NumelIn {row['numel_in']}")
            if row["enqueued"] is not None:
                cells.append(f"last enqueued {row['enqueued']}, completed {row['completed']}")
            mark = "  <- behind" if row["rank"] in h["behind"] else ""
            lines.append(safe("  ".join(cells)) + mark)
        if len(h["ranks"]) > HANG_ROWS:
            lines.append(f"  ... and {len(h['ranks']) - HANG_ROWS} more ranks (see --json)")
        lines.append(
            _paint(safe(f"  {h['reason']}"), "root-cause" if h["rank"] is not None else "dim", colour)
        )
        if h["causes"]:
            lines.append(
                "  Why a rank falls behind: "
                + ", ".join(f"{base_url}/failures/{c}/" for c in h["causes"][:4])
            )
    return lines


def _answer(finding: dict[str, Any]) -> list[str]:
    """The entry's quick answer and its first confirm step, indented under the finding."""
    lines = [f"   cause: {safe(finding['cause'])}", f"   fix:   {safe(finding['fix'])}", "   confirm:"]
    lines += [f"     {safe(line)}" for line in finding["confirm"].strip().splitlines()]
    return lines


def text_report(result: dict[str, Any], base_url: str, colour: bool = False) -> str:
    files = [f for f in result["files"] if not f.get("skipped")]
    lines = [
        _paint(f"Diagnosis of {len(files)} file(s), {result['lines']:,} lines", "bold", colour),
    ]
    for note in result["notes"]:
        lines.append(_paint(f"note: {safe(note)}", "dim", colour))
    findings = result["findings"]
    first = result.get("first_error")
    lines += _hang(result, base_url, colour)
    if not findings:
        lines += ["", "No known failure matched."]
        lines += _decisive(first, colour)
        query = f"?q={quote(first['text'][:200])}" if first else ""
        lines += [
            "",
            "Search the encyclopedia for it:",
            "  " + _paint(safe(f"{base_url}/search/{query}"), "link", colour),
            "or propose a new entry (see CONTRIBUTING.md).",
        ]
        return "\n".join(lines) + "\n"
    init = result["initiating"]
    lines.append("")
    if init:
        lead = findings[0]
        if init["id"] is not None:
            lines.append(_paint(f"First root cause: {safe(lead['title'])}", "bold", colour))
            lines.append(f"  at {_where(init)}")
        if init.get("reason"):
            lines.append(_paint(f"Initiating rank: {init['rank']}", "bold", colour))
    elif first is not None and first["kind"] not in ("wrapper", "collateral"):
        lines.append("Only collateral or warning lines matched an entry; no entry covers the decisive line.")
    else:
        lines.append(
            "Only collateral or warning lines matched: the root cause may be in a log that was not given."
        )
    lines += _decisive(first, colour)
    for section, roles in (
        ("Findings", ("root-cause", "warning")),
        ("Collateral (consequences, not causes)", ("collateral",)),
    ):
        group = [f for f in findings if f["role"] in roles]
        if not group:
            continue
        lines += ["", _paint(section, "bold", colour)]
        for number, f in enumerate(group, 1):
            role = _paint(f["role"], f["role"], colour)
            lines.append(f"{number}. {safe(f['title'])}  [{role}, matched {f['count']} time(s)]")
            lines.append(f"   {_where(f['first'])}")
            lines.append(f"   > {safe(f['first']['text'][:300])}")
            if f["role"] != "collateral":
                lines += _answer(f)
            lines.append("   " + _paint(safe(f"{base_url}/failures/{f['id']}/"), "link", colour))
    return "\n".join(lines) + "\n"
