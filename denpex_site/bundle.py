"""The signature bundle: the one versioned document both matchers run on.

It holds the log normalisation rules and every compiled signature, in the order of the entries.
The site publishes it as /api/signatures.json and the package ships a copy for the terminal.
"""

from __future__ import annotations

import json
from typing import Any

from .logtext import ANSI, RANK_PREFIXES, TIMESTAMPS
from .model import SCHEMA_VERSION
from .site import Site


def signature_bundle(site: Site) -> dict[str, Any]:
    """The data both matchers run on: normalisation rules and compiled signatures."""
    signatures = []
    for page in site.ordered():
        for i, (sig, comp) in enumerate(zip(page.entry.signatures, page.compiled, strict=True)):
            if comp is None:
                continue
            signatures.append(
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
        "signatures": signatures,
    }


def signatures_json(site: Site) -> str:
    return json.dumps(signature_bundle(site), sort_keys=True, ensure_ascii=False, indent=1) + "\n"
