"""Turn a Site into pages: the Jinja2 environment, the list of pages, and the JSON documents.

Nothing here touches the file system except reading templates; :mod:`denpex_site.builder` writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from . import markdown
from .config import SiteConfig
from .model import SCHEMA_VERSION, STACK_LABELS, Severity
from .site import EntryPage, Site


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


def example_log(page: EntryPage, name: str) -> Markup:
    """An example log as a code block, the lines this entry's signatures match marked."""
    hits = page.hits.get(name, frozenset())
    lines = str(escape(page.bundle.logs.get(name, ""))).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n in hits & set(range(len(lines))):
        lines[n] = f'<mark class="hit">{lines[n]}</mark>'
    body = "\n".join(lines)
    return Markup(markdown.code_block(body + "\n", "text", "log"))


_CODE_SPAN = re.compile(r"`([^`]+)`")


def code_spans(text: str | None) -> Markup:
    """A plain-text field (a caption, a note, a source) with its `backtick` spans shown as code."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text or ""))))


def make_env(templates: Path, config: SiteConfig, asset: Callable[[str], str]) -> Environment:
    env = Environment(
        loader=FileSystemLoader(templates),
        autoescape=select_autoescape(["html", "xml"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(
        config=config,
        asset=asset,
        stack_label=lambda s: STACK_LABELS[s],
        severities=list(Severity),
        json_ld=lambda page: json_ld(page, config),
        example_log=example_log,
    )
    env.filters["md"] = lambda text: Markup(markdown.render(text).html)
    env.filters["inline_md"] = lambda text: Markup(markdown.inline(text))
    env.filters["highlight"] = lambda code, lang="text": Markup(markdown.highlight(code, lang))
    env.filters["code_spans"] = code_spans
    env.filters["tojson_compact"] = lambda value: Markup(
        json.dumps(value, sort_keys=True, ensure_ascii=False).replace("</", "<\\/")
    )
    return env


def entry_page(page: EntryPage) -> Page:
    related = {r.id for r in page.entry.related} | set(page.backlinks)
    return Page(
        f"failures/{page.id}/index.html", "entry.html", {"page": page}, frozenset({page.id, *related})
    )


def pages(site: Site) -> list[Page]:
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


def entry_data(page: EntryPage, config: SiteConfig) -> dict[str, Any]:
    data = page.entry.model_dump(mode="json", exclude_none=True)
    data["url"] = config.absolute(page.url)
    data["has_repro"] = page.bundle.repro is not None
    data["referenced_by"] = list(page.backlinks)
    return data


def entries_json(site: Site, config: SiteConfig) -> str:
    """Every entry's structured data, one entry per line (each line is cached across rebuilds)."""
    rows = []
    for page in site.ordered():
        key = ("api", tuple(page.backlinks))
        if key not in page.cache:
            page.cache[key] = json.dumps(entry_data(page, config), sort_keys=True, ensure_ascii=False)
        rows.append(page.cache[key])
    head = json.dumps(SCHEMA_VERSION)
    return (
        '{"entries": [\n' + ",\n".join(rows) + "\n],\n"
        f'"schema_version": {head},\n"site": {json.dumps(config.base_url)}}}\n'
    )


def sitemap(urls: list[str], config: SiteConfig) -> str:
    rows = "".join(f"  <url><loc>{xml_escape(config.absolute(u))}</loc></url>\n" for u in sorted(urls))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + rows + "</urlset>\n"
    )


def opensearch(config: SiteConfig) -> str:
    """An OpenSearch description, so that browsers can add the site as a search engine."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">\n'
        f"  <ShortName>{xml_escape(config.title)}</ShortName>\n"
        f"  <Description>{xml_escape(config.tagline)}</Description>\n"
        "  <InputEncoding>UTF-8</InputEncoding>\n"
        f'  <Url type="text/html" method="get" template="{xml_escape(config.absolute("/search/"))}?q={{searchTerms}}"/>\n'
        f'  <moz:SearchForm xmlns:moz="http://www.mozilla.org/2006/browser/search/">{xml_escape(config.absolute("/search/"))}</moz:SearchForm>\n'
        "</OpenSearchDescription>\n"
    )


def robots(config: SiteConfig) -> str:
    return f"User-agent: *\nAllow: /\nSitemap: {config.absolute('/sitemap.xml')}\n"


def atom_feed(site: Site, config: SiteConfig) -> str:
    recent = site.recent(50)
    updated = config.build_date or max((p.entry.updated or p.entry.added for p in recent), default=None)
    stamp = f"{updated.isoformat()}T00:00:00Z" if updated else "2026-01-01T00:00:00Z"
    items = []
    for p in recent:
        when = (p.entry.updated or p.entry.added).isoformat()
        url = config.absolute(p.url)
        summary = f"{p.entry.quick_answer.symptom} {p.entry.quick_answer.cause} {p.entry.quick_answer.fix}"
        items.append(
            "  <entry>\n"
            f"    <title>{xml_escape(p.entry.title)}</title>\n"
            f'    <link href="{xml_escape(url)}"/>\n'
            f"    <id>{xml_escape(url)}</id>\n"
            f"    <published>{p.entry.added.isoformat()}T00:00:00Z</published>\n"
            f"    <updated>{when}T00:00:00Z</updated>\n"
            f'    <category term="{xml_escape(p.entry.category)}"/>\n'
            f"    <summary>{xml_escape(summary)}</summary>\n"
            "  </entry>\n"
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f"  <title>{xml_escape(config.title)}: new failure entries</title>\n"
        f"  <subtitle>{xml_escape(config.tagline)}</subtitle>\n"
        f'  <link href="{xml_escape(config.absolute("/feed.xml"))}" rel="self"/>\n'
        f'  <link href="{xml_escape(config.absolute("/"))}"/>\n'
        f"  <id>{xml_escape(config.absolute('/'))}</id>\n"
        f"  <updated>{stamp}</updated>\n"
        f"  <author><name>{xml_escape(config.title)} contributors</name></author>\n"
        + "".join(items)
        + "</feed>\n"
    )


def json_ld(page: EntryPage, config: SiteConfig) -> list[dict[str, Any]]:
    entry = page.entry
    article = {
        "@context": "https://schema.org",
        "@type": "TechArticle",
        "headline": entry.title,
        "description": entry.quick_answer.cause,
        "datePublished": entry.added.isoformat(),
        "dateModified": (entry.updated or entry.added).isoformat(),
        "url": config.absolute(page.url),
        "keywords": ", ".join(entry.tags),
        "about": [s for s in entry.systems],
        "publisher": {"@type": "Organization", "name": config.title},
    }
    out: list[dict[str, Any]] = [article]
    if entry.faq:
        out.append(
            {
                "@context": "https://schema.org",
                "@type": "FAQPage",
                "mainEntity": [
                    {
                        "@type": "Question",
                        "name": item.q,
                        "acceptedAnswer": {"@type": "Answer", "text": item.a},
                    }
                    for item in entry.faq
                ],
            }
        )
    return out
