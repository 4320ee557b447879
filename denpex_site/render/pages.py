"""The list of pages a Site renders to, each with its template, path and context.

Nothing here touches the file system except reading templates; :mod:`denpex_site.build` writes.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, TemplateSyntaxError

from denpex_site.errors import TemplateError
from denpex_site.site.model import EntryPage, Site


@dataclass(frozen=True)
class Page:
    """One output file: its path below the output folder and how to make it."""

    path: str
    template: str
    context: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    entries: frozenset[str] = frozenset()
    """Entry ids this page shows; an edit to one of them re-renders the page."""

    @property
    def url(self) -> str:
        return "/" + self.path.removesuffix("index.html")


def entry_page(page: EntryPage) -> Page:
    related = {r.id for r in page.entry.related} | set(page.backlinks)
    return Page(
        f"failures/{page.id}/index.html", "entry.html", {"page": page}, frozenset({page.id, *related})
    )


def all_pages(site: Site) -> list[Page]:
    ordered = site.ordered()
    by_sev = sorted(ordered, key=site.sort_key)
    all_ids = frozenset(site.pages)
    out = [
        Page("index.html", "home.html", {"recent": site.recent(), "counts": _counts(site)}, all_ids),
        Page("failures/index.html", "failures.html", {"pages": by_sev}, all_ids),
        Page("categories/index.html", "categories.html", {"counts": _counts(site)}, all_ids),
        Page("systems/index.html", "systems.html", {}, all_ids),
        Page("tags/index.html", "tags.html", {}, all_ids),
        Page("404.html", "404.html", {"recent": site.recent(5)}, all_ids),
        Page("diagnose/index.html", "diagnose.html"),
        Page("search/index.html", "search.html"),
    ]
    out.extend(entry_page(page) for page in ordered)
    listings = [
        ("categories", "Category", cid, cat.title, cat.description, site.by_category.get(cid, []))
        for cid, cat in sorted(site.categories.items())
    ]
    listings += [
        ("systems", "System", sid, system.title, system.description, site.by_system.get(sid, []))
        for sid, system in sorted(site.systems.items())
    ]
    listings += [
        ("tags", "Tag", tag, tag, f"Failures tagged '{tag}'.", ids)
        for tag, ids in sorted(site.by_tag.items())
    ]
    for folder, kind, key, heading, description, ids in listings:
        members = sorted((site.pages[e] for e in ids), key=site.sort_key)
        context = {"heading": heading, "kind": kind, "description": description, "pages": members}
        out.append(Page(f"{folder}/{key}/index.html", "list.html", context, frozenset(ids)))
    return out


def _counts(site: Site) -> dict[str, int]:
    return {cid: len(site.by_category.get(cid, [])) for cid in site.categories}


def render_page(env: Environment, page: Page) -> str:
    """The HTML of ``page``; a template error is raised as :class:`TemplateError` naming the
    template and line where it happened (Jinja keeps template lines in its traceback frames)."""
    try:
        return env.get_template(page.template).render(**page.context, page_url=page.url)
    except TemplateSyntaxError as exc:
        raise TemplateError(exc.name or page.template, exc.lineno, exc.message or str(exc)) from None
    except Exception as exc:  # any failure inside a template is reported at the template's line
        name, line = page.template, 1
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.endswith(".html") and frame.lineno:
                name, line = Path(frame.filename).name, frame.lineno
        raise TemplateError(name, line, f"{exc} (while rendering {page.path})") from None
