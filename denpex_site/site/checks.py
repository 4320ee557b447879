"""Checks on one entry's derived data: signature patterns, Markdown names and internal links."""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from denpex_site.content.documents import Loc, dotted
from denpex_site.content.load import EntryFolder
from denpex_site.content.model import Role
from denpex_site.errors import Problems
from denpex_site.matcher.dialect import Compiled, PatternError, compile_pattern
from denpex_site.matcher.normalise import normalize_lines
from denpex_site.site.fields import LINK_RE, field_key, markdown_fields
from denpex_site.site.model import EntryPage


def _check_signatures(bundle: EntryFolder, report) -> tuple[list[Compiled | None], dict[str, frozenset[int]]]:
    """Compile the signatures and check them against their logs; also returns, per log, the
    indexes of the lines that any of them matches (shown highlighted on the page)."""
    entry = bundle.entry
    declared = {log.file for log in entry.logs}
    for i, log in enumerate(entry.logs):
        if log.file not in bundle.logs:
            report(("logs", i, "file"), f"log file '{log.file}' does not exist in {bundle.folder.name}/logs/")
        elif leak := _machine_path(bundle.logs[log.file], bundle.folder.parents[2]):
            report(
                ("logs", i, "file"),
                f"example log '{log.file}' shows a path of the machine that captured it ('{leak}'): "
                "replace it with a neutral one such as /home/user/proj",
            )
        elif len(bundle.logs[log.file]) > MAX_EXAMPLE_LOG:
            size = len(bundle.logs[log.file]) // 1024
            report(
                ("logs", i, "file"),
                f"example log '{log.file}' is {size:,} KiB: keep the lines that show the failure, "
                f"at most {MAX_EXAMPLE_LOG // 1024} KiB (the page shows it whole)",
            )
    for name in sorted(set(bundle.logs) - declared):
        report(("logs",), f"'{name}' is not described in logs (add its kind and origin)")
    lines = {name: normalize_lines(text) for name, text in bundle.logs.items()}
    hits: dict[str, set[int]] = {name: set() for name in lines}
    compiled: list[Compiled | None] = []
    for i, sig in enumerate(entry.signatures):
        try:
            comp = compile_pattern(sig.pattern)
        except PatternError as exc:
            report(("signatures", i, "pattern"), f"{exc} (at column {exc.column} of the pattern)")
            compiled.append(None)
            continue
        compiled.append(comp)
        rx = comp.compile()
        matched = {
            name: {n for n, line in enumerate(text) if comp.anchor in line and rx.search(line)}
            for name, text in lines.items()
        }
        for name, found in matched.items():
            hits[name] |= found
        for j, name in enumerate(sig.examples):
            if name not in bundle.logs:
                report(("signatures", i, "examples", j), f"example log '{name}' does not exist")
            elif not matched[name]:
                report(("signatures", i, "pattern"), f"does not match any line of its example log '{name}'")
        if sig.traceback_has is not None:
            _check_context(sig.traceback_has, sig.examples, lines, ("signatures", i, "traceback_has"), report)
    if not entry.silent and not any(s.role == Role.root_cause for s in entry.signatures):
        report(("signatures",), ROOT_CAUSE_RULE)
    return compiled, {name: frozenset(found) for name, found in hits.items()}


def _check_context(
    pattern: str,
    examples: list[str],
    lines: dict[str, list[str]],
    loc: Loc,
    report: Callable[[Loc, str], None],
) -> None:
    """A signature's ``traceback_has`` pattern compiles and matches a line of each example log (the
    matcher checks that it is in the same traceback: see logcheck)."""
    try:
        comp = compile_pattern(pattern)
    except PatternError as exc:
        report(loc, f"{exc} (at column {exc.column} of the pattern)")
        return
    rx = comp.compile()
    for name in examples:
        if name in lines and not any(comp.anchor in line and rx.search(line) for line in lines[name]):
            report(loc, f"does not match any line of the example log '{name}'")


