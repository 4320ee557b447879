"""The terminal report of a diagnosis (the JSON form is the diagnosis itself).

Everything taken from a log or a file name passes through :func:`~denpex_site.terminal.safe`, so
an escape sequence in a log is shown, never obeyed; the report's own colours are added after.
"""

from __future__ import annotations

from typing import Any

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


def text_report(result: dict[str, Any], base_url: str, colour: bool = False) -> str:
    files = [f for f in result["files"] if not f.get("skipped")]
    lines = [
        _paint(f"Diagnosis of {len(files)} file(s), {result['lines']:,} lines", "bold", colour),
    ]
    for note in result["notes"]:
        lines.append(_paint(f"note: {safe(note)}", "dim", colour))
    findings = result["findings"]
    if not findings:
        lines += [
            "",
            "No known failure matched. Search the encyclopedia for the first error line:",
            f"  {base_url}/search/",
            "or propose a new entry (see CONTRIBUTING.md).",
        ]
        return "\n".join(lines) + "\n"
    init = result["initiating"]
    lines.append("")
    if init:
        lead = findings[0]
        lines.append(_paint(f"First root cause: {safe(lead['title'])}", "bold", colour))
        lines.append(f"  at {_where(init)}")
    else:
        lines.append(
            "Only collateral or warning lines matched: the root cause may be in a log that was not given."
        )
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
            lines.append(
                f"{number}. {safe(f['title'])}  [{role}, score {f['score']}, matched {f['count']} time(s)]"
            )
            lines.append(f"   {_where(f['first'])}")
            lines.append(f"   > {safe(f['first']['text'][:300])}")
            lines.append("   " + _paint(safe(f"{base_url}/failures/{f['id']}/"), "link", colour))
    return "\n".join(lines) + "\n"
