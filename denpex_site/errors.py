"""The project's one error tree, and the problems found in content.

Every error raised on purpose is a :class:`DenpexError`; the command line catches it once and
prints one line (plus, for content, every problem) with the error's exit code:

* :class:`InvalidContent`: content, templates or example logs have problems (exit 1); each is a
  :class:`Problem` at ``path:line:col: field: message``, all collected in one run.
* :class:`TemplateError`: a template fails to compile or render, with its name and line.
* :class:`BundleError`: a signature bundle cannot be read or is of another format version.
* :class:`InputError`: a log to diagnose cannot be read.
* :class:`OutputError`: the output folder cannot be written or replaced safely.
* :class:`SearchIndexError`: the full-text indexer failed.
* :class:`ServeError`: the development server cannot start.
* :class:`UsageError`: a command was given arguments it cannot act on.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from denpex_site.terminal import safe


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    col: int
    field: str
    message: str

    def text(self) -> str:
        """The problem as one line for a terminal (control characters from content made visible)."""
        return safe(f"{self.path}:{self.line}:{self.col}: {self.field}: {self.message}")

    def github(self) -> str:
        def esc(value: str, prop: bool = False) -> str:
            value = safe(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            return value.replace(":", "%3A").replace(",", "%2C") if prop else value

        title = esc(self.field or "content", prop=True)
        return f"::error file={esc(self.path, True)},line={self.line},col={self.col},title={title}::{esc(self.message)}"


@dataclass
class Problems:
    """An ordered collection of content errors, with paths shown relative to ``root``."""

    root: Path
    items: list[Problem] = field(default_factory=list)

    def add(self, path: Path | str, line: int, col: int, field_name: str, message: str) -> None:
        shown = str(path)
        with contextlib.suppress(ValueError):
            # abspath, not resolve: a symbolic link is shown where it is, never where it points.
            shown = Path(os.path.abspath(path)).relative_to(self.root.resolve()).as_posix()
        self.items.append(Problem(shown, max(line, 1), max(col, 1), field_name, message))

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def sorted(self) -> list[Problem]:
        return sorted(set(self.items))

    def format(self, fmt: str = "text") -> str:
        items = self.sorted()
        if fmt == "json":
            return json.dumps([asdict(e) for e in items], indent=2)
        if fmt == "github":
            return "\n".join(e.github() for e in items)
        return "\n".join(e.text() for e in items)


class DenpexError(Exception):
    """Base of every error the project raises on purpose: a message for the user, and an exit code."""

    exit_code = 2

    def report(self) -> None:
        """Print what the one-line message does not say (nothing by default)."""


class InvalidContent(DenpexError):
    """Content has problems; the previous output is left untouched."""

    exit_code = 1

    def __init__(self, problems: Problems) -> None:
        super().__init__(f"{len(problems)} problem(s) in content")
        self.problems = problems

    def report(self) -> None:
        text = self.problems.format()
        if text:
            print(text)


class TemplateError(DenpexError):
    """A template that does not compile or fails while a page renders, at its file and line."""

    def __init__(self, template: str, line: int, message: str) -> None:
        super().__init__(template, line, message)
        self.template, self.line, self.message = template, line, message

    def __str__(self) -> str:
        return f"templates/{self.template}:{self.line}: {self.message}"


class BundleError(DenpexError):
    """A signature bundle that cannot be read, is not JSON, or is of another format version."""


class InputError(DenpexError):
    """A log that cannot be read (missing, a directory, unreadable, binary)."""


class OutputError(DenpexError):
    """An output folder that cannot be written or replaced safely."""


class SearchIndexError(DenpexError):
    """The full-text indexer (Pagefind) failed."""


class ServeError(DenpexError):
    """The development server cannot start (a busy port, an address that cannot be bound)."""


class UsageError(DenpexError):
    """Arguments a command cannot act on (an id that is not kebab-case, an unknown category)."""
