"""The word index that ranks entries for a search: /api/search.json.

Each entry's searchable fields (title, tags, quick answer, how people describe it, symptoms,
observed lines, signatures, FAQ, mechanism) are cut into terms: lower-cased words, identifiers
also in their parts (``ncclSystemError`` -> nccl, system, error; ``find_unused_parameters`` kept
whole and in parts), stop words dropped, and a light suffix stemmer applied.
static/js/search-rank.js cuts the query the same way (tests/render/test_search_rank.py keeps the two in
step) and scores entries with BM25F:
each field has its own weight and length normalisation, so a word in a title or a symptom counts
for more than the same word deep in the mechanism.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Iterable
from itertools import chain
from typing import TYPE_CHECKING, Any

from denpex_site.content.model import SCHEMA_VERSION, Entry

if TYPE_CHECKING:
    from denpex_site.site.model import Site


# Field name -> weight. The JSON carries them, so the browser needs no copy.
FIELDS: dict[str, float] = {
    "title": 5.0,
    "tags": 4.0,
    "symptom": 3.0,
    "described": 2.0,
    "cause": 2.0,
    "fix": 1.0,
    "symptoms": 2.0,
    "why": 1.0,
    "observed": 1.0,
    "signatures": 1.0,
    "questions": 2.0,
    "answers": 0.5,
    "mechanism": 0.3,
}


assert len(FIELDS) <= 16, "a posting packs the field number in four bits"


K1 = 1.2


B = 0.5


# A score is multiplied by 1 + LINK_PRIOR * ln(1 + entries linking to it): a tie-breaker.
LINK_PRIOR = 0.02


STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "get",
        "gets",
        "got",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "once",
        "one",
        "only",
        "or",
        "our",
        "so",
        "some",
        "than",
        "that",
        "the",
        "then",
        "them",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "up",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "while",
        "why",
        "will",
        "with",
        "without",
        "you",
        "your",
        "after",
        "before",
        "all",
        "also",
        "any",
        "because",
        "every",
        "other",
        "same",
        "still",
        "very",
        "say",
        "says",
        "said",
        "saying",
        "seems",
        "think",
        "thing",
        "things",
        "within",
        "soon",
        "anything",
        "something",
        "happens",
        "happened",
        "suddenly",
        "keeps",
        "kept",
        "im",
        "ive",
        "dont",
        "doesnt",
        "wont",
        "cant",
        "isnt",
    ]
)


# Dotted, underscored or camel-case names, starting at the beginning of a word.
IDENTIFIER = re.compile(
    r"(?<![A-Za-z0-9_])(?:[A-Za-z_][A-Za-z0-9_]*(?:[.:_/][A-Za-z0-9_]+)+"
    r"|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Za-z]*[a-z][A-Z][A-Za-z0-9]*)"
)


PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


WORD = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")


# Markdown link targets and apostrophes ("doesn't" -> "doesnt") are not words of their own.
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")


APOSTROPHE = re.compile(r"(?<=[A-Za-z])['\u2019](?=[A-Za-z])")


# Suffix -> replacement, the first that fits wins; the stem keeps at least three letters.
SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def stem(word: str) -> str:
    """A light English stemmer: plurals, -ing and -ed, a doubled last consonant, a final e, -ise as -ize."""
    if len(word) <= 3 or not word.isalpha():
        return word
    base = word
    for suffix, replacement in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            word = word[: -len(suffix)] + replacement
            break
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    if word != base and word.endswith("is"):
        word = word[:-1] + "z"
    return word


def split_identifier(identifier: str) -> list[str]:
    """``ncclSystemError`` -> nccl system error; ``CUDA_VISIBLE_DEVICES`` -> cuda visible devices."""
    return [p.lower() for p in PART.findall(identifier)]


@functools.cache
def _term(word: str) -> str | None:
    if len(word) < 2 or word in STOP_WORDS:
        return None
    return stem(word)


@functools.cache
def _word_terms(word: str) -> tuple[str, ...]:
    """The terms of one lower-case word: an identifier with underscores whole, then its parts."""
    parts = [t for t in map(_term, word.split("_")) if t]
    return (word, *parts) if "_" in word else tuple(parts)


@functools.cache
def _identifier_terms(identifier: str) -> tuple[str, ...]:
    """The terms of an identifier's parts, when it has more than one part that is not a number."""
    parts = split_identifier(identifier)
    if sum(not p.isdigit() for p in parts) > 1:
        return tuple(t for t in map(_term, parts) if t and not t.isdigit())
    return ()


def terms(text: str) -> list[str]:
    """The index terms of a text, in order (a word may give several: whole identifier and parts)."""
    if "](" in text:
        text = LINK_TARGET.sub("]", text)
    if "'" in text or "\u2019" in text:
        text = APOSTROPHE.sub("", text)
    out = list(chain.from_iterable(map(_word_terms, WORD.findall(text.lower()))))
    out.extend(chain.from_iterable(map(_identifier_terms, IDENTIFIER.findall(text))))
    return out


def fields(entry: Entry) -> dict[str, str]:
    """The text of each searchable field of an entry."""
    qa = entry.quick_answer
    return {
        "title": entry.title,
        "tags": " ".join(t.replace("-", " ") for t in entry.tags),
        "symptom": qa.symptom,
        "described": "\n".join(entry.described_as),
        "cause": qa.cause,
        "fix": qa.fix,
        "symptoms": "\n".join(s.symptom for s in entry.symptoms),
        "why": "\n".join(s.why for s in entry.symptoms),
        "observed": "\n".join(o.text for o in entry.observations),
        "signatures": "\n".join(s.pattern for s in entry.signatures),
        "questions": "\n".join(f.q for f in entry.faq),
        "answers": "\n".join(f.a for f in entry.faq),
        "mechanism": entry.mechanism,
    }


def field_terms(texts: dict[str, str]) -> list[dict[str, int]]:
    """Term frequencies of each field, in the order of FIELDS (a field not in ``texts`` is empty)."""
    return [dict(sorted(Counter(terms(texts.get(name, ""))).items())) for name in FIELDS]


def entry_terms(entry: Entry) -> list[dict[str, int]]:
    return field_terms(fields(entry))


def posting(doc: int, field: int, tf: int) -> int:
    """Entry number, field number (< 16) and term frequency (capped at 15) packed in one integer."""
    return doc * 256 + field * 16 + min(tf, 15)


def build_index(docs: Iterable[tuple[str, str, int, list[dict[str, int]]]]) -> dict[str, Any]:
    """The index of ``docs`` (id, symptom, number of entries linking to it, :func:`field_terms`):
    fields with weights, one row per entry, postings per term (see :func:`posting`)."""
    rows = []
    postings: dict[str, list[int]] = {}
    for number, (doc_id, symptom, links, counts) in enumerate(docs):
        rows.append(
            {"id": doc_id, "symptom": symptom, "links": links, "lengths": [sum(c.values()) for c in counts]}
        )
        for field, counter in enumerate(counts):
            for term, tf in counter.items():
                postings.setdefault(term, []).append(posting(number, field, tf))
    return {
        "schema_version": SCHEMA_VERSION,
        "fields": list(FIELDS),
        "weights": list(FIELDS.values()),
        "k1": K1,
        "b": B,
        "link_prior": LINK_PRIOR,
        "stop_words": sorted(STOP_WORDS),
        "docs": rows,
        "postings": dict(sorted(postings.items())),
    }


def search_index(site: Site) -> dict[str, Any]:
    """The index of every entry of ``site``."""
    return build_index(
        (p.id, p.entry.quick_answer.symptom, len(p.backlinks), p.terms()) for p in site.ordered()
    )


def search_json(site: Site) -> str:
    """The index as compact JSON."""
    return json.dumps(search_index(site), sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
