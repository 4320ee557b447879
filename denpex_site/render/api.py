"""The JSON API: /api/entries.json and the signature bundle /api/signatures.json.

The bundle holds the log normalisation rules and every compiled signature, in the order of the
entries: the one versioned document both matchers run on.
"""

from __future__ import annotations

import json
from typing import Any

from denpex_site.content.config import SiteConfig
from denpex_site.content.model import SCHEMA_VERSION
from denpex_site.matcher.bundle import BUNDLE_VERSION
from denpex_site.matcher.decisive import rules as decisive_rules
from denpex_site.matcher.dialect import PatternError, compile_pattern
from denpex_site.matcher.hang import rules as hang_rules
from denpex_site.matcher.normalise import ANSI, MASKS, PROGRESS, RANK_PREFIXES, TIMESTAMPS
from denpex_site.site.model import EntryPage, Site


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
        rows.append(str(page.cache[key]))
    head = json.dumps(SCHEMA_VERSION)
    return (
        '{"entries": [\n' + ",\n".join(rows) + "\n],\n"
        f'"schema_version": {head},\n"site": {json.dumps(config.base_url)}}}\n'
    )


def entry_signatures(page: EntryPage) -> list[dict[str, Any]]:
    """The bundle's records for one entry's signatures (those that compiled)."""
    out = []
    for i, (sig, comp) in enumerate(zip(page.entry.signatures, page.compiled, strict=True)):
        if comp is None:
            continue
        record: dict[str, Any] = {
            "entry": page.id,
            "index": i,
            "role": sig.role.value,
            "weight": sig.effective_weight,
            "pattern": sig.pattern,
            "regex": comp.regex,
            "prefilter": comp.prefilter,
            "anchor": comp.anchor,
            "source": sig.source,
        }
        if sig.raised_in is not None:
            record["raised_in"] = sig.raised_in
        if sig.traceback_has is not None:
            try:
                context = compile_pattern(sig.traceback_has)
            except PatternError:
                continue  # check reports it
            record["traceback_has"] = {
                "regex": context.regex,
                "prefilter": context.prefilter,
                "anchor": context.anchor,
            }
        out.append(record)
    return out


def _head(site: Site) -> dict[str, Any]:
    """Everything in the bundle but the signatures."""
    return {
        "schema_version": BUNDLE_VERSION,
        "normalize": {
            "ansi": ANSI,
            "progress": PROGRESS,
            "rank_prefixes": [{"name": n, "regex": r} for n, r in RANK_PREFIXES],
            "timestamps": [{"name": n, "regex": r} for n, r in TIMESTAMPS],
            "masks": [{"kind": k, "regex": r, "replacement": t} for k, r, t in MASKS],
            "decisive": decisive_rules(),
            "hang": hang_rules(),
        },
        "entries": {
            p.id: {
                "title": p.entry.title,
                "category": p.entry.category,
                "severity": p.entry.severity.value,
                "silent": p.entry.silent,
                "systems": list(p.entry.systems),
                "cause": p.entry.quick_answer.cause,
                "fix": p.entry.quick_answer.fix,
                "confirm": p.entry.confirm[0].step,
            }
            for p in site.ordered()
        },
    }


def signature_bundle(site: Site) -> dict[str, Any]:
    """The data both matchers run on: normalisation rules and compiled signatures."""
    return {**_head(site), "signatures": [r for page in site.ordered() for r in entry_signatures(page)]}


def signatures_json(site: Site) -> str:
    """The bundle as JSON, one signature per line; each entry's lines are kept across rebuilds."""
    rows = []
    for page in site.ordered():
        if "signatures" not in page.cache:
            page.cache["signatures"] = ",\n".join(
                json.dumps(r, sort_keys=True, ensure_ascii=False) for r in entry_signatures(page)
            )
        if page.cache["signatures"]:
            rows.append(str(page.cache["signatures"]))
    head = json.dumps(_head(site), sort_keys=True, ensure_ascii=False, indent=1)
    # "signatures" sorts last: it closes the object, one signature per line.
    return head[:-2] + ',\n "signatures": [\n' + ",\n".join(rows) + "\n ]\n}\n"
