"""Documents for crawlers and feed readers: sitemap, robots.txt, OpenSearch and the Atom feed."""

from __future__ import annotations

from xml.sax.saxutils import escape as xml_escape

from denpex_site.content.config import SiteConfig
from denpex_site.site.model import Site


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
