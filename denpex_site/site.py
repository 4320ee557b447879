"""Link loaded content into a Site: taxonomies, backlinks, rendered Markdown, signatures.

This is where every cross-reference is checked (categories, systems, related ids, internal links
and anchors, signature patterns against the example logs they name). The Site is the one object
that the HTML pages, the JSON API and the signature bundle are all made from.
"""

from __future__ import annotations

import contextlib
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import markdown
from .errors import Problems
from .forked import Forked, can_fork
from .load import Bundle, Content, Loc, dotted
from .logtext import normalize_lines
from .model import SEVERITY_ORDER, Category, Entry, Role, System
from .searchindex import entry_terms
from .signatures import Compiled, PatternError, compile_pattern

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
    bundle: Bundle
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
                m.group(1) for r in self.html.values() for href in r.links if (m := _ENTRY_LINK.match(href))
            )
        return self.cache["linked"]  # type: ignore[return-value]

    def anchors(self) -> set[str]:
        if "anchors" not in self.cache:
            self.cache["anchors"] = self._anchors()  # type: ignore[assignment]
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


def _markdown_fields(entry: Entry) -> dict[tuple[str | int, ...], tuple[str, bool]]:
    """Every Markdown field of an entry: loc -> (text, inline)."""
    out: dict[Loc, tuple[str, bool]] = {
        ("mechanism",): (entry.mechanism, False),
        ("fix", "summary"): (entry.fix.summary, False),
        ("verify",): (entry.verify, False),
        ("fingerprint",): (entry.fingerprint, False),
    }
    for key in ("cost", "alternatives"):
        value = getattr(entry.fix, key)
        if value:
            out[("fix", key)] = (value, False)
    for key in ("scale", "operator_action"):
        value = getattr(entry, key)
        if value:
            out[(key,)] = (value, False)
    for i, step in enumerate(entry.confirm):
        out[("confirm", i, "step")] = (step.step, False)
        out[("confirm", i, "shows")] = (step.shows, False)
    for i, item in enumerate(entry.prevention):
        out[("prevention", i)] = (item, False)
    for i, faq in enumerate(entry.faq):
        out[("faq", i, "q")] = (faq.q, True)
        out[("faq", i, "a")] = (faq.a, False)
    for i, ex in enumerate(entry.fix.examples):
        if ex.note:
            out[("fix", "examples", i, "note")] = (ex.note, False)
    for i, sym in enumerate(entry.symptoms):
        out[("symptoms", i, "symptom")] = (sym.symptom, True)
        out[("symptoms", i, "why")] = (sym.why, True)
    for i, rel in enumerate(entry.related):
        out[("related", i, "note")] = (rel.note, True)
    for key in ("symptom", "cause", "fix"):
        out[("quick_answer", key)] = (getattr(entry.quick_answer, key), True)
    return out


def _key(loc: Loc) -> str:
    return ".".join(str(p) for p in loc)


_LINK_RE = re.compile(r"^/failures/(?P<id>[a-z0-9-]+)/(?:#(?P<anchor>[\w-]+))?$")
_ENTRY_LINK = re.compile(r"/failures/([^/]+)/")
"""Any link into an entry's folder (its page, an anchor on it): the entry's id."""
_SITE_PATHS = ("/", "/failures/", "/diagnose/", "/search/", "/categories/", "/systems/", "/tags/")


@dataclass
class Derived:
    """All that one bundle gives on its own: rendered Markdown, checked signatures."""

    html: dict[str, markdown.Rendered]
    compiled: list[Compiled | None]
    hits: dict[str, frozenset[int]]
    problems: list[tuple[int, int, str, str]]
    """In the bundle's entry.yaml: line, column, field, message."""


def derive(bundle: Bundle) -> Derived:
    entry = bundle.entry
    problems: list[tuple[int, int, str, str]] = []

    def report(loc: Loc, message: str) -> None:
        problems.append((*bundle.lines.at(loc), dotted(loc), message))

    texts = _markdown_fields(entry)
    html = {_key(loc): markdown.render(text, inline=inline) for loc, (text, inline) in texts.items()}
    _check_dunders(texts, report)
    compiled, hits = _check_signatures(bundle, report)
    return Derived(html, compiled, hits, problems)


class Deriver:
    """Derives bundles while the rest are still being loaded: each full chunk of loaded bundles
    goes to a forked child (which inherits them), at most ``jobs`` at a time; the last, partial
    chunk is derived in this process while the children finish."""

    CHUNK = 64

    def __init__(self, jobs: int) -> None:
        self.bundles: list[Bundle] = []
        self.running: list[Forked[list[Derived]]] = []
        self.done: list[Derived] = []
        self.started = 0
        self.jobs = jobs
        self.forks = jobs > 1 and can_fork()

    def add(self, bundle: Bundle) -> None:
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


def derive_all(bundles: list[Bundle], jobs: int) -> list[Derived]:
    """:func:`derive` for every bundle, on ``jobs`` cores when there are many."""
    deriver = Deriver(jobs)
    for bundle in bundles:
        deriver.add(bundle)
    found = deriver.results()
    return [found[id(b)] for b in bundles]


def build_site(
    content: Content,
    problems: Problems,
    previous: Site | None = None,
    deriver: Deriver | None = None,
    jobs: int = 1,
) -> Site:
    """Link and check ``content``. Bundles that are the very objects of ``previous`` are reused as
    they were (their Markdown and signatures were already rendered and checked); those a
    ``deriver`` was given while loading are derived there, the others on ``jobs`` cores."""
    root = content.root
    reuse = {id(p.bundle): p for p in previous.pages.values()} if previous else {}
    categories = {c.id: c for c in content.categories}
    systems = {s.id: s for s in content.systems}
    _check_taxonomy_ids(content, problems)

    seen: dict[str, Bundle] = {}
    pages: dict[str, EntryPage] = {}
    fresh = [b for b in content.bundles if id(b) not in reuse]
    derived = deriver.results() if deriver else {}
    rest = [b for b in fresh if id(b) not in derived]
    derived.update(zip(map(id, rest), derive_all(rest, jobs), strict=True))

    def report(bundle: Bundle, loc: Loc, message: str) -> None:
        line, col = bundle.lines.at(loc)
        problems.add(bundle.path, line, col, dotted(loc), message)

    # A reused bundle passed the checks of its own fields in the previous build; they hold while
    # the ids of the categories and systems are the same.
    same_taxonomies = (
        previous is not None
        and previous.categories.keys() == categories.keys()
        and previous.systems.keys() == systems.keys()
    )
    for bundle in content.bundles:
        entry = bundle.entry
        old = reuse.get(id(bundle))
        checked = old is not None and same_taxonomies
        if not checked and entry.id != bundle.folder.name:
            report(bundle, ("id",), f"id '{entry.id}' must equal its folder name '{bundle.folder.name}'")
        if entry.id in seen:
            report(bundle, ("id",), f"duplicate id '{entry.id}' (also in {seen[entry.id].path})")
            continue
        seen[entry.id] = bundle
        if not checked and categories and entry.category not in categories:
            known_ids = ", ".join(sorted(categories))
            report(bundle, ("category",), f"unknown category '{entry.category}'; known: {known_ids}")
        if not checked and systems:
            for i, sid in enumerate(entry.systems):
                if sid not in systems:
                    report(bundle, ("systems", i), f"unknown system '{sid}' (add it to content/systems.yaml)")
            for i, ver in enumerate(entry.versions):
                if ver.system not in systems:
                    report(bundle, ("versions", i, "system"), f"unknown system '{ver.system}'")
        if old is not None:
            pages[entry.id] = EntryPage(bundle, old.html, old.compiled, hits=old.hits, cache=old.cache)
            continue
        done = derived[id(bundle)]
        for line, col, where, message in done.problems:
            problems.add(bundle.path, line, col, where, message)
        pages[entry.id] = EntryPage(bundle, done.html, done.compiled, hits=done.hits)

    # A rebuild whose edits left every entry's taxonomies and relations as they were keeps the
    # previous build's groups and backlinks (they passed their checks then).
    same = previous is not None and not content.broken and _same_structure(previous, pages, fresh)
    if same:
        assert previous is not None
        for eid, page in pages.items():
            page.backlinks = list(previous.pages[eid].backlinks)
        by_category, by_system, by_tag = previous.by_category, previous.by_system, previous.by_tag
    else:
        by_category, by_system, by_tag = _groups(pages)
    known = set(_SITE_PATHS)
    known.update(f"/categories/{c}/" for c in categories)
    known.update(f"/systems/{c}/" for c in systems)
    known.update(f"/tags/{t}/" for t in by_tag)
    fresh_ids = {b.entry.id for b in fresh}
    for page in pages.values():
        # A reused page's links were checked before; only links into an edited entry can break.
        if id(page.bundle) in reuse and fresh_ids.isdisjoint(page.linked_entries()):
            continue
        _check_links(page, pages, content.broken, known, problems)
    if not same:
        _link_relations(pages, content.broken, problems)
    return Site(root, categories, systems, pages, by_category, by_system, by_tag)


