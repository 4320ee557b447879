"""YAML documents with positions: every value's line and column, kept beside the plain data.

YAML is composed into nodes first, so each value's line and column is known; pydantic's error
locations are later mapped back to those marks (:mod:`denpex_site.content.validate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from denpex_site.content.model import TODO_MARK
from denpex_site.errors import Problems

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


MAX_VALUES = 100_000
"""Values one document may expand to; aliases repeat what they name, so a few lines of anchors and
aliases can otherwise expand to billions of values (a "billion laughs" document)."""


class _TooLarge(Exception):
    """A document whose aliases expand it past MAX_VALUES."""

    def __init__(self, node: yaml.Node) -> None:
        self.node = node


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
        self.count = 0

    def scalar(self, node: yaml.Node) -> Any:
        return node.value if node.tag == _STR else self.loader.construct_object(node, deep=True)

    def walk(self, node: yaml.Node, loc: Loc) -> Any:
        self.count += 1
        if self.count > MAX_VALUES:
            raise _TooLarge(node)
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
    text = _read_text(path, problems)
    if text is None:
        return None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            problems.add(path, 1, 1, "file", "the file is empty")
            return None
        data, walker = _walk(loader, node)
    except (_Recursive, _TooLarge, yaml.YAMLError) as exc:
        line, col, message = _yaml_problem(exc, text)
        problems.add(path, line, col, "yaml", message)
        return None
    finally:
        loader.dispose()
    for loc, (line, col) in walker.dupes:
        problems.add(path, line, col, dotted(loc), "duplicate key: the later value would silently win")
    return Document(path, data, walker.lines, walker.todos)


def _read_text(path: Path, problems: Problems) -> str | None:
    """The file's text, or None with the problem reported (unreadable, not UTF-8)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        problems.add(path, 1, 1, "file", f"cannot read: {exc.strerror or exc}")
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        problems.add(
            path, line, col, "file", f"byte 0x{raw[exc.start]:02x} is not UTF-8: save the file as UTF-8"
        )
        return None


def _walk(loader: Any, node: yaml.Node) -> tuple[Any, _Walker]:
    """Build the data with every value's position; documents with tags or merge keys are built by
    PyYAML itself and walked only for the positions."""
    walker = _Walker(loader)
    try:
        return walker.walk(node, ()), walker
    except _Unusual:
        walker = _Walker(loader, positions_only=True)
        walker.walk(node, ())
        data = loader.construct_document(node)
        walker.todos = []
        find_todo(data, (), walker.todos)
        return data, walker


def _yaml_problem(exc: Exception, text: str) -> tuple[int, int, str]:
    """Line, column and message for a document PyYAML or the walker rejected."""
    if isinstance(exc, _Recursive):
        mark = exc.node.start_mark
        return mark.line + 1, mark.column + 1, "an alias refers to its own parent"
    if isinstance(exc, _TooLarge):
        mark = exc.node.start_mark
        why = f"the aliases here expand the document past {MAX_VALUES:,} values: write the values out"
        return mark.line + 1, mark.column + 1, why
    if isinstance(exc, yaml.MarkedYAMLError):
        marked = exc.problem_mark or exc.context_mark
        line, col = (marked.line + 1, marked.column + 1) if marked else (1, 1)
        message = " ".join(f"{exc.problem or exc.context}".split())
        if "'\\t'" in message or "tab character" in message:
            message += " (YAML indents with spaces, never tabs)"
        return line, col, message
    if isinstance(exc, yaml.reader.ReaderError):
        line = text.count("\n", 0, exc.position) + 1
        col = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        return line, col, f"character {exc.character!r} is not allowed in YAML: remove it"
    return 1, 1, " ".join(str(exc).split())


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
