"""Build orchestration: gather and check everything, then write the site atomically.

A full build renders into a fresh temporary folder beside the output and swaps it in only when
every page was written; any content problem raises :class:`InvalidContent` before anything is
written, so the previous site stays intact. Pages are rendered on all cores when there are many.
The :class:`Builder` keeps the last Site in memory so that ``serve`` can re-render only the pages
an edited entry affects.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import multiprocessing
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from jinja2 import Environment

from denpex_site.build.assets import Assets, Paths, collect_assets
from denpex_site.build.output import check_output, new_build_folder, swap_in, write_file, write_page
from denpex_site.build.pagefind import finish_index, start_index
from denpex_site.content.config import SiteConfig, load_config
from denpex_site.content.load import Content, load_content, load_entry_folder
from denpex_site.errors import InvalidContent, Problem, Problems, TemplateError
from denpex_site.forked import can_fork
from denpex_site.render.api import entries_json, signatures_json
from denpex_site.render.environment import make_env
from denpex_site.render.feeds import atom_feed, opensearch, robots, sitemap
from denpex_site.render.pages import Page, all_pages, entry_page, render_page
from denpex_site.render.searchindex import search_json
from denpex_site.site.derive import Deriver
from denpex_site.site.link import build_site
from denpex_site.site.logcheck import check_logs, healthy_logs
from denpex_site.site.model import Site

PARALLEL_THRESHOLD = 150
"""Below this many pages, forking workers costs more than it saves."""


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


def checked_logs(site: Site, root: Path) -> list[Problem]:
    """The problems the example logs and the healthy logs show."""
    problems = Problems(root)
    check_logs(site, problems, healthy_logs(root))
    return problems.items


@cycle_collection_paused()
def gather(paths: Paths, jobs: int | None = None) -> tuple[SiteConfig, Content, Site]:
    """Load, validate and link everything; raise InvalidContent listing every problem."""
    problems = Problems(paths.root)
    config, content, site = link(paths, problems, jobs or os.cpu_count() or 1)
    problems.items += checked_logs(site, paths.root)
    if problems or config is None:
        raise InvalidContent(problems)
    return config, content, site


T = TypeVar("T")


# Worker state for forked rendering: set before the pool starts, inherited by the children.
_WORK: tuple[Environment, list[Page], Path, Callable[[], Any] | None] | None = None


def _render_range(bounds: tuple[int, int]) -> int:
    assert _WORK is not None
    env, page_list, out, _ = _WORK
    for page in page_list[bounds[0] : bounds[1]]:
        write_page(env, page, out, atomic=False)
    return bounds[1] - bounds[0]


def _run_beside() -> Any:
    assert _WORK is not None and _WORK[3] is not None
    return _WORK[3]()


def render_all(
    env: Environment,
    page_list: list[Page],
    out: Path,
    jobs: int,
    then: Sequence[Page] = (),
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
        env = make_env(self.paths.templates, config, assets.url)
        return assets, env

    @cycle_collection_paused()
    def build(self) -> Site:
        """A full build into a temporary folder, swapped in at the end."""
        check_output(self.out, self.paths.root)
        problems = Problems(self.paths.root)
        config, content, site = link(self.paths, problems, self.jobs)
        if problems or config is None:
            problems.items += checked_logs(site, self.paths.root)
            raise InvalidContent(problems)
        indexing: list[subprocess.Popen[str]] = []
        tmp: Path | None = None
        try:
            assets, env = self._environment(config)
            env.globals["site"] = site
            tmp = new_build_folder(self.out)
            for path, data in assets.files.values():
                write_file(tmp / path, data)
            problems.items += self._render_into(tmp, env, config, site, indexing)
            if problems:
                raise InvalidContent(problems)
            for proc in indexing:
                finish_index(proc)
            swap_in(tmp, self.out)
        except BaseException:
            for proc in indexing:
                proc.kill()
                proc.wait()
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
            raise
        self.config, self.content, self.site, self.assets, self.env = config, content, site, assets, env
        return site

    def _render_into(
        self,
        out: Path,
        env: Environment,
        config: SiteConfig,
        site: Site,
        indexing: list[subprocess.Popen[str]],
    ) -> list[Problem]:
        """Write every page and data document into ``out``; the problems of templates and example logs.

        Pagefind reads only the entry pages: it indexes them (its process joins ``indexing``) while
        this process writes the data documents and the workers write the other pages and check the
        example logs."""
        page_list = all_pages(site)
        entry_pages = [p for p in page_list if p.template == "entry.html"]
        other_pages = [p for p in page_list if p.template != "entry.html"]

        def between() -> None:
            if self.index:
                indexing.append(start_index(out))
            self._write_data(out, config, site, page_list)

        found = render_all(
            env,
            entry_pages,
            out,
            self.jobs,
            then=other_pages,
            between=between,
            beside=lambda: checked_logs(site, self.paths.root),
        )
        return found or []

    def _write_entry_data(self, out: Path, config: SiteConfig, site: Site) -> None:
        """The API documents built from every entry (the terminal matcher reads this signature bundle)."""
        write_file(out / "api/entries.json", entries_json(site, config))
        write_file(out / "api/search.json", search_json(site))
        write_file(out / "api/signatures.json", signatures_json(site))

    def _write_data(self, out: Path, config: SiteConfig, site: Site, page_list: list[Page]) -> None:
        self._write_entry_data(out, config, site)
        urls = [p.url for p in page_list if p.path != "404.html"]
        write_file(out / "sitemap.xml", sitemap(urls, config))
        write_file(out / "robots.txt", robots(config))
        write_file(out / "opensearch.xml", opensearch(config))
        write_file(out / "feed.xml", atom_feed(site, config))

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
        old = self.site
        content = self._reloaded(ids) if old is not None else None
        if content is None or old is None or self.config is None or self.env is None:
            self.build()
            return time.perf_counter() - start
        problems = Problems(self.paths.root)
        site = build_site(content, problems, previous=old, jobs=self.jobs)
        if problems:
            raise InvalidContent(problems)
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
                write_page(self.env, entry_page(site.pages[eid]), self.out)
            self._stale_data = True  # the API documents: rewritten by flush_data()
        else:
            old_paths = {p.path for p in all_pages(old)}
            page_list = all_pages(site)
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

    def _reloaded(self, ids: set[str]) -> Content | None:
        """The previous content with the named entry folders read again; None when one of them
        was added or removed (a full build is needed then)."""
        if self.content is None:
            return None
        problems = Problems(self.paths.root)
        bundles = {b.folder.name: b for b in self.content.bundles}
        failures = self.paths.content / "failures"
        for eid in ids:
            folder = failures / eid
            if not folder.is_dir() or eid not in bundles:
                return None
            bundle = load_entry_folder(folder, problems)
            if bundle is not None:
                bundles[eid] = bundle
        if problems:
            raise InvalidContent(problems)
        return Content(
            self.content.root,
            self.content.categories,
            self.content.systems,
            [bundles[k] for k in sorted(bundles)],
            self.content.category_lines,
            self.content.system_lines,
        )


def check(root: Path) -> Problems:
    """Validate everything without writing: content, references, signatures, example logs, and
    every page rendered in memory (so a template error is reported too). Returns every problem."""
    paths = Paths(root.resolve())
    problems = Problems(paths.root)
    with cycle_collection_paused():
        config, content, site = link(paths, problems, os.cpu_count() or 1)
        problems.items += checked_logs(site, paths.root)
        if config is not None:
            broken = {Path(p.path).parent.name for p in problems.items} | set(content.broken)
            problems.items += template_problems(paths, config, site, broken)
    return problems


def template_problems(paths: Paths, config: SiteConfig, site: Site, broken: set[str]) -> list[Problem]:
    """Render every page in memory; each distinct template error once, at its template and line.

    Pages that show an entry with problems of its own are left out: what they would fail on is
    that entry's problem, already reported, not the template's."""
    try:
        env = make_env(paths.templates, config, collect_assets(paths.static).url)
        env.globals["site"] = site
        found: dict[tuple[str, int, str], None] = {}
        for page in all_pages(site):
            if page.entries & broken:
                continue
            try:
                render_page(env, page)
            except TemplateError as exc:
                found.setdefault((exc.template, exc.line, exc.message.split(" (while rendering")[0]), None)
    except TemplateError as exc:
        found = {(exc.template, exc.line, exc.message): None}
    problems = Problems(paths.root)
    for template, line, message in found:
        problems.add(paths.templates / template, line, 1, "template", message)
    return problems.items


def manifest(out: Path) -> dict[str, str]:
    """sha256 of every file under ``out`` (for determinism checks)."""
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }
