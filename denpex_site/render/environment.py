"""The Jinja2 environment pages are rendered in, with the project's filters."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from denpex_site.content.config import SiteConfig
from denpex_site.content.model import STACK_LABELS, Severity
from denpex_site.render import markdown
from denpex_site.site.model import EntryPage


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


_BACKTICKS = re.compile(r"`([^`]+)`")


def code_spans(text: str | None) -> Markup:
    """A plain-text field (a caption, a note, a source) with its `backtick` spans shown as code."""
    return Markup(_BACKTICKS.sub(r"<code>\1</code>", str(escape(text or ""))))


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
    env.filters["highlight"] = lambda code, lang="text": Markup(markdown.highlight(code, lang))
    env.filters["code_spans"] = code_spans
    env.filters["tojson_compact"] = lambda value: Markup(script_json(value))
    return env


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


def script_json(value: object) -> str:
    """JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` are written as escapes, so no
    text in the data (``</script>``, ``<!--``, ``<script``) can end or change the element."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
