"""Link derived entries into a Site: taxonomies, related entries, backlinks.

This is where the cross-references are checked: categories, systems, related and overlapping ids.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from denpex_site.content.documents import Document, LineMap, Loc, dotted
from denpex_site.content.load import Content, EntryFolder
from denpex_site.content.model import Category, Entry, System
from denpex_site.errors import Problems
from denpex_site.site.checks import _check_links, check_rejected, unknown
from denpex_site.site.derive import Derived, Deriver, derive_all
from denpex_site.site.fields import SITE_PATHS
from denpex_site.site.model import EntryPage, Site


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
    reuse = {id(p.bundle): p for p in previous.pages.values()} if previous else {}
    categories = {c.id: c for c in content.categories}
    systems = {s.id: s for s in content.systems}
    _check_taxonomy_ids(content, problems)
    fresh = [b for b in content.bundles if id(b) not in reuse]
    derived = deriver.results() if deriver else {}
    rest = [b for b in fresh if id(b) not in derived]
    derived.update(zip(map(id, rest), derive_all(rest, jobs), strict=True))

    # A reused bundle passed the checks of its own fields in the previous build; they hold while
    # the ids of the categories and systems are the same.
    same_taxonomies = (
        previous is not None
        and previous.categories.keys() == categories.keys()
        and previous.systems.keys() == systems.keys()
    )
    pages: dict[str, EntryPage] = {}
    seen: dict[str, EntryFolder] = {}
    for bundle in content.bundles:
        old = reuse.get(id(bundle))
        if old is None or not same_taxonomies:
            _check_entry_taxonomy(bundle, categories, systems, problems)
        eid = bundle.entry.id
        if eid in seen:
            _report(bundle, problems, ("id",), f"duplicate id '{eid}' (also in {seen[eid].path})")
            continue
        seen[eid] = bundle
        pages[eid] = _page(bundle, old, derived, problems)

    # A rebuild whose edits left every entry's taxonomies and relations as they were keeps the
    # previous build's groups and backlinks (they passed their checks then).
    same = previous is not None and not content.broken and _same_structure(previous, pages, fresh)
    if previous is not None and same:
        for eid, page in pages.items():
            page.backlinks = list(previous.pages[eid].backlinks)
        groups = previous.by_category, previous.by_system, previous.by_tag
    else:
        groups = _groups(pages)
        _link_relations(pages, content.broken, problems)
    _check_all_links(pages, fresh, reuse, content.broken, categories, systems, groups[2], problems)
    ids = set(pages) | content.broken
    for doc in content.rejected:
        check_rejected(doc.data, ids, set(categories), set(systems), _reporter(doc, problems))
    return Site(content.root, categories, systems, pages, *groups)


def _report(bundle: EntryFolder, problems: Problems, loc: Loc, message: str) -> None:
    line, col = bundle.lines.at(loc)
    problems.add(bundle.path, line, col, dotted(loc), message)


def _check_entry_taxonomy(
    bundle: EntryFolder,
    categories: dict[str, Category],
    systems: dict[str, System],
    problems: Problems,
) -> None:
    """The checks of one entry's own fields against its folder and the taxonomies."""
    entry = bundle.entry
    if entry.id != bundle.folder.name:
        _report(
            bundle, problems, ("id",), f"id '{entry.id}' must equal its folder name '{bundle.folder.name}'"
        )
    if categories and entry.category not in categories:
        known_ids = ", ".join(sorted(categories))
        message = unknown("category", entry.category, categories) + f"; known: {known_ids}"
        _report(bundle, problems, ("category",), message)
    if not systems:
        return
    for i, sid in enumerate(entry.systems):
        if sid not in systems:
            message = unknown("system", sid, systems) + " (add it to content/systems.yaml)"
            _report(bundle, problems, ("systems", i), message)
    for i, ver in enumerate(entry.versions):
        if ver.system not in systems:
            _report(bundle, problems, ("versions", i, "system"), unknown("system", ver.system, systems))


def _page(
    bundle: EntryFolder, old: EntryPage | None, derived: dict[int, Derived], problems: Problems
) -> EntryPage:
    """The page of one entry: the previous build's when reused, else the derived one (whose
    problems are reported here)."""
    if old is not None:
        return EntryPage(bundle, old.html, old.compiled, hits=old.hits, cache=old.cache)
    done = derived[id(bundle)]
    for line, col, where, message in done.problems:
        problems.add(bundle.path, line, col, where, message)
    return EntryPage(bundle, done.html, done.compiled, hits=done.hits)


def _check_all_links(
    pages: dict[str, EntryPage],
    fresh: list[EntryFolder],
    reuse: dict[int, EntryPage],
    broken: frozenset[str],
    categories: dict[str, Category],
    systems: dict[str, System],
    by_tag: dict[str, list[str]],
    problems: Problems,
) -> None:
    """Check the internal links of every page; a reused page's links were checked before, so
    only those into an edited entry can have broken."""
    known = set(SITE_PATHS)
    known.update(f"/categories/{c}/" for c in categories)
    known.update(f"/systems/{c}/" for c in systems)
    known.update(f"/tags/{t}/" for t in by_tag)
    fresh_ids = {b.entry.id for b in fresh}
    for page in pages.values():
        if id(page.bundle) in reuse and fresh_ids.isdisjoint(page.linked_entries()):
            continue
        _check_links(page, pages, broken, known, problems)


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
                why = (
                    "an entry cannot relate to itself"
                    if rel.id == eid
                    else unknown("entry id", rel.id, pages)
                )
                problems.add(page.bundle.path, line, col, f"related[{i}].id", why)
        for i, other in enumerate(pages[eid].entry.overlaps):
            if other not in pages and other not in broken:
                page = pages[eid]
                line, col = page.bundle.lines.at(("overlaps", i))
                problems.add(page.bundle.path, line, col, f"overlaps[{i}]", unknown("entry id", other, pages))


def _structure(entry: Entry) -> tuple[object, ...]:
    """What an entry contributes to the taxonomy groups and to other entries' backlinks."""
    return entry.category, entry.systems, entry.tags, [r.id for r in entry.related], entry.overlaps


def _same_structure(previous: Site, pages: dict[str, EntryPage], fresh: list[EntryFolder]) -> bool:
    if previous.pages.keys() != pages.keys():
        return False
    for bundle in fresh:
        old = previous.pages[bundle.entry.id]
        if _structure(old.entry) != _structure(bundle.entry):
            return False
    return True


def _groups(
    pages: dict[str, EntryPage],
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
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


def _reporter(doc: Document, problems: Problems) -> Callable[[Loc, str], None]:
    def report(loc: Loc, message: str) -> None:
        line, col = doc.lines.at(loc)
        problems.add(doc.path, line, col, dotted(loc), message)

    return report


def _check_taxonomy_ids(content: Content, problems: Problems) -> None:
    taxonomies: tuple[tuple[str, Sequence[Category | System], LineMap | None], ...] = (
        ("categories", content.categories, content.category_lines),
        ("systems", content.systems, content.system_lines),
    )
    for name, items, lines in taxonomies:
        seen: set[str] = set()
        for i, item in enumerate(items):
            if item.id in seen and lines is not None:
                line, col = lines.at((name, i, "id"))
                problems.add(
                    content.root / f"{name}.yaml", line, col, f"{name}[{i}].id", f"duplicate id '{item.id}'"
                )
            seen.add(item.id)
