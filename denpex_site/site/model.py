"""The Site: every entry page with its rendered Markdown, taxonomies and backlinks.

The Site is the one object that the HTML pages, the JSON API and the signature bundle are all
made from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from denpex_site.content.load import EntryFolder
from denpex_site.content.model import SEVERITY_ORDER, Category, Entry, Role, System
from denpex_site.matcher.dialect import Compiled
from denpex_site.render import markdown
from denpex_site.render.searchindex import entry_terms
from denpex_site.site.fields import ENTRY_LINK

SECTION_ANCHORS = (
    "quick-answer",
    "mechanism",
    "observations",
    "symptoms",
    "confirm",
    "signatures",
    "examples",
    "fix",
    "verify",
    "prevention",
    "fingerprint",
    "scale",
    "operator-action",
    "faq",
    "related",
    "references",
)


@dataclass
class EntryPage:
    bundle: EntryFolder
    html: dict[str, markdown.Rendered]
    compiled: list[Compiled | None]
    hits: dict[str, frozenset[int]] = field(default_factory=dict)
    """Per example log, the indexes of the lines this entry's signatures match."""
    backlinks: list[str] = field(default_factory=list)
    cache: dict[object, object] = field(default_factory=dict)
    """Serialised forms of this entry, kept across incremental rebuilds while the bundle is unchanged."""

    @property
    def entry(self) -> Entry:
        return self.bundle.entry

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def url(self) -> str:
        return f"/failures/{self.entry.id}/"

    def md(self, key: str) -> str:
        return self.html[key].html

    @property
    def quiet(self) -> str | None:
        """How a silent entry shows in logs: only "collateral" lines, "warning"s, or nothing ("silent")."""
        if not self.entry.silent:
            return None
        roles = {s.role for s in self.entry.signatures}
        if roles == {Role.collateral}:
            return "collateral"
        return "warning" if Role.warning in roles else "silent"

    def summary(self) -> tuple[object, ...]:
        """What list pages, feeds and other entries' pages show of this entry."""
        e = self.entry
        return (
            e.title,
            e.severity,
            e.category,
            tuple(e.systems),
            tuple(e.tags),
            e.added,
            e.updated,
            e.quick_answer,
            e.silent,
        )

    def terms(self) -> list[dict[str, int]]:
        """Search terms and their counts, one dict per field of searchindex.FIELDS (made when the
        search index is written: checking and rendering do not need them)."""
        if "terms" not in self.cache:
            self.cache["terms"] = entry_terms(self.entry)
        return self.cache["terms"]  # type: ignore[return-value]

    def linked_entries(self) -> frozenset[str]:
        """The ids of the entries this entry's Markdown links to."""
        if "linked" not in self.cache:
            self.cache["linked"] = frozenset(
                m.group(1) for r in self.html.values() for href in r.links if (m := ENTRY_LINK.match(href))
            )
        return self.cache["linked"]  # type: ignore[return-value]

    def anchors(self) -> set[str]:
        if "anchors" not in self.cache:
            self.cache["anchors"] = self._anchors()
        return self.cache["anchors"]  # type: ignore[return-value]

    def _anchors(self) -> set[str]:
        found = set(SECTION_ANCHORS)
        for rendered in self.html.values():
            found.update(rendered.anchors)
        found.update(f"faq-{i + 1}" for i in range(len(self.entry.faq)))
        found.update(f"signature-{i + 1}" for i in range(len(self.entry.signatures)))
        return found


@dataclass
class Site:
    root: Path
    categories: dict[str, Category]
    systems: dict[str, System]
    pages: dict[str, EntryPage]
    by_category: dict[str, list[str]]
    by_system: dict[str, list[str]]
    by_tag: dict[str, list[str]]

    def ordered(self) -> list[EntryPage]:
        return [self.pages[k] for k in sorted(self.pages)]

    def recent(self, n: int = 8) -> list[EntryPage]:
        return sorted(self.pages.values(), key=lambda p: (-p.entry.added.toordinal(), p.id))[:n]

    def sort_key(self, page: EntryPage) -> tuple[int, str]:
        return (SEVERITY_ORDER[page.entry.severity], page.entry.title.lower())
