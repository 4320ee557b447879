"""Search quality and behaviour, in Chromium against the built site (with its Pagefind index).

tests/search_queries.yaml lists what users type or paste, with the entry each should return
first. Every pasted error line must return its entry first (signature search is exact). For words
and paraphrases the test guards the level reached so far (FLOOR); the goal, every query first,
is measured by bench/search_quality.py and recorded in docs/benchmarks.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
import yaml

from .test_browser import Watch, browser, site  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

QUERIES = yaml.safe_load((Path(__file__).parent / "search_queries.yaml").read_text())["queries"]


@pytest.fixture(scope="module")
def search_page(browser: object, site: tuple[str, Path]) -> Iterator[object]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(site[0] + "/search/")
    yield page
    context.close()


def top_ids(page: object, base: str, query: str) -> list[str]:
    page.goto(f"{base}/search/?q={quote(query)}")
    page.wait_for_selector("#search-count:not(:empty)", timeout=15_000)
    return page.locator("#search-results [data-entry-id]").evaluate_all(
        "els => els.map(e => e.dataset.entryId)"
    )


def test_query_file_is_sound(site: tuple[str, Path]) -> None:
    assert len(QUERIES) >= 60
    kinds = {q["kind"] for q in QUERIES}
    assert kinds == {"words", "paraphrase", "error-line"}, kinds
    ids = {p.parent.name for p in (site[1] / "failures").glob("*/index.html")}
    assert {q["expect"] for q in QUERIES} <= ids


FLOOR = {"words": 0.9, "paraphrase": 0.6}
"""Share of queries of each kind that must return their entry first (regression guard)."""


@pytest.mark.parametrize(
    "case", [q for q in QUERIES if q["kind"] == "error-line"], ids=lambda q: q["query"][:60]
)
def test_pasted_error_line_returns_its_entry_first(
    search_page: object, site: tuple[str, Path], case: dict
) -> None:
    ids = top_ids(search_page, site[0], case["query"])
    assert ids[:1] == [case["expect"]], ids[:5]


@pytest.mark.parametrize("kind", sorted(FLOOR))
def test_words_and_paraphrases_keep_their_level(
    search_page: object, site: tuple[str, Path], kind: str
) -> None:
    cases = [q for q in QUERIES if q["kind"] == kind]
    misses = []
    for case in cases:
        ids = top_ids(search_page, site[0], case["query"])
        if ids[:1] != [case["expect"]]:
            misses.append(f"{case['query'][:60]!r}: expected {case['expect']}, got {ids[:3]}")
    share = 1 - len(misses) / len(cases)
    assert share >= FLOOR[kind], f"{kind}: {share:.0%} first; misses:\n" + "\n".join(misses)


def test_error_line_hits_are_marked_and_highlighted(search_page: object, site: tuple[str, Path]) -> None:
    case = next(q for q in QUERIES if q["kind"] == "error-line")
    top_ids(search_page, site[0], case["query"])
    first = search_page.locator("#search-results [data-entry-id]").first
    assert "signature-hit" in (first.get_attribute("class") or "")
    assert first.locator("mark").count() == 1


def test_header_search_keyboard(browser: object, site: tuple[str, Path]) -> None:
    context = browser.new_context()
    p = context.new_page()
    watch = Watch(p, site[0])
    p.goto(site[0] + "/failures/")
    p.keyboard.press("/")
    assert p.evaluate("document.activeElement.id") == "site-search"
    p.keyboard.type("unused parameters", delay=20)
    p.wait_for_selector("#search-popup[data-state=done] [role=option]")
    box = p.locator("#site-search")
    assert box.get_attribute("aria-expanded") == "true"
    p.keyboard.press("ArrowDown")
    active = box.get_attribute("aria-activedescendant")
    assert active and p.locator(f"#{active}").get_attribute("aria-selected") == "true"
    target = p.locator(f"#{active}").get_attribute("data-entry-id")
    p.keyboard.press("Enter")
    p.wait_for_url(f"**/failures/{target}/")
    p.goto(site[0] + "/")
    p.keyboard.press("/")
    p.keyboard.type("nccl", delay=20)
    p.wait_for_selector("#search-popup [role=option]")
    p.keyboard.press("Escape")
    assert box.get_attribute("aria-expanded") == "false" and p.locator("#search-popup").is_hidden()
    watch.assert_clean()
    context.close()


def test_search_page_without_javascript(browser: object, site: tuple[str, Path]) -> None:
    context = browser.new_context(java_script_enabled=False)
    p = context.new_page()
    p.goto(site[0] + "/")
    p.fill("#site-search", "nccl timeout")
    p.press("#site-search", "Enter")
    p.wait_for_url("**/search/?q=nccl+timeout")
    assert p.locator("#search-js-note").is_visible()
    assert p.locator("#search-js-note a[href='/failures/']").count() == 1
    context.close()


def test_search_adds_little_transfer_until_typing(browser: object, site: tuple[str, Path]) -> None:
    context = browser.new_context()
    p = context.new_page()
    sizes: dict[str, int] = {}
    p.on("requestfinished", lambda r: sizes.__setitem__(r.url, r.sizes()["responseBodySize"]))
    p.goto(site[0] + "/failures/ddp-unused-parameters/")
    p.wait_for_load_state("networkidle")
    assert not [u for u in sizes if "/pagefind/" in u or "signatures.json" in u], (
        "search loaded before typing"
    )
    before = sum(sizes.values())
    p.click("#site-search")
    p.keyboard.type("x")
    p.wait_for_selector("#search-popup:not([hidden])")
    search_bytes = sum(v for u, v in sizes.items() if "/pagefind/" in u or "search-core" in u)
    assert search_bytes > 0
    site_js = sum(v for u, v in sizes.items() if "/assets/js/site." in u)
    assert site_js < 100_000, "search code loaded with every page must stay under 100 KB"
    assert before < 400_000
    context.close()


def test_opensearch_description(site: tuple[str, Path]) -> None:
    text = (site[1] / "opensearch.xml").read_text()
    assert "/search/?q={searchTerms}" in text
    home = (site[1] / "index.html").read_text()
    assert 'rel="search" type="application/opensearchdescription+xml"' in home
