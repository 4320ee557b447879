"""Problems found in content, reported as ``path:line:col: field: message``.

Loading and validation never stop at the first problem: they collect :class:`ContentError`
values in a :class:`Problems` list, and the command line prints them all in one of three formats.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True, order=True)
class ContentError:
    path: str
    line: int
    col: int
    field: str
    message: str

    def text(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.field}: {self.message}"

    def github(self) -> str:
        def esc(value: str, prop: bool = False) -> str:
            value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            return value.replace(":", "%3A").replace(",", "%2C") if prop else value

        title = esc(self.field or "content", prop=True)
        return f"::error file={esc(self.path, True)},line={self.line},col={self.col},title={title}::{esc(self.message)}"


@dataclass
class Problems:
    """An ordered collection of content errors, with paths shown relative to ``root``."""

    root: Path
    items: list[ContentError] = field(default_factory=list)

    def add(self, path: Path | str, line: int, col: int, field_name: str, message: str) -> None:
        shown = str(path)
        with contextlib.suppress(ValueError):
            shown = Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        self.items.append(ContentError(shown, max(line, 1), max(col, 1), field_name, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def sorted(self) -> list[ContentError]:
        return sorted(set(self.items))

    def format(self, fmt: str = "text") -> str:
        items = self.sorted()
        if fmt == "json":
            return json.dumps([asdict(e) for e in items], indent=2)
        if fmt == "github":
            return "\n".join(e.github() for e in items)
        return "\n".join(e.text() for e in items)


class BuildFailed(Exception):
    """Raised when content has problems; the previous output is left untouched."""

    def __init__(self, problems: Problems) -> None:
        super().__init__(f"{len(problems)} problem(s) in content")
        self.problems = problems
