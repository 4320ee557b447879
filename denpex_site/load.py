"""Read content/ into validated models, remembering where every value stands in its YAML file.

YAML is composed into nodes first, so each value's line and column is known; pydantic's error
locations are then mapped back to those marks. Every problem in every file is collected.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from .errors import Problems
from .model import KEBAB, PLAIN, TODO_MARK, Category, CategoryFile, Entry, System, SystemFile

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _Loader = yaml.SafeLoader

Loc = tuple[str | int, ...]


@dataclass
class LineMap:
    """Positions (1-based line, column) of values and keys in one YAML document."""

    values: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Loc, tuple[int, int]] = field(default_factory=dict)

    def at(self, loc: Loc, *, key: bool = False) -> tuple[int, int]:
        """The best-known position for ``loc``: its own, else its nearest parent's."""
        if key and loc in self.keys:
            return self.keys[loc]
        while loc:
            if loc in self.values:
                return self.values[loc]
            loc = loc[:-1]
        return self.values.get((), (1, 1))


@dataclass
class Document:
    path: Path
    data: Any
    lines: LineMap
    todos: list[Loc] = field(default_factory=list)
    """Where string values still hold the scaffold's TODO marker."""


_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"


class _Unusual(Exception):
    """A document with merge keys: PyYAML's own constructor takes it."""


class _Recursive(Exception):
    """An alias that refers to one of its own parents."""

    def __init__(self, node: yaml.Node) -> None:
        self.node = node


class _Walker:
    """One pass over the composed nodes: positions, duplicate keys, TODO markers and the data.

    Building the data here (instead of a second pass through PyYAML's constructor) is what keeps
    loading a thousand entries fast; only non-string scalars go through the constructor, so the
    values are exactly what ``yaml.safe_load`` gives.
    """

    def __init__(self, loader: Any, *, positions_only: bool = False) -> None:
        self.loader = loader
        self.positions_only = positions_only
        """For documents PyYAML's constructor builds: merge and complex keys are walked, not refused."""
        self.lines = LineMap()
        self.dupes: list[tuple[Loc, tuple[int, int]]] = []
        self.todos: list[Loc] = []
        self.open: set[int] = set()

    def scalar(self, node: yaml.Node) -> Any:
        return node.value if node.tag == _STR else self.loader.construct_object(node, deep=True)

    def walk(self, node: yaml.Node, loc: Loc) -> Any:
        self.lines.values[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.ScalarNode):
            value = self.scalar(node)
            if isinstance(value, str) and TODO_MARK in value:
                self.todos.append(loc)
            return value
        if id(node) in self.open:
            raise _Recursive(node)
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.walk(item, (*loc, i)) for i, item in enumerate(node.value)]
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                unusual = key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode)
                if unusual and not self.positions_only:
                    raise _Unusual
                child = (*loc, str(key_node.value))
                mark = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                if child in self.lines.keys:
                    self.dupes.append((child, mark))
                self.lines.keys[child] = mark
                value = self.walk(value_node, child)
                if not unusual:
                    out[self.scalar(key_node)] = value
            return out
        finally:
            self.open.discard(id(node))


def read_yaml(path: Path, problems: Problems) -> Document | None:
    """Parse one YAML file; report syntax errors and duplicate keys with their position."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.add(path, 1, 1, "file", f"cannot read: {exc}")
        return None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            problems.add(path, 1, 1, "file", "the file is empty")
            return None
        try:
            walker = _Walker(loader)
            try:
                data = walker.walk(node, ())
            except _Unusual:
                walker = _Walker(loader, positions_only=True)
                walker.walk(node, ())
                data = loader.construct_document(node)
                walker.todos = []
                find_todo(data, (), walker.todos)
        except _Recursive as exc:
            mark = exc.node.start_mark
            problems.add(path, mark.line + 1, mark.column + 1, "yaml", "an alias refers to its own parent")
            return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problems.add(path, line, col, "yaml", f"{exc.problem or exc.context}".strip())
        return None
    except yaml.YAMLError as exc:
        problems.add(path, 1, 1, "yaml", str(exc))
        return None
    finally:
        loader.dispose()
    for loc, (line, col) in walker.dupes:
        problems.add(path, line, col, dotted(loc), "duplicate key: the later value would silently win")
    return Document(path, data, walker.lines, walker.todos)


def find_todo(value: object, loc: Loc, found: list[Loc]) -> None:
    """Collect the locations of strings that still hold the scaffold's TODO marker."""
    if isinstance(value, str):
        if TODO_MARK in value:
            found.append(loc)
    elif isinstance(value, dict):
        for k, v in value.items():
            find_todo(v, (*loc, str(k)), found)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            find_todo(v, (*loc, i), found)


