"""The Markdown fields of an entry, keyed by where they stand, and the links they may hold."""

from __future__ import annotations

import re

from denpex_site.content.documents import Loc
from denpex_site.content.model import Entry

LINK_RE = re.compile(r"^/failures/(?P<id>[a-z0-9-]+)/(?:#(?P<anchor>[\w-]+))?$")


ENTRY_LINK = re.compile(r"/failures/([^/]+)/")
"""Any link into an entry's folder (its page, an anchor on it): the entry's id."""


SITE_PATHS = ("/", "/failures/", "/diagnose/", "/search/", "/categories/", "/systems/", "/tags/")


def markdown_fields(entry: Entry) -> dict[tuple[str | int, ...], tuple[str, bool]]:
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


def field_key(loc: Loc) -> str:
    return ".".join(str(p) for p in loc)
