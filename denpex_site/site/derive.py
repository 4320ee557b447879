"""Derive what each entry needs before linking: rendered Markdown, compiled signatures, terms.

Deriving is per entry and independent of the others, so it runs in forked children while the rest
of the content loads (:class:`Deriver`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from denpex_site.content.documents import Loc, dotted
from denpex_site.content.load import EntryFolder
from denpex_site.forked import Forked, can_fork
from denpex_site.matcher.dialect import Compiled, PatternError, compile_pattern
from denpex_site.render import markdown
from denpex_site.site.checks import _check_dunders, _check_signatures
from denpex_site.site.fields import field_key, markdown_fields


@dataclass
class Derived:
    """All that one bundle gives on its own: rendered Markdown, checked signatures."""

    html: dict[str, markdown.Rendered]
    compiled: list[Compiled | None]
    hits: dict[str, frozenset[int]]
    problems: list[tuple[int, int, str, str]]
    """In the bundle's entry.yaml: line, column, field, message."""


def derive(bundle: EntryFolder) -> Derived:
    entry = bundle.entry
    problems: list[tuple[int, int, str, str]] = []

    def report(loc: Loc, message: str) -> None:
        problems.append((*bundle.lines.at(loc), dotted(loc), message))

    texts = markdown_fields(entry)
    html = {field_key(loc): markdown.render(text, inline=inline) for loc, (text, inline) in texts.items()}
    _check_dunders(texts, report)
    compiled, hits = _check_signatures(bundle, report)
    return Derived(html, compiled, hits, problems)


class Deriver:
    """Derives bundles while the rest are still being loaded: each full chunk of loaded bundles
    goes to a forked child (which inherits them), at most ``jobs`` at a time; the last, partial
    chunk is derived in this process while the children finish."""

    CHUNK = 64

    def __init__(self, jobs: int) -> None:
        self.bundles: list[EntryFolder] = []
        self.running: list[Forked[list[Derived]]] = []
        self.done: list[Derived] = []
        self.started = 0
        self.jobs = jobs
        self.forks = jobs > 1 and can_fork()

    def add(self, bundle: EntryFolder) -> None:
        _prepare(bundle)
        self.bundles.append(bundle)
        if self.forks and len(self.bundles) - self.started >= self.CHUNK:
            if len(self.running) >= self.jobs:
                self.done += self.running.pop(0).result()
            chunk = self.bundles[self.started :]
            self.running.append(Forked(lambda: [derive(b) for b in chunk]))
            self.started = len(self.bundles)

    def results(self) -> dict[int, Derived]:
        """Every added bundle's Derived, by ``id(bundle)``."""
        try:
            tail = [derive(b) for b in self.bundles[self.started :]]
            while self.running:
                self.done += self.running.pop(0).result()
        finally:
            self.close()
        return dict(zip(map(id, self.bundles), self.done + tail, strict=True))

    def close(self) -> None:
        """Stop the children still running (after an error elsewhere)."""
        for child in self.running:
            child.cancel()
        self.running = []


def derive_all(bundles: list[EntryFolder], jobs: int) -> list[Derived]:
    """:func:`derive` for every bundle, on ``jobs`` cores when there are many."""
    deriver = Deriver(jobs)
    for bundle in bundles:
        deriver.add(bundle)
    found = deriver.results()
    return [found[id(b)] for b in bundles]


def _prepare(bundle: EntryFolder) -> None:
    """What the loading process does for each bundle, so that every process forked later (the
    children that derive, the render workers, the one that checks the example logs against all
    signatures) inherits it done: the signature patterns compiled (derive reports the bad ones),
    and a lexer made for each language of the bundle's code."""
    entry = bundle.entry
    for sig in entry.signatures:
        with contextlib.suppress(PatternError):
            compile_pattern(sig.pattern)
    languages = {example.language for example in entry.fix.examples}
    for text, _ in markdown_fields(entry).values():
        languages |= markdown.fence_languages(text)
    for language in languages:
        markdown.lexer(language)