def _link_relations(pages: dict[str, EntryPage], broken: frozenset[str], problems: Problems) -> None:
    """Give each entry the backlinks of the entries that relate to it; report related and
    overlapping ids that name no entry (``broken``: entries that failed to load, not reported again)."""
    for eid in sorted(pages):
        for i, rel in enumerate(pages[eid].entry.related):
            if rel.id in broken:
                continue
            target = pages.get(rel.id)
            if target is not None and rel.id != eid:
                # Entries come in id order, so an entry that relates twice to one target is last.
                if not target.backlinks or target.backlinks[-1] != eid:
                    target.backlinks.append(eid)
            else:
                page = pages[eid]
                line, col = page.bundle.lines.at(("related", i, "id"))
                why = "an entry cannot relate to itself" if rel.id == eid else f"unknown entry id '{rel.id}'"
                problems.add(page.bundle.path, line, col, f"related[{i}].id", why)
        for i, other in enumerate(pages[eid].entry.overlaps):
            if other not in pages and other not in broken:
                page = pages[eid]
                line, col = page.bundle.lines.at(("overlaps", i))
                problems.add(page.bundle.path, line, col, f"overlaps[{i}]", f"unknown entry id '{other}'")


def _structure(entry: Entry) -> tuple[object, ...]:
    """What an entry contributes to the taxonomy groups and to other entries' backlinks."""
    return entry.category, entry.systems, entry.tags, [r.id for r in entry.related], entry.overlaps


def _same_structure(previous: Site, pages: dict[str, EntryPage], fresh: list[Bundle]) -> bool:
    if previous.pages.keys() != pages.keys():
        return False
    for bundle in fresh:
        old = previous.pages[bundle.entry.id]
        if _structure(old.entry) != _structure(bundle.entry):
            return False
    return True


def _groups(pages: dict[str, EntryPage]) -> tuple[dict[str, list[str]], ...]:
    """Entry ids by category, by system and by tag, each list in id order."""
    by_category: dict[str, list[str]] = defaultdict(list)
    by_system: dict[str, list[str]] = defaultdict(list)
    by_tag: dict[str, list[str]] = defaultdict(list)
    for eid in sorted(pages):
        entry = pages[eid].entry
        by_category[entry.category].append(eid)
        for sid in entry.systems:
            by_system[sid].append(eid)
        for tag in entry.tags:
            by_tag[tag].append(eid)
    return dict(by_category), dict(by_system), dict(by_tag)


def _check_taxonomy_ids(content: Content, problems: Problems) -> None:
    for name, items, lines in (
        ("categories", content.categories, content.category_lines),
        ("systems", content.systems, content.system_lines),
    ):
        seen: set[str] = set()
        for i, item in enumerate(items):
            if item.id in seen and lines is not None:
                line, col = lines.at((name, i, "id"))
                problems.add(
                    content.root / f"{name}.yaml", line, col, f"{name}[{i}].id", f"duplicate id '{item.id}'"
                )
            seen.add(item.id)


def _prepare(bundle: Bundle) -> None:
    """What the loading process does for each bundle, so that every process forked later (the
    children that derive, the render workers, the one that checks the example logs against all
    signatures) inherits it done: the signature patterns compiled (derive reports the bad ones),
    and a lexer made for each language of the bundle's code."""
    entry = bundle.entry
    for sig in entry.signatures:
        with contextlib.suppress(PatternError):
            compile_pattern(sig.pattern)
    languages = {example.language for example in entry.fix.examples}
    for text, _ in _markdown_fields(entry).values():
        languages |= markdown.fence_languages(text)
    for language in languages:
        markdown.lexer(language)


def _check_signatures(  # type: ignore[no-untyped-def]
    bundle: Bundle, report
) -> tuple[list[Compiled | None], dict[str, frozenset[int]]]:
    """Compile the signatures and check them against their logs; also returns, per log, the
    indexes of the lines that any of them matches (shown highlighted on the page)."""
    entry = bundle.entry
    declared = {log.file for log in entry.logs}
    for i, log in enumerate(entry.logs):
        if log.file not in bundle.logs:
            report(("logs", i, "file"), f"log file '{log.file}' does not exist in {bundle.folder.name}/logs/")
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
    if not entry.silent and not any(s.role == Role.root_cause for s in entry.signatures):
        report(("signatures",), "an entry that is not silent needs at least one root-cause signature")
    return compiled, {name: frozenset(found) for name, found in hits.items()}


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
    fields = _markdown_fields(page.entry)
    own = page.anchors()
    for loc in fields:
        for href in page.html[_key(loc)].links:
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
    if href.startswith("#"):
        return None if href[1:] in own else f"link '{href}' points to no anchor on this page"
    if href.startswith("/"):
        m = _LINK_RE.match(href)
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
