"""Read content/ into validated models: entry folders, categories and systems.

Every problem in every file is collected; nothing stops at the first one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from denpex_site.content.documents import Document, LineMap, dotted, read_yaml
from denpex_site.content.model import TODO_MARK, Category, CategoryFile, Entry, System, SystemFile
from denpex_site.content.validate import validate
from denpex_site.errors import Problems


@dataclass
class EntryFolder:
    """One failure folder: the validated entry, where its fields stand, and its files."""

    folder: Path
    entry: Entry
    lines: LineMap
    logs: dict[str, str]
    repro: str | None

    @property
    def path(self) -> Path:
        return self.folder / "entry.yaml"


@dataclass
class Content:
    root: Path
    categories: list[Category]
    systems: list[System]
    bundles: list[EntryFolder]
    category_lines: LineMap | None = None
    system_lines: LineMap | None = None
    broken: frozenset[str] = frozenset()
    """Folders whose entry failed to load: links to them are not reported a second time."""
    rejected: list[Document] = field(default_factory=list)
    """The YAML of entries that failed validation, so their references can still be checked."""


def symbolic_links(root: Path) -> set[Path]:
    """Every symbolic link below ``root`` (files and folders; links are not followed)."""
    found: set[Path] = set()
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in (*dirs, *files):
            path = Path(folder, name)
            if path.is_symlink():
                found.add(path)
    return found


def read_log(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def load_entry_folder(
    folder: Path, problems: Problems, rejected: list[Document] | None = None
) -> EntryFolder | None:
    """The folder's entry, validated; None when it has problems (then its document, if it parsed,
    is added to ``rejected``)."""
    path = folder / "entry.yaml"
    if not path.is_file():
        problems.add(path, 1, 1, "file", "every folder under content/failures/ needs an entry.yaml")
        return None
    doc = read_yaml(path, problems)
    if doc is None:
        return None
    todos = doc.todos
    for loc in todos:
        line, col = doc.lines.at(loc)
        problems.add(
            path, line, col, dotted(loc), f"still contains the {TODO_MARK} marker: write the real text"
        )
    entry = validate(doc, Entry, problems)
    if entry is None or todos:
        if rejected is not None:
            rejected.append(doc)
        return None
    logs: dict[str, str] = {}
    logs_dir = folder / "logs"
    if logs_dir.is_dir() and not logs_dir.is_symlink():
        for log in sorted(logs_dir.glob("*.log")):
            if not log.is_symlink() and log.is_file():
                logs[f"logs/{log.name}"] = read_log(log)
    repro = folder / "repro.py"
    readable = repro.is_file() and not repro.is_symlink()
    return EntryFolder(
        folder, entry, doc.lines, logs, repro.read_text(encoding="utf-8") if readable else None
    )


def load_taxonomy(
    path: Path,
    model: type[BaseModel],
    problems: Problems,
    links: frozenset[Path] | set[Path] = frozenset(),
) -> tuple[Any, LineMap | None]:
    if path in links:
        return None, None
    if not path.is_file():
        problems.add(path, 1, 1, "file", "missing taxonomy file")
        return None, None
    doc = read_yaml(path, problems)
    if doc is None:
        return None, None
    return validate(doc, model, problems), doc.lines


def load_content(
    root: Path,
    problems: Problems,
    only: set[str] | None = None,
    on_bundle: Callable[[EntryFolder], None] | None = None,
) -> Content:
    """Load every entry bundle and taxonomy under ``root`` (the content/ folder); ``on_bundle`` is
    called with each bundle as soon as it is loaded."""
    # Content comes from pull requests: a link could publish any file of the build machine.
    links = symbolic_links(root) if root.is_dir() else set()
    for link in sorted(links):
        problems.add(
            link, 1, 1, "file", "symbolic links are not allowed in content/: put the file itself here"
        )
    cats, cat_lines = load_taxonomy(root / "categories.yaml", CategoryFile, problems, links)
    syss, sys_lines = load_taxonomy(root / "systems.yaml", SystemFile, problems, links)
    bundles = []
    broken = set()
    rejected: list[Document] = []
    failures = root / "failures"
    for folder in sorted(p for p in failures.iterdir() if p.is_dir()) if failures.is_dir() else []:
        if only is not None and folder.name not in only:
            continue
        if folder in links or folder / "entry.yaml" in links:
            broken.add(folder.name)
            continue
        bundle = load_entry_folder(folder, problems, rejected)
        if bundle is not None:
            bundles.append(bundle)
            if on_bundle is not None:
                on_bundle(bundle)
        else:
            broken.add(folder.name)
    return Content(
        root=root,
        categories=list(cats.categories) if cats else [],
        systems=list(syss.systems) if syss else [],
        bundles=bundles,
        category_lines=cat_lines,
        system_lines=sys_lines,
        broken=frozenset(broken),
        rejected=rejected,
    )