_CODE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1|(`+).+?\2", re.S | re.M)


_DUNDER = re.compile(r"(?<![\w\\])__[A-Za-z][A-Za-z0-9_]*__(?!\w)")


def _check_dunders(texts: dict[Loc, tuple[str, bool]], report: Callable[[Loc, str], None]) -> None:
    """A Python name like __init__ outside backticks renders as bold 'init' in Markdown."""
    for loc, (text, _inline) in texts.items():
        found = "__" in text and _DUNDER.search(_CODE.sub(" ", text))
        if found:
            name = found.group(0)
            report(
                loc, f"{name} renders as bold '{name.strip('_')}': put Python names in backticks (`{name}`)"
            )


def _check_links(
    page: EntryPage, pages: dict[str, EntryPage], broken: frozenset[str], known: set[str], problems: Problems
) -> None:
    fields = markdown_fields(page.entry)
    own = page.anchors()
    for loc in fields:
        for href in page.html[field_key(loc)].links:
            message = _link_problem(href, own, pages, broken, known)
            if message:
                line, col = page.bundle.lines.at(loc)
                problems.add(page.bundle.path, line, col, dotted(loc), message)


def _link_problem(
    href: str, own: set[str], pages: dict[str, EntryPage], broken: frozenset[str], known: set[str]
) -> str | None:
    if href.startswith("https://"):
        return None
    if href.startswith("http://"):
        return f"link '{href}' must use https"
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", href):
        return f"link '{href}' uses a scheme that is not allowed: only https:// and paths of this site"
    if href.startswith("#"):
        return None if href[1:] in own else f"link '{href}' points to no anchor on this page"
    if href.startswith("/"):
        m = LINK_RE.match(href)
        if m:
            target = pages.get(m["id"])
            if target is None and m["id"] in broken:
                return None
            if target is None:
                return f"link '{href}' points to unknown entry '{m['id']}'"
            if m["anchor"] and m["anchor"] not in target.anchors():
                return f"link '{href}': entry '{m['id']}' has no anchor '#{m['anchor']}'"
            return None
        path = href.split("#", 1)[0]
        if path in known:
            return None
        return f"link '{href}' points to no page of this site"
    return f"link '{href}' must be https:// or an internal path such as /failures/<id>/"


def _machine_path(text: str, root: Path) -> str | None:
    """The first path in ``text`` that belongs to the machine running the check: the project folder,
    the interpreter's install prefix (unless a system one every log shows, like /usr), pytest's
    temporary folders."""
    prefixes = [str(root), "/tmp/pytest-of-"]
    prefixes += [
        p for p in {sys.prefix, sys.base_prefix} if p not in ("/usr", "/usr/local", "/") and len(p) > 4
    ]
    for prefix in prefixes:
        if prefix in text:
            return prefix
    return None


MAX_EXAMPLE_LOG = 256 * 1024
"""Characters an example log may hold: it is shown whole on the entry page."""


ROOT_CAUSE_RULE = (
    "an entry that is not silent needs at least one root-cause signature; if the failure prints no "
    "error of its own (a hang, a slowdown, wrong results), mark the entry `silent: true` and describe "
    "what to look for in `fingerprint`"
)


def unknown(kind: str, value: str, known: Iterable[str]) -> str:
    """``unknown <kind> '<value>'``, with the closest known id when one is close."""
    close = difflib.get_close_matches(value, sorted(known), n=1, cutoff=0.6)
    return f"unknown {kind} '{value}'" + (f" (did you mean '{close[0]}'?)" if close else "")


def _items(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def check_rejected(
    data: object, ids: set[str], categories: set[str], systems: set[str], report: Callable[[Loc, str], None]
) -> None:
    """The reference, pattern and root-cause checks on an entry that failed validation, run on what
    its YAML holds, so that one run of ``check`` reports these problems beside the field errors."""
    if not isinstance(data, dict):
        return
    category = data.get("category")
    if categories and isinstance(category, str) and category not in categories:
        report(
            ("category",),
            unknown("category", category, categories) + f"; known: {', '.join(sorted(categories))}",
        )
    for i, sid in enumerate(_items(data.get("systems"))):
        if systems and isinstance(sid, str) and sid not in systems:
            report(("systems", i), unknown("system", sid, systems) + " (add it to content/systems.yaml)")
    for i, ver in enumerate(_items(data.get("versions"))):
        sid = ver.get("system") if isinstance(ver, dict) else None
        if systems and isinstance(sid, str) and sid not in systems:
            report(("versions", i, "system"), unknown("system", sid, systems))
    for i, rel in enumerate(_items(data.get("related"))):
        rid = rel.get("id") if isinstance(rel, dict) else None
        if isinstance(rid, str) and rid not in ids:
            report(("related", i, "id"), unknown("entry id", rid, ids))
    for i, other in enumerate(_items(data.get("overlaps"))):
        if isinstance(other, str) and other not in ids:
            report(("overlaps", i), unknown("entry id", other, ids))
    signatures = _items(data.get("signatures"))
    for i, sig in enumerate(signatures):
        pattern = sig.get("pattern") if isinstance(sig, dict) else None
        if isinstance(pattern, str):
            try:
                compile_pattern(pattern)
            except PatternError as exc:
                report(("signatures", i, "pattern"), f"{exc} (at column {exc.column} of the pattern)")
    if data.get("silent") is not True and not any(
        isinstance(sig, dict) and sig.get("role") == "root-cause" for sig in signatures
    ):
        report(("signatures",), ROOT_CAUSE_RULE)
