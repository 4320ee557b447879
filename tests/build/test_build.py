"""Full builds of the fixture project and of the real content: links, HTML, data files, determinism."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import xml.dom.minidom
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from markupsafe import escape

from denpex_site.build.builder import Builder, manifest
from denpex_site.build.pagefind import index_site
from denpex_site.content.model import SCHEMA_VERSION
from denpex_site.errors import InvalidContent
from denpex_site.matcher.bundle import BUNDLE_VERSION
from denpex_site.matcher.dialect import compile_pattern
from denpex_site.site.model import Site

from ..conftest import REPO
from ..htmlcheck import check_html

# Read before any test builds the site (a build in the repository refreshes this file).


def resolve(out: Path, page: Path, href: str) -> tuple[Path, str] | None:
    """The file an internal link points to (and its fragment); None for external links."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None
    if not parts.path:
        return page, parts.fragment
    target = out / parts.path.lstrip("/") if parts.path.startswith("/") else page.parent / parts.path
    if parts.path.endswith("/"):
        target = target / "index.html"
    return target.resolve(), parts.fragment


def assert_site_sound(out: Path) -> None:
    pages = sorted(out.rglob("*.html"))
    assert pages, "no pages were written"
    ids: dict[Path, set[str]] = {}
    links: dict[Path, list[str]] = {}
    for page in pages:
        parsed = check_html(page.read_text(encoding="utf-8"))
        assert not parsed.errors, f"{page.relative_to(out)}: {parsed.errors[:5]}"
        ids[page.resolve()] = set(parsed.ids)
        links[page] = parsed.links
    broken = []
    for page, hrefs in links.items():
        for href in hrefs:
            found = resolve(out, page, href)
            if found is None:
                assert href.startswith("https://"), f"{page.relative_to(out)}: non-https external link {href}"
                continue
            target, fragment = found
            if not target.is_file():
                broken.append(f"{page.relative_to(out)} -> {href}")
            elif fragment and target.suffix == ".html" and fragment not in ids[target]:
                broken.append(f"{page.relative_to(out)} -> {href} (no anchor)")
    assert not broken, broken[:20]
    for name in ("sitemap.xml", "feed.xml"):
        xml.dom.minidom.parse(str(out / name))
    assert (out / "robots.txt").read_text().startswith("User-agent: *")


def test_fixture_project_builds_soundly(project: Path) -> None:
    site = Builder(project).build()
    out = project / "_site"
    assert_site_sound(out)
    entry_html = (out / "failures/demo-oom/index.html").read_text()
    for section in (
        "quick-answer",
        "mechanism",
        "symptoms",
        "confirm",
        "signatures",
        "examples",
        "fix",
        "verify",
        "prevention",
        "fingerprint",
        "faq",
        "references",
    ):
        assert f'id="{section}"' in entry_html, section
    assert '"@type": "TechArticle"' in entry_html and '"@type": "FAQPage"' in entry_html
    assert '<link rel="canonical" href="https://denpex-site.netlify.app/failures/demo-oom/">' in entry_html
    assert "/edit/main/content/failures/demo-oom/entry.yaml" in entry_html
    assert 'class="code"' in entry_html and '<span class="k">for</span>' in entry_html, "code is highlighted"
    assert len(site.pages) == 1


def test_assets_are_fingerprinted(project: Path) -> None:
    Builder(project).build()
    assets = [
        p.relative_to(project / "_site").as_posix()
        for p in (project / "_site/assets").rglob("*")
        if p.is_file()
    ]
    assert assets and all(len(p.rsplit(".", 2)[1]) == 10 for p in assets), assets
    home = (project / "_site/index.html").read_text()
    assert "/assets/css/site." in home and '<script type="module" src="/assets/js/site.' in home


