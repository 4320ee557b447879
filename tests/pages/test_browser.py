"""The built site in a real browser: Debian's chromium driven by Playwright."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from ..browser import CHROMIUM_ARGS, CHROMIUM_PATH, static_server
from ..conftest import REPO, TESTS

pytestmark = pytest.mark.browser

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def site(real_site: Path) -> Iterator[tuple[str, Path]]:
    with static_server(real_site) as base:
        yield base, real_site


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM_PATH).exists():
        pytest.fail(f"{CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium)")
    with playwright_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Watch:
    """Records console errors and every request that leaves the local server."""

    def __init__(self, page: object, base: str) -> None:
        self.errors: list[str] = []
        self.foreign: list[str] = []
        host = urlsplit(base).netloc
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: urlsplit(r.url).netloc not in (host, "") and self.foreign.append(r.url))

    def assert_clean(self) -> None:
        assert not self.errors, self.errors
        assert not self.foreign, self.foreign


@pytest.fixture
def page(browser: object, site: tuple[str, Path]) -> Iterator[tuple[object, Watch, str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    watch = Watch(p, site[0])
    yield p, watch, site[0]
    context.close()


OOM_LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."


def first_entry(out: Path) -> str:
    return sorted(p.parent.name for p in (out / "failures").glob("*/index.html"))[0]


def test_home(page: tuple[object, Watch, str], tmp_path: Path) -> None:
    p, watch, base = page
    p.goto(base + "/")
    assert "training" in p.title().lower()
    assert p.locator("a[href='/diagnose/']").count() >= 1
    assert p.locator("#hero-q").is_visible()
    categories = yaml.safe_load((REPO / "content/categories.yaml").read_text())["categories"]
    assert p.locator(".cards .card").count() == len(categories)
    shot = tmp_path / "home.png"
    p.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    p.keyboard.press("/")
    assert p.evaluate("document.activeElement.id") == "site-search"
    watch.assert_clean()


def test_entry_page(page: tuple[object, Watch, str], site: tuple[str, Path], tmp_path: Path) -> None:
    p, watch, base = page
    eid = first_entry(site[1])
    p.goto(f"{base}/failures/{eid}/")
    for section in (
        "quick-answer",
        "mechanism",
        "symptoms",
        "confirm",
        "fix",
        "verify",
        "prevention",
        "references",
    ):
        assert p.locator(f"section#{section}").count() == 1, section
    assert p.locator(".toc a").count() >= 8
    assert p.locator("pre.code .copy").count() >= 1, "copy buttons are added to code blocks"
    assert (
        p.locator("a", has_text="Edit this entry")
        .get_attribute("href")
        .endswith(f"/content/failures/{eid}/entry.yaml")
    )
    shot = tmp_path / "entry.png"
    p.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000
    watch.assert_clean()


def test_index_filters_with_javascript(page: tuple[object, Watch, str], site: tuple[str, Path]) -> None:
    p, watch, base = page
    p.goto(base + "/failures/")
    rows = p.locator("#failure-list .entry-row")
    total = rows.count()
    assert total >= 1 and p.locator("#filters").is_visible()
    p.select_option("select[name=severity]", "low")
    visible = p.locator("#failure-list .entry-row:visible").count()
    expected = p.locator("#failure-list .entry-row[data-severity=low]").count()
    assert visible == expected
    assert "severity=low" in p.url
    p.select_option("select[name=severity]", "")
    category = rows.first.get_attribute("data-category")
    p.select_option("select[name=category]", category)
    assert (
        p.locator("#failure-list .entry-row:visible").count()
        == p.locator(f"#failure-list .entry-row[data-category={category}]").count()
    )
    assert p.locator("#filter-count").inner_text().endswith(f"of {total} shown")
    watch.assert_clean()


def test_index_without_javascript(browser: object, site: tuple[str, Path]) -> None:
    context = browser.new_context(java_script_enabled=False)
    p = context.new_page()
    p.goto(site[0] + "/failures/")
    assert not p.locator("#filters").is_visible()
    rows = p.locator("#failure-list .entry-row")
    assert rows.count() == len(list((site[1] / "failures").glob("*/index.html")))
    assert rows.first.is_visible()
    context.close()


def test_not_found_page(page: tuple[object, Watch, str]) -> None:
    p, _watch, base = page
    response = p.goto(base + "/no/such/page/")
    assert response.status == 404
    assert p.locator("h1").inner_text() == "Page not found"


def test_diagnose_pasted_example_log(page: tuple[object, Watch, str], site: tuple[str, Path]) -> None:
    p, watch, base = page
    eid = "ddp-unused-parameters"
    log = sorted((REPO / "content/failures" / eid / "logs").glob("*.log"))[0]
    p.goto(base + "/diagnose/")
    p.fill("#log-text", log.read_text())
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    first = p.locator("#diagnosis-results [data-entry-id]").first
    assert first.get_attribute("data-entry-id") == eid
    assert first.get_attribute("data-role") == "root-cause"
    assert p.locator("#diagnosis-results mark").count() >= 1
    answer = first.locator(".answer").inner_text()
    assert "Cause" in answer and "Fix" in answer and "Confirm" in answer
    assert "score" not in first.inner_text()
    assert p.locator("#decisive-box").is_visible()
    watch.assert_clean()


def test_diagnose_unknown_failure_offers_its_decisive_line(page: tuple[object, Watch, str]) -> None:
    p, watch, base = page
    p.goto(base + "/diagnose/")
    p.fill("#log-text", (TESTS / "logs/decisive-raised-in-library.log").read_text())
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    assert (
        p.locator("#decisive-text").inner_text()
        == "ValueError: Unsupported rank 0: r must be a positive integer"
    )
    assert p.locator("#decisive-raised").inner_text() == "Raised in peft/tuners/lora/model.py (peft)"
    assert "q=ValueError%3A%20Unsupported%20rank%200" in (p.get_attribute("#search-link", "href") or "")
    propose = p.get_attribute("#propose-link", "href") or ""
    assert "title=New%20failure%3A%20ValueError%3A%20Unsupported%20rank%200" in propose
    assert "ValueError%3A%20Unsupported%20rank%200" in propose.split("body=")[1]
    watch.assert_clean()


def test_diagnose_files_and_nothing_known(page: tuple[object, Watch, str], tmp_path: Path) -> None:
    p, watch, base = page
    healthy = tmp_path / "rank0.log"
    healthy.write_text("epoch 1 step 10 loss 2.31\n<script>alert(1)</script>\nepoch 1 step 20 loss 2.12\n")
    binary = tmp_path / "core.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    p.goto(base + "/diagnose/")
    p.set_input_files("#log-files", [str(healthy), str(binary)])
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    assert p.locator("#diagnosis-results [data-entry-id]").count() == 0
    assert p.locator("#diagnosis-empty").is_visible()
    assert "binary" in p.locator("#diagnosis-notes").inner_text()
    watch.assert_clean()


def test_diagnose_reads_gz_logs_and_shows_the_hang(page: tuple[object, Watch, str], tmp_path: Path) -> None:
    """A .gz log is decompressed as it streams; a hang shows the table and the rank behind."""
    import gzip

    p, watch, base = page
    log = tmp_path / "job.log.gz"
    log.write_bytes(gzip.compress((REPO / "tests/logs/hang-ranks-same-length.log").read_bytes()))
    p.goto(base + "/diagnose/")
    p.set_input_files("#log-files", str(log))
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    assert p.locator("#hang-box").is_visible()
    assert "Rank 0 never reached SeqNum 4123 (ALLREDUCE)" in p.locator("#hang-reason").inner_text()
    assert p.locator("#hang-tables tr.behind th").inner_text() == "0"
    assert p.locator("#diagnosis-summary").inner_text().startswith("Initiating rank: 0.")
    watch.assert_clean()


def test_diagnose_says_so_when_the_worker_cannot_load(page: tuple[object, Watch, str]) -> None:
    """A worker script that fails to load must not leave "Reading..." on screen forever."""
    p, _watch, base = page
    p.route("**/diagnose-worker.*.js", lambda route: route.fulfill(status=404, body="missing"))
    p.goto(base + "/diagnose/")
    p.fill("#log-text", OOM_LINE)
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=error]", state="attached", timeout=15_000)
    status = p.locator("#diagnose-status")
    assert status.is_visible() and "could not start" in status.inner_text()


@pytest.mark.parametrize("where", ["page", "header"])
def test_search_shows_an_error_when_its_index_cannot_load(
    page: tuple[object, Watch, str], where: str
) -> None:
    p, _watch, base = page
    p.route("**/api/search.json", lambda route: route.fulfill(status=500, body="oops"))
    if where == "page":
        p.goto(base + "/search/?q=unused+parameters")
        p.wait_for_function("document.getElementById('search-count').textContent.includes('unavailable')")
        assert "HTTP 500" in p.locator("#search-count").inner_text()
    else:
        p.goto(base + "/")
        p.fill("#site-search", "unused parameters")
        p.wait_for_selector("[data-state=error]", timeout=15_000)
        assert "unavailable" in p.locator("[data-state=error]").inner_text()


def test_search_page_reads_query(page: tuple[object, Watch, str]) -> None:
    p, watch, base = page
    p.goto(base + "/search/?q=unused+parameters")
    p.wait_for_selector("#search-results [data-entry-id]")
    assert (
        p.locator("#search-results [data-entry-id]").first.get_attribute("data-entry-id")
        == "ddp-unused-parameters"
    )
    assert not p.locator("#search-js-note").is_visible()
    watch.assert_clean()


def test_header_search_submits_to_search_page(page: tuple[object, Watch, str]) -> None:
    p, watch, base = page
    p.goto(base + "/")
    p.fill(
        "#site-search",
        "Expected to have finished reduction in the prior iteration before starting a new one.",
    )
    p.press("#site-search", "Enter")
    p.wait_for_selector("#search-results [data-entry-id]")
    first = p.locator("#search-results [data-entry-id]").first
    assert first.get_attribute("data-entry-id") == "ddp-unused-parameters"
    assert "signature" in first.inner_text()
    watch.assert_clean()


def test_dark_mode_and_print(browser: object, site: tuple[str, Path], tmp_path: Path) -> None:
    context = browser.new_context(color_scheme="dark")
    p = context.new_page()
    p.goto(site[0] + "/")
    bg = p.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(15, 18, 23)"
    p.emulate_media(media="print")
    assert not p.locator(".site-header").is_visible()
    context.close()
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_no_request_leaves_the_page_during_analysis(page: tuple[object, Watch, str]) -> None:
    p, watch, base = page
    p.goto(base + "/diagnose/")
    p.wait_for_load_state("networkidle")
    during: list[str] = []
    p.on("request", lambda r: during.append(r.url))
    log = next(iter(sorted(REPO.glob("content/failures/*/logs/*.log"))))
    p.set_input_files("#log-files", str(log))
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    assert during == [], f"requests made while a log was analysed: {during}"
    watch.assert_clean()


def test_cancel_a_large_file(page: tuple[object, Watch, str], tmp_path: Path) -> None:
    p, watch, base = page
    big = tmp_path / "rank0.log"
    with open(big, "wb") as fh:
        block = b"[rank0]: step 1 loss 2.0 lr 3e-4 grad_norm 0.8 tokens/s 48211\n" * 16384
        for _ in range(400):
            fh.write(block)
    p.goto(base + "/diagnose/")
    p.set_input_files("#log-files", str(big))
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnose-status:has-text('MiB of')", timeout=15_000)
    assert p.locator("#diagnose-progress progress").is_visible()
    p.click("#diagnose-cancel")
    assert p.locator("#diagnosis-results").get_attribute("data-state") == "cancelled"
    # The page still works after a cancel.
    log = sorted((REPO / "content/failures/ddp-unused-parameters/logs").glob("*.log"))[0]
    p.set_input_files("#log-files", str(log))
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    assert (
        p.locator("#diagnosis-results [data-entry-id]").first.get_attribute("data-entry-id")
        == "ddp-unused-parameters"
    )
    watch.assert_clean()


def test_log_with_html_renders_as_text(page: tuple[object, Watch, str]) -> None:
    p, watch, base = page
    p.goto(base + "/diagnose/")
    text = (
        "<script>window.pwned = 1</script><img src=x onerror=window.pwned=2>\n"
        + (REPO / "content/failures/ddp-unused-parameters/logs/unused-head.log").read_text()
    )
    p.fill(
        "#log-text", text.replace("RuntimeError:", "RuntimeError: <b>bold</b><script>window.pwned=3</script>")
    )
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    assert p.evaluate("window.pwned") is None
    assert "<script>" in p.locator("#diagnosis-results .evidence").first.inner_text()
    watch.assert_clean()


def test_copy_report_masks_private_details(page: tuple[object, Watch, str]) -> None:
    p, _watch, base = page
    p.context.grant_permissions(["clipboard-read", "clipboard-write"])
    p.goto(base + "/diagnose/")
    line = (
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. at 12:00:00.123 "
        "/home/alice/train.py gpu-node-17.cluster.example.com 10.1.2.3 alice@example.com "
        "hf_abcdefghijklmnopqrstuvwxyzABCD AKIAIOSFODNN7EXAMPLE [2001:db8::1]:29500 C:\\Users\\alice\\x"
    )
    p.fill("#log-text", line)
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=15_000)
    p.click("#copy-report")
    report = p.evaluate("navigator.clipboard.readText()")
    assert "/failures/cuda-oom/" in report and "<hf-token>" in report and "C:\\Users\\<user>" in report
    for secret in ("alice", "10.1.2.3", "gpu-node-17", "example.com", "hf_abc", "AKIAIOSFODNN7", "2001:db8"):
        assert secret not in report, secret
    assert "12:00:00.123" in report, "times are not addresses"


def test_no_page_is_wider_than_a_phone(browser: object, site: tuple[str, Path]) -> None:
    """At 420 px, no entry or index page scrolls sideways (long identifiers wrap, tables fit)."""
    base, out = site
    context = browser.new_context(viewport={"width": 420, "height": 800}, java_script_enabled=False)
    p = context.new_page()
    urls = ["/", "/failures/", "/diagnose/", "/search/"]
    urls += [f"/failures/{d.parent.name}/" for d in sorted((out / "failures").glob("*/index.html"))]
    wide = {}
    for url in urls:
        p.goto(base + url)
        width = p.evaluate("document.documentElement.scrollWidth")
        if width > 420:
            wide[url] = width
    context.close()
    assert not wide, f"pages wider than the 420 px screen: {wide}"


def test_large_file_read_by_helper_worker_matches_terminal(
    page: tuple[object, Watch, str], site: tuple[str, Path], tmp_path: Path
) -> None:
    """A file large enough to be read by the helper worker gives the terminal matcher's findings."""
    from denpex_site.matcher.bundle import load_bundle
    from denpex_site.matcher.diagnosis import Diagnosis
    from denpex_site.matcher.engine import Engine

    p, watch, base = page
    example = sorted((REPO / "content/failures/nccl-watchdog-timeout/logs").glob("*.log"))[0].read_bytes()
    big = tmp_path / "rank3.log"
    filler = b"[rank3]: step 7 loss 2.0 lr 3e-4 grad_norm 0.8 tokens/s 48211\n" * 100_000
    with open(big, "wb") as fh:
        for i in range(8):
            fh.write(filler)
            if i == 3:
                fh.write(example)
        fh.write(example)
    assert big.stat().st_size > 40 * 1024 * 1024
    p.goto(base + "/diagnose/")
    p.set_input_files("#log-files", str(big))
    p.click("#diagnose-form button[type=submit]")
    p.wait_for_selector("#diagnosis-results[data-state=done]", timeout=120_000)
    found = p.locator("#diagnosis-results [data-entry-id]")
    browser_ids = [found.nth(i).get_attribute("data-entry-id") for i in range(found.count())]
    diagnosis = Diagnosis(Engine(load_bundle(site[1] / "api/signatures.json")))
    diagnosis.add_file(big)
    expected = diagnosis.result()
    assert browser_ids == [f["id"] for f in expected["findings"]]
    first = p.locator("#diagnosis-results [data-entry-id]").first.inner_text()
    assert f"rank3.log:{expected['findings'][0]['first']['line']}" in first
    watch.assert_clean()
