"""Build orchestration: gather and check everything, then write the site atomically.

A full build renders into a fresh temporary folder beside the output and swaps it in only when
every page was written; any content problem raises :class:`BuildFailed` before anything is
written, so the previous site stays intact. Pages are rendered on all cores when there are many.
The :class:`Builder` keeps the last Site in memory so that ``serve`` can re-render only the pages
an edited entry affects.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from jinja2 import Environment

from . import render
from .bundle import signatures_json
from .config import SiteConfig, load_config
from .errors import BuildFailed, ContentError, Problems
from .forked import can_fork
from .load import Content, load_bundle, load_content
from .logcheck import check_logs, healthy_logs
from .markdown import pygments_css
from .searchindex import search_json
from .site import Deriver, Site, build_site

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""The repository this package lives in (its own content is what the package ships)."""

PARALLEL_THRESHOLD = 150
"""Below this many pages, forking workers costs more than it saves."""


@dataclass
class Paths:
    root: Path

    @property
    def content(self) -> Path:
        return self.root / "content"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def static(self) -> Path:
        return self.root / "static"


@dataclass
class Assets:
    """Static files renamed with a content hash: logical name -> (output path, bytes)."""

    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)

    def url(self, name: str) -> str:
        return "/" + self.files[name][0]


_JS_IMPORT = re.compile(r"""(["'])\./([A-Za-z0-9_.-]+\.js)\1""")


def collect_assets(static: Path) -> Assets:
    """Fingerprint every file under static/; JS imports of ./x.js are rewritten to hashed names."""
    raw: dict[str, bytes] = {}
    for path in sorted(p for p in static.rglob("*") if p.is_file()):
        raw[path.relative_to(static).as_posix()] = path.read_bytes()
    if "css/site.css" in raw:
        raw["css/site.css"] += b"\n/* code highlighting */\n" + pygments_css().encode()
    assets = Assets()

    def add(name: str, stack: tuple[str, ...] = ()) -> str:
        if name in assets.files:
            return assets.files[name][0]
        if name in stack:
            raise ValueError(f"circular import between static files: {' -> '.join((*stack, name))}")
        data = raw[name]
        if name.endswith(".js"):
            folder = name.rsplit("/", 1)[0] + "/" if "/" in name else ""

            def rewrite(m: re.Match[str]) -> str:
                target = folder + m.group(2)
                if target not in raw:
                    return m.group(0)
                hashed = add(target, (*stack, name))
                return f"{m.group(1)}./{hashed.rsplit('/', 1)[-1]}{m.group(1)}"

            data = _JS_IMPORT.sub(rewrite, data.decode()).encode()
        digest = hashlib.sha256(data).hexdigest()[:10]
        stem, dot, ext = name.rpartition(".")
        out = f"assets/{stem}.{digest}.{ext}" if dot else f"assets/{name}.{digest}"
        assets.files[name] = (out, data)
        return out

    for name in raw:
        add(name)
    return assets


@contextlib.contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a build. A build makes hundreds of thousands of
    objects that live as long as the site (entries, their YAML positions, the rendered HTML); the
    collector would walk them again and again and free almost nothing (at 1,000 entries it took
    0.8 s of the 2 s load). Reference counting still frees everything else. What the build made is
    frozen afterwards, so that the first collection after it (in ``serve``, during the next edit's
    rebuild) does not walk it either; a later build lets the collector see it again first."""
    enabled = gc.isenabled()
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()  # what an earlier build left behind
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def link(paths: Paths, problems: Problems, jobs: int) -> tuple[SiteConfig | None, Content, Site]:
    """Load, validate and link everything but the example logs; add what is wrong to ``problems``."""
    config = load_config(paths.content, problems)
    deriver = Deriver(jobs)  # renders each entry's Markdown while the next ones load
    try:
        content = load_content(paths.content, problems, on_bundle=deriver.add)
        return config, content, build_site(content, problems, deriver=deriver)
    finally:
        deriver.close()


def checked_logs(site: Site, root: Path) -> list[ContentError]:
    """The problems the example logs and the healthy logs show."""
    problems = Problems(root)
    check_logs(site, problems, healthy_logs(root))
    return problems.items


@cycle_collection_paused()
def gather(paths: Paths, jobs: int | None = None) -> tuple[SiteConfig, Content, Site]:
    """Load, validate and link everything; raise BuildFailed listing every problem."""
    problems = Problems(paths.root)
    config, content, site = link(paths, problems, jobs or os.cpu_count() or 1)
    problems.items += checked_logs(site, paths.root)
    if problems or config is None:
        raise BuildFailed(problems)
    return config, content, site


T = TypeVar("T")

# Worker state for forked rendering: set before the pool starts, inherited by the children.
_WORK: tuple[Environment, list[render.Page], Path, Callable[[], Any] | None] | None = None


def _render_range(bounds: tuple[int, int]) -> int:
    assert _WORK is not None
    env, page_list, out, _ = _WORK
    for page in page_list[bounds[0] : bounds[1]]:
        write_page(env, page, out, atomic=False)
    return bounds[1] - bounds[0]


def _run_beside() -> Any:
    assert _WORK is not None and _WORK[3] is not None
    return _WORK[3]()


def write_file(path: Path, data: bytes | str, *, atomic: bool = True) -> None:
    """Write through a temporary name and rename, so a reader never sees half a file. In a folder
    nobody reads yet (a full build's), ``atomic=False`` writes in place and saves the rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    if not atomic:
        path.write_bytes(raw)
        return
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}-{threading.get_ident()}")
    tmp.write_bytes(raw)
    os.replace(tmp, path)


def write_page(env: Environment, page: render.Page, out: Path, *, atomic: bool = True) -> None:
    html = env.get_template(page.template).render(**page.context, page_url=page.url)
    write_file(out / page.path, html, atomic=atomic)


def render_all(
    env: Environment,
    page_list: list[render.Page],
    out: Path,
    jobs: int,
    then: Sequence[render.Page] = (),
    between: Callable[[], object] | None = None,
    beside: Callable[[], T] | None = None,
) -> T | None:
    """Write ``page_list`` into ``out``, a folder nobody reads yet, then write ``then`` while this
    process calls ``between`` and a worker runs ``beside`` (each if given); on all cores when there
    are many pages. Returns what ``beside`` returned."""
    global _WORK
    everything = [*page_list, *then]
    if jobs <= 1 or len(everything) < PARALLEL_THRESHOLD or not can_fork():
        for page in page_list:
            write_page(env, page, out, atomic=False)
        if between is not None:
            between()
        for page in then:
            write_page(env, page, out, atomic=False)
        return beside() if beside is not None else None
    _WORK = (env, everything, out, beside)
    for name in sorted({page.template for page in everything}):
        env.get_template(name)  # compiled once here, not once per worker
    try:
        chunk = max(1, len(everything) // (jobs * 16))
        first = [(i, min(i + chunk, len(page_list))) for i in range(0, len(page_list), chunk)]
        second = [(i, min(i + chunk, len(everything))) for i in range(len(page_list), len(everything), chunk)]
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for _ in pool.imap_unordered(_render_range, first):
                pass
            # ``beside`` first: it is the longest single task.
            aside = pool.apply_async(_run_beside) if beside is not None else None
            pages = pool.map_async(_render_range, second)
            if between is not None:
                between()
            pages.get()
            return aside.get() if aside is not None else None
    finally:
        _WORK = None


class Builder:
    """Builds the site in ``out``; remembers the last build for incremental rebuilds."""

    def __init__(
        self, root: Path, out: Path | None = None, jobs: int | None = None, index: bool = True
    ) -> None:
        self.paths = Paths(root.resolve())
        self.out = (out or self.paths.root / "_site").resolve()
        self.jobs = jobs or os.cpu_count() or 1
        self.index = index
        self._stale_data = False
        self._writing = threading.Lock()
        """Held while the site is written in place (a rebuild, or the API documents in the background)."""
        self.config: SiteConfig | None = None
        self.content: Content | None = None
        self.site: Site | None = None
        self.assets: Assets | None = None
        self.env: Environment | None = None

    def _environment(self, config: SiteConfig) -> tuple[Assets, Environment]:
        assets = collect_assets(self.paths.static)
        env = render.make_env(self.paths.templates, config, assets.url)
        return assets, env

    @cycle_collection_paused()
    def build(self) -> Site:
        """A full build into a temporary folder, swapped in at the end."""
        problems = Problems(self.paths.root)
        config, content, site = link(self.paths, problems, self.jobs)
        if problems or config is None:
            problems.items += checked_logs(site, self.paths.root)
            raise BuildFailed(problems)
        indexing: list[subprocess.Popen[str]] = []
        tmp: Path | None = None
        try:
            assets, env = self._environment(config)
            env.globals["site"] = site
            self.out.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", dir=self.out.parent))
            for path, data in assets.files.values():
                write_file(tmp / path, data)
            page_list = render.pages(site)
            entry_pages = [p for p in page_list if p.template == "entry.html"]
            other_pages = [p for p in page_list if p.template != "entry.html"]

            # Pagefind reads only the entry pages: it indexes them while this process writes the
            # data documents and the workers write the other pages and check the example logs.
            # The site is swapped in only if the logs pass.
            def between(out: Path = tmp, config: SiteConfig = config) -> None:
                if self.index:
                    indexing.append(start_index(out))
                self._write_data(out, config, site, page_list)

            problems.items += (
                render_all(
                    env,
                    entry_pages,
                    tmp,
                    self.jobs,
                    then=other_pages,
                    between=between,
                    beside=lambda: checked_logs(site, self.paths.root),
                )
                or []
            )
            if problems:
                raise BuildFailed(problems)
            for proc in indexing:
                finish_index(proc)
            self._swap(tmp)
        except BaseException:
            for proc in indexing:
                proc.kill()
                proc.wait()
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.config, self.content, self.site, self.assets, self.env = config, content, site, assets, env
        return site

    def _write_entry_data(self, out: Path, config: SiteConfig, site: Site) -> None:
        """The API documents built from every entry, and the bundle the package ships."""
        write_file(out / "api/entries.json", render.entries_json(site, config))
        write_file(out / "api/search.json", search_json(site))
        bundle = signatures_json(site)
        write_file(out / "api/signatures.json", bundle)
        if self.paths.root == PACKAGE_ROOT:
            # The terminal matcher reads the bundle installed with the package: keep it current.
            packaged = PACKAGE_ROOT / "denpex_site" / "data" / "signatures.json"
            if not packaged.is_file() or packaged.read_text(encoding="utf-8") != bundle:
                write_file(packaged, bundle)

    def _write_data(self, out: Path, config: SiteConfig, site: Site, page_list: list[render.Page]) -> None:
        self._write_entry_data(out, config, site)
        urls = [p.url for p in page_list if p.path != "404.html"]
        write_file(out / "sitemap.xml", render.sitemap(urls, config))
        write_file(out / "robots.txt", render.robots(config))
        write_file(out / "opensearch.xml", render.opensearch(config))
        write_file(out / "feed.xml", render.atom_feed(site, config))

    def _swap(self, tmp: Path) -> None:
        os.chmod(tmp, 0o755)
        old = None
        if self.out.exists():
            old = self.out.with_name(f".{self.out.name}.old{os.getpid()}")
            os.replace(self.out, old)
        os.replace(tmp, self.out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def flush_data(self) -> None:
        """Write the API documents an incremental rebuild left out (serve does this in the background)."""
        with self._writing:
            if self._stale_data and self.site is not None and self.config is not None:
                self._stale_data = False
                self._write_entry_data(self.out, self.config, self.site)

    def rebuild_entries(self, ids: set[str]) -> float:
        """See :meth:`_rebuild_entries`; waits for a background :meth:`flush_data` to end first."""
        with self._writing:
            return self._rebuild_entries(ids)

    def _rebuild_entries(self, ids: set[str]) -> float:
        """Reload the named entry folders and re-render only the pages they affect, in place.

        Falls back to a full build when there is no previous build or an entry was added or removed.
        The whole-site API documents (entries.json, signatures.json, 30 MB for 1,000 entries) are left
        for :meth:`flush_data`. Returns the seconds it took.
        """
        start = time.perf_counter()
        if self.content is None or self.config is None or self.assets is None or self.env is None:
            self.build()
            return time.perf_counter() - start
        problems = Problems(self.paths.root)
        bundles = {b.folder.name: b for b in self.content.bundles}
        failures = self.paths.content / "failures"
        for eid in ids:
            folder = failures / eid
            if not folder.is_dir() or eid not in bundles:
                self.build()
                return time.perf_counter() - start
            bundle = load_bundle(folder, problems)
            if bundle is not None:
                bundles[eid] = bundle
        if problems:
            raise BuildFailed(problems)
        content = Content(
            self.content.root,
            self.content.categories,
            self.content.systems,
            [bundles[k] for k in sorted(bundles)],
            self.content.category_lines,
            self.content.system_lines,
        )
        old = self.site
        assert old is not None
        site = build_site(content, problems, previous=old, jobs=self.jobs)
        if problems:
            raise BuildFailed(problems)
        shown = {eid for eid in ids if old.pages[eid].summary() != site.pages[eid].summary()}
        entry_pages = set(ids)
        for eid in shown:  # pages that show this entry's title
            for view in (old.pages[eid], site.pages[eid]):
                entry_pages.update(r.id for r in view.entry.related)
                entry_pages.update(view.backlinks)
        entry_pages.update(e for e, p in site.pages.items() if p.backlinks != old.pages[e].backlinks)
        self.env.globals["site"] = site
        if not shown:
            # Nothing that other pages show has changed: only entry pages and the entry data.
            for eid in sorted(entry_pages):
                write_page(self.env, render.entry_page(site.pages[eid]), self.out)
            self.content, self.site = content, site
            self._stale_data = True  # the API documents: rewritten by flush_data()
            return time.perf_counter() - start
        old_paths = {p.path for p in render.pages(old)}
        page_list = render.pages(site)
        for page in page_list:
            subject = page.context.get("page")
            if subject is not None:
                needed = subject.id in entry_pages
            else:
                needed = bool(page.entries & shown) or page.path not in old_paths
            if needed:
                write_page(self.env, page, self.out)
        self._write_data(self.out, self.config, site, page_list)
        self._stale_data = False
        self.content, self.site = content, site
        return time.perf_counter() - start


def pagefind_command(site: Path) -> list[str]:
    """The command that indexes the entry pages of ``site`` into ``site/pagefind``: Pagefind's binary
    itself when pagefind[bin] is installed (no Python start).

    Only entry pages carry ``data-pagefind-body``, so only they are handed to Pagefind: parsing the
    other pages would find nothing to index.
    """
    try:
        from pagefind_bin import get_executable
    except ImportError:
        program = [sys.executable, "-m", "pagefind"]
    else:
        program = [str(get_executable())]
    return [*program, "--site", str(site), "--glob", "failures/*/index.html", "--quiet"]


def start_index(out: Path) -> subprocess.Popen[str]:
    """Start building the Pagefind full-text index of ``out`` into ``out/pagefind``."""
    return subprocess.Popen(
        pagefind_command(out), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def finish_index(proc: subprocess.Popen[str]) -> None:
    output, _ = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"pagefind failed:\n{output}")


def index_site(out: Path) -> None:
    """Build the Pagefind index of ``out`` and wait for it."""
    finish_index(start_index(out))


def check(root: Path) -> Problems:
    """Validate everything without writing; returns the problems (empty when all is well)."""
    try:
        gather(Paths(root.resolve()))
    except BuildFailed as exc:
        return exc.problems
    return Problems(root)


def manifest(out: Path) -> dict[str, str]:
    """sha256 of every file under ``out`` (for determinism checks)."""
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def dump_manifest(out: Path) -> str:
    return json.dumps(manifest(out), indent=1, sort_keys=True)
