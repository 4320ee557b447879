"""The signature bundle: the one versioned document both matchers run on.

It holds the log normalisation rules and every compiled signature, in the order of the entries.
The site publishes it as /api/signatures.json and the package ships a copy for the terminal.
"""

from __future__ import annotations

import json
from typing import Any

from .logtext import ANSI, RANK_PREFIXES, TIMESTAMPS
from .model import SCHEMA_VERSION
from .site import EntryPage, Site


def entry_signatures(page: EntryPage) -> list[dict[str, Any]]:
    """The bundle's records for one entry's signatures (those that compiled)."""
    out = []
    for i, (sig, comp) in enumerate(zip(page.entry.signatures, page.compiled, strict=True)):
        if comp is None:
            continue
        out.append(
            {
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
        )
    return out


def _head(site: Site) -> dict[str, Any]:
    """Everything in the bundle but the signatures."""
    return {
        "schema_version": SCHEMA_VERSION,
        "normalize": {
            "ansi": ANSI,
            "rank_prefixes": [{"name": n, "regex": r} for n, r in RANK_PREFIXES],
            "timestamps": [{"name": n, "regex": r} for n, r in TIMESTAMPS],
        },
        "entries": {
            p.id: {
                "title": p.entry.title,
                "category": p.entry.category,
                "severity": p.entry.severity.value,
                "silent": p.entry.silent,
                "systems": list(p.entry.systems),
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
            rows.append(page.cache["signatures"])
    head = json.dumps(_head(site), sort_keys=True, ensure_ascii=False, indent=1)
    # "signatures" sorts last: it closes the object, one signature per line.
    return head[:-2] + ',\n "signatures": [\n' + ",\n".join(rows) + "\n ]\n}\n"