def test_markdown_raw_html_is_escaped(project: Path) -> None:
    entry = project / "content/failures/demo-oom/entry.yaml"
    entry.write_text(
        entry.read_text().replace("Reserved but unallocated", "<script>alert(1)</script> Reserved")
    )
    Builder(project).build()
    html = (project / "_site/failures/demo-oom/index.html").read_text()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_json_api(project: Path) -> None:
    Builder(project).build()
    entries = json.loads((project / "_site/api/entries.json").read_text())
    assert entries["schema_version"] == SCHEMA_VERSION
    assert entries["entries"][0]["id"] == "demo-oom"
    assert entries["entries"][0]["url"] == "https://denpex-site.netlify.app/failures/demo-oom/"
    bundle = json.loads((project / "_site/api/signatures.json").read_text())
    assert bundle["schema_version"] == BUNDLE_VERSION
    sig = bundle["signatures"][0]
    assert sig["entry"] == "demo-oom" and sig["role"] == "root-cause"
    assert sig["regex"] == compile_pattern(sig["pattern"]).regex
    assert bundle["normalize"]["rank_prefixes"]


def ours(out: Path) -> dict[str, str]:
    """Hashes of every file a build writes, Pagefind's index included."""
    return manifest(out)


def test_build_is_deterministic(project: Path, tmp_path: Path) -> None:
    Builder(project, tmp_path / "a", jobs=1).build()
    Builder(project, tmp_path / "b", jobs=2).build()
    assert ours(tmp_path / "a") == ours(tmp_path / "b")
    assert (tmp_path / "a/pagefind/pagefind.js").is_file()


def indexed_text(out: Path, url: str) -> str:
    """The text Pagefind indexed for the page at ``url`` (from its fragment: gzip, a marker, JSON)."""
    for fragment in (out / "pagefind/fragment").glob("*.pf_fragment"):
        raw = gzip.decompress(fragment.read_bytes())
        data = json.loads(raw[raw.index(b"{") :])
        if data["url"] == url:
            return str(data["content"])
    raise AssertionError(f"no Pagefind fragment for {url}")


def test_full_text_index_holds_only_the_fields_that_identify_a_failure(project: Path) -> None:
    """Title, quick answer, symptoms, signatures and FAQ are indexed; the rest of the page is not."""
    Builder(project).build()
    text = indexed_text(project / "_site", "/failures/demo-oom/")
    for shown in (
        "CUDA out of memory during the forward pass",  # title
        "Halve the micro-batch",  # quick answer
        "Peak memory is reached in the first forward",  # symptoms
        "Tried to allocate {num} {word}",  # signature
        "between two samples of nvidia-smi",  # FAQ
    ):
        assert shown in text, shown
    for left_out in (
        "caching allocator could not find a free block",  # mechanism
        "Tried to allocate 2.00 GiB",  # observation
        "every rank that runs out",  # observation's caption
        "test fixture text",  # a signature's source
        "memory_summary",  # confirm
        "Accumulate gradients over two half batches",  # fix
        "stays below the device total",  # verify
    ):
        assert left_out not in text, left_out


def test_incremental_rebuild_updates_only_affected_pages(project: Path) -> None:
    builder = Builder(project)
    builder.build()
    out = project / "_site"
    before = ours(out)
    entry = project / "content/failures/demo-oom/entry.yaml"
    entry.write_text(entry.read_text().replace("Reserved but unallocated memory", "Reserved but idle memory"))
    builder.rebuild_entries({"demo-oom"})
    builder.flush_data()  # what `serve` does in the background after an incremental rebuild
    index_site(out)
    after = ours(out)
    changed = {k for k in after if before.get(k) != after[k]}
    assert "failures/demo-oom/index.html" in changed
    assert "categories/memory/index.html" not in changed  # the list shows only the title and symptom
    assert "Reserved but idle memory" in (out / "failures/demo-oom/index.html").read_text()
    fresh = project.parent / "fresh"
    Builder(project, fresh).build()
    assert ours(fresh) == after, "an incremental rebuild must equal a full build"