def dotted(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


def _fields_of(model: type[BaseModel], loc: Loc) -> list[str]:
    """The field names allowed at ``loc`` inside ``model`` (for did-you-mean hints)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        info = getattr(current, "model_fields", {}).get(part)
        if info is None:
            return []
        current = _inner_model(info.annotation)
        if current is None:
            return []
    return list(getattr(current, "model_fields", {}))


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def validate(doc: Document, model: type[BaseModel], problems: Problems) -> Any | None:
    """Validate a document against a model, reporting every error at its YAML position."""
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            loc: Loc = tuple(err["loc"])
            kind = err["type"]
            if kind == "extra_forbidden":
                line, col = doc.lines.at(loc, key=True)
                name = str(loc[-1])
                allowed = _fields_of(model, loc[:-1])
                hint = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
                message = f"unknown field '{name}'" + (f" (did you mean '{hint[0]}'?)" if hint else "")
            elif kind == "missing":
                line, col = doc.lines.at(loc[:-1])
                message = f"required field '{loc[-1]}' is missing"
            else:
                line, col = doc.lines.at(loc)
                message = err["msg"]
                if kind == "string_pattern_mismatch":
                    wanted = (err.get("ctx") or {}).get("pattern")
                    if wanted == KEBAB:
                        message = "must be kebab-case: lowercase letters and digits joined by '-'"
                    elif wanted == PLAIN:
                        message = (
                            "must be plain text: backticks would show literally in tabs, feeds and links"
                        )
                    message = f"{message} (got {err['input']!r})"
            problems.add(doc.path, line, col, dotted(loc), message)
        return None


@dataclass
class Bundle:
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
    bundles: list[Bundle]
    category_lines: LineMap | None = None
    system_lines: LineMap | None = None
    broken: frozenset[str] = frozenset()
    """Folders whose entry failed to load: links to them are not reported a second time."""


def read_log(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def load_bundle(folder: Path, problems: Problems) -> Bundle | None:
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
        return None
    logs: dict[str, str] = {}
    logs_dir = folder / "logs"
    if logs_dir.is_dir():
        for log in sorted(logs_dir.glob("*.log")):
            logs[f"logs/{log.name}"] = read_log(log)
    repro = folder / "repro.py"
    return Bundle(
        folder, entry, doc.lines, logs, repro.read_text(encoding="utf-8") if repro.is_file() else None
    )


def load_taxonomy(path: Path, model: type[BaseModel], problems: Problems) -> tuple[Any, LineMap | None]:
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
    on_bundle: Callable[[Bundle], None] | None = None,
) -> Content:
    """Load every entry bundle and taxonomy under ``root`` (the content/ folder); ``on_bundle`` is
    called with each bundle as soon as it is loaded."""
    cats, cat_lines = load_taxonomy(root / "categories.yaml", CategoryFile, problems)
    syss, sys_lines = load_taxonomy(root / "systems.yaml", SystemFile, problems)
    bundles = []
    broken = set()
    failures = root / "failures"
    for folder in sorted(p for p in failures.iterdir() if p.is_dir()) if failures.is_dir() else []:
        if only is not None and folder.name not in only:
            continue
        bundle = load_bundle(folder, problems)
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
    )
