"""The word index (denpex_site/render/searchindex.py) and its ranking in the browser (static/js/search-rank.js).

The browser cuts a query into terms with its own copy of the Python rules: these tests run both
over every searchable text of the real entries and every query of tests/search_queries.yaml and
require the same terms, then check the ranking on small hand-made indexes under Node.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import yaml

from denpex_site.content.load import load_content
from denpex_site.errors import Problems
from denpex_site.render.searchindex import STOP_WORDS, build_index, field_terms, fields, stem, terms

from ..conftest import REPO, TESTS

ROOT = REPO
SCRIPT = TESTS / "js" / "search-rank.mjs"


def node(payload: dict) -> object:
    if shutil.which("node") is None:
        pytest.fail("node is required for the JavaScript tests")
    done = subprocess.run(
        ["node", str(SCRIPT)], input=json.dumps(payload), capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_stemmer() -> None:
    cases = {
        "hangs": "hang",
        "processes": "process",
        "parameters": "parameter",
        "running": "run",
        "stopped": "stop",
        "killed": "kill",
        "initialises": "initializ",
        "initialized": "initializ",
        "address": "address",
        "analysis": "analysis",
        "nccl": "nccl",
        "x86": "x86",
    }
    assert {w: stem(w) for w in cases} == cases


def test_identifiers_are_indexed_whole_and_in_parts() -> None:
    found = terms("torch.distributed.elastic.multiprocessing.errors.ChildFailedError")
    assert {"child", "fail", "error", "elastic", "multiprocess"} <= set(found)
    found = terms("set find_unused_parameters=True or CUDA_VISIBLE_DEVICES")
    assert {"find_unused_parameters", "find", "unus", "parameter", "cuda_visible_devices", "visibl"} <= set(
        found
    )
    assert {"nccl", "system", "error"} <= set(terms("ncclSystemError"))
    assert terms("It doesn't see [the docs](https://example.org/a-b)") == ["see", "doc"]


def test_browser_cuts_text_into_the_same_terms() -> None:
    texts = []
    for bundle in load_content(ROOT / "content", Problems(ROOT)).bundles:
        texts += fields(bundle.entry).values()
    queries = yaml.safe_load((TESTS / "search_queries.yaml").read_text())["queries"]
    texts += [q["query"] for q in queries]
    texts += [
        "Über naïve ÇA",
        "a\u2019b don\u2019t",
        "__init__ _private x_1_y",
        "9.0.1 v2 cuda:0 10.4.1.27<47719>",
    ]
    assert len(texts) > 1000
    assert node({"terms": texts, "stop": sorted(STOP_WORDS)}) == [terms(t) for t in texts]


def index_of(docs: list[tuple[str, dict[str, str], int]]) -> dict:
    """A search index of hand-made entries: (id, {field: text}, entries linking to it)."""
    return build_index((doc_id, "", links, field_terms(texts)) for doc_id, texts, links in docs)


def test_ranking_weighs_fields_words_and_links() -> None:
    filler = "the job stops and prints an error about the process group " * 3
    index = index_of(
        [
            ("deep", {"symptoms": "The watchdog timeout fires", "symptom": filler}, 0),
            ("buried", {"mechanism": "an nccl watchdog timeout " + filler, "symptom": filler}, 0),
            ("titled", {"title": "NCCL watchdog timeout", "symptom": filler}, 0),
            ("partial", {"title": "Socket timeout", "symptom": filler}, 0),
            ("unrelated", {"title": "CUDA out of memory", "symptom": filler}, 0),
            ("twin-a", {"title": "Loader hangs", "symptom": filler}, 0),
            ("twin-b", {"title": "Loader hangs", "symptom": filler}, 5),
        ]
    )
    # All three words in the title, two in the symptoms, one in the title, all three in the mechanism.
    assert node({"index": index, "query": "nccl watchdog timeout"})[:4] == [
        "titled",
        "deep",
        "partial",
        "buried",
    ]
    assert node({"index": index, "query": "nccl watchdog timeout", "exclude": "titled"})[0] == "deep"
    # Equal text: the entry more others link to comes first.
    assert node({"index": index, "query": "loader hanging"})[:2] == ["twin-b", "twin-a"]
    assert node({"index": index, "query": "nothing like this"}) == []