def test_incremental_rebuild_checks_links_into_the_edited_entry(project: Path) -> None:
    """An unchanged entry is not re-checked on a rebuild, unless it links into the edited one."""
    data = yaml.safe_load((project / "content/failures/demo-oom/entry.yaml").read_text())
    data.update(id="demo-linker", title="Test fixture: an entry that links to another's section", silent=True)
    data.update(signatures=[], logs=[], related=[])
    data["mechanism"] += "\nSee [fragmentation](/failures/demo-oom/#fragmentation).\n"
    linker = project / "content/failures/demo-linker"
    linker.mkdir()
    (linker / "entry.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    builder = Builder(project)
    builder.build()
    entry = project / "content/failures/demo-oom/entry.yaml"
    entry.write_text(entry.read_text().replace("## Fragmentation", "## Scattered blocks"))
    with pytest.raises(InvalidContent) as failed:
        builder.rebuild_entries({"demo-oom"})
    (problem,) = failed.value.problems.items
    assert problem.path == "content/failures/demo-linker/entry.yaml", problem
    assert "fragmentation" in problem.message


def test_incremental_rebuild_keeps_groups_and_backlinks_right(tmp_path: Path) -> None:
    """A rebuild keeps the previous groups and backlinks while an edit leaves every entry's
    taxonomies and relations alone, and recomputes them when it does not: both equal a full build."""

    root = tmp_path / "project"
    for name in ("templates", "static", "content"):
        shutil.copytree(REPO / name, root / name)
    builder = Builder(root, index=False)
    builder.build()
    target = "ddp-unused-parameters"
    path = root / "content/failures" / target / "entry.yaml"
    data = yaml.safe_load(path.read_text())
    related = [r["id"] for r in data["related"]]
    edits = [
        lambda d: d.update(mechanism=d["mechanism"] + "\nOne more sentence.\n"),
        lambda d: d.update(related=d["related"][1:]),
        lambda d: d.update(tags=[*d["tags"], "extra-tag"]),
    ]
    for edit in edits:
        edit(data)
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        builder.rebuild_entries({target})
        full = Builder(root, tmp_path / "full", index=False).build()
        site = builder.site
        assert site is not None
        assert {e: p.backlinks for e, p in site.pages.items()} == {
            e: p.backlinks for e, p in full.pages.items()
        }
        assert (site.by_category, site.by_system, site.by_tag) == (
            full.by_category,
            full.by_system,
            full.by_tag,
        )
    assert target not in full.pages[related[0]].backlinks  # the second edit dropped that relation
    assert full.by_tag["extra-tag"] == [target]


def test_real_content_builds_soundly(real_site: Path, real_content: Site) -> None:
    if not any((REPO / "content/failures").iterdir()):
        pytest.fail("content/failures/ holds no entry")
    out, site = real_site, real_content
    assert_site_sound(out)
    assert len(site.pages) >= 4
    for page in site.pages.values():
        html = (out / "failures" / page.id / "index.html").read_text()
        for log in page.entry.logs:
            assert (
                "captured from a real run" if log.kind.value == "captured" else "assembled from verified"
            ) in html


def test_real_content_is_deterministic(real_site: Path, tmp_path: Path) -> None:
    Builder(REPO, tmp_path / "again", jobs=1).build()
    assert ours(tmp_path / "again") == ours(real_site)


def test_schema_file_is_current(tmp_path: Path) -> None:
    from denpex_site.cli import main

    main(["--root", str(tmp_path), "schema"])
    committed = (REPO / "schema/entry.schema.json").read_text()
    assert (tmp_path / "schema/entry.schema.json").read_text() == committed, "run: python build.py schema"
    for entry in (REPO / "content/failures").glob("*/entry.yaml"):
        assert entry.read_text().startswith(
            "# yaml-language-server: $schema=../../../schema/entry.schema.json"
        )


def test_entry_with_heading_in_markdown_gets_unique_anchor(project: Path) -> None:
    Builder(project).build()
    html = (project / "_site/failures/demo-oom/index.html").read_text()
    assert 'id="fragmentation"' in html


def test_no_inline_scripts(project: Path) -> None:
    """The Content-Security-Policy forbids inline scripts: only JSON-LD data blocks are inline."""
    import re

    Builder(project).build()
    for page in (project / "_site").rglob("*.html"):
        for m in re.finditer(r"<script([^>]*)>(.*?)</script>", page.read_text(), re.S):
            attrs, body = m.groups()
            assert "src=" in attrs or 'type="application/ld+json"' in attrs, f"{page}: inline script"
            assert "src=" not in attrs or not body.strip()
    shutil.rmtree(project / "_site")


def _markdown_it(text: str, inline: bool) -> str:
    from denpex_site.render import markdown as md

    env: dict[str, object] = {}
    tokens = md._MD.parseInline(text, env) if inline else md._MD.parse(text, env)
    return md._MD.renderer.render(tokens, md._MD.options, env)


def test_plain_text_fast_path_matches_markdown_it(real_content: Site) -> None:
    """Plain lines (words and `code` spans) skip markdown-it: the output must be what markdown-it
    gives, for every field of the real content and for random text full of Markdown's specials."""
    import random

    from denpex_site.render import markdown as md
    from denpex_site.site.fields import markdown_fields

    samples = [
        "Rank 0 waits in the all-reduce; rank 1 has left the loop.",
        "Set `find_unused_parameters=True` in `DistributedDataParallel`.",
        "find_unused_parameters costs one extra traversal of the graph.",
        "Set NCCL DEBUG to INFO and compare SeqNum across ranks.",
        "  leading and trailing spaces  ",
        "3 ranks vs 4 ranks (a different world size).",
        "`` `a` ``",
    ]
    for text in samples[:-1]:
        assert md.plain(text) is not None, text
    site = real_content
    fields = [field for page in site.pages.values() for field in markdown_fields(page.entry).values()]
    assert sum(md.plain(text, inline) is not None for text, inline in fields) > len(fields) / 2
    pieces = [*"_`-+>=&<*[]()#!|~\\", "a", "x_y", " `b` ", "``", " ", "    ", "\t", "\n", "1.", "1)"]
    pieces += ["&amp;", "\u00a0", "http://x", "\r"]
    rnd = random.Random(0)
    fuzz = ["".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 8))) for _ in range(20000)]
    for text, inline in [*fields, *((t, i) for t in samples + fuzz for i in (True, False))]:
        html = md.plain(text, inline)
        if html is not None:
            assert html == _markdown_it(text, inline), (text, inline)


def test_example_logs_mark_the_lines_signatures_match(project: Path) -> None:
    Builder(project).build()
    page = (project / "_site/failures/demo-oom/index.html").read_text()
    log = (project / "content/failures/demo-oom/logs/oom.log").read_text().splitlines()
    marked = re.findall(r'<mark class="hit">(.*?)</mark>', page)
    expected = [str(escape(line)) for line in log if "CUDA out of memory. Tried to allocate" in line]
    assert marked and marked == expected


def test_highlighting_spans_only_tokens_that_look_different(real_content: Site) -> None:
    """A token gets a span exactly when one colour scheme shows it unlike plain text; the text
    of the block is the code, unchanged, for every code example of the real content."""
    import html as htmllib

    from pygments.formatters import HtmlFormatter
    from pygments.token import Text

    from denpex_site.render import markdown as md

    site = real_content
    examples = [(x.code, x.language) for p in site.pages.values() for x in p.entry.fix.examples]
    assert len({language for _, language in examples}) >= 4
    css = md.pygments_css()
    styled = set(re.findall(r"^\.code \.([A-Za-z0-9]+) \{", css, re.M))
    classes = HtmlFormatter(nowrap=True)
    shown = {"k", "kn", "s2", "c1", "mi"}  # must keep their colours
    for code, language in examples:
        out = md.highlight(code, language)
        body = re.search(r"<code[^>]*>(.*)</code>", out, re.S).group(1)  # type: ignore[union-attr]
        assert htmllib.unescape(re.sub(r"<[^>]+>", "", body)) == code.rstrip("\n") + "\n"
        kept = set(re.findall(r'<span class="([^"]+)">', body))
        assert kept <= styled, (language, kept - styled)
        for ttype, value in md.lexer(language).get_tokens(code):
            token_class = classes._get_css_class(ttype)
            visible = any(
                s.styles_token(ttype) and s.style_for_token(ttype) != s.style_for_token(Text)
                for s in md._STYLES
            )
            if visible and not value.isspace():
                assert token_class in kept, (language, ttype, value)
        shown -= kept
    assert not shown, f"never highlighted: {shown}"
    python = md.highlight("import os\nx = os.getenv('A')  # note\n", "python")
    assert '<span class="kn">import</span>' in python and '<span class="c1"># note</span>' in python
    assert '<span class="n">' not in python and '<span class="p">' not in python and 'class="w"' not in python
    assert re.search(r"@media \(prefers-color-scheme: dark\) \{\n\.code code \{ color: #[0-9a-f]{6} \}", css)
