"""The decisive line: which line of a log most likely tells the cause, whether or not an entry matches.

The rules are data, shipped in the signature bundle (``normalize.decisive``) so that the browser
matcher applies the same ones. A line is a candidate when it is one of these kinds:

- ``exception``: a Python exception line (``ValueError: ...``), ranked first when it ends a
  traceback (a traceback header and at least one frame came before it on the same rank);
- ``kill``: a kill by the shell or the kernel (``Killed``, ``Segmentation fault``, the OOM killer);
- ``fatal``: C++ ``terminate called after throwing``, ``Fatal Python error``;
- ``error``: compiler, pip and CMake error lines;
- ``wrapper``: lines that only report another process's failure (torchrun's ChildFailedError,
  ``CalledProcessError``, ``exited with return code``, SIGTERM notices), chosen only when nothing
  else is there; collateral signature hits count as wrappers too;
- ``warning``: a line a warning signature matches, chosen only when no other kind is there.

Among candidates the lowest tier wins, then the earliest (by time when both lines carry one, else
by file and line); the frame a traceback's exception was raised in names where it was raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ANCHORS = [
    "Error",
    "Exception",
    "Interrupt",
    "SystemExit",
    "Killed",
    "Segmentation fault",
    "Bus error",
    "Illegal instruction",
    "Aborted",
    "terminate called",
    "Fatal Python error",
    "oom-kill",
    "error: ",
    "ERROR: ",
    "ERROR ",
    "CRITICAL ",
    "command not found",
    "cannot import name",
    "No module named",
    "exited with return code",
    "(exitcode: ",
    "closing signal",
    'File "',
    "File /",
    "File ~",
]
"""Literal words one of which every candidate line and every traceback frame contains: the scans
stop at lines holding one (beside the signatures' own anchors)."""


FRAME = r'^[ \t]{0,40}File (?:"([^"]{1,1000})", line [0-9]{1,9}|((?:~|/)[^:"]{0,1000}):[0-9]{1,9}, in )'
"""A traceback frame: Python's (group 1 is the file) or IPython 8's ``File ~/x.py:12, in f()``
(group 2)."""


INLINE_FRAME = r'File "([^"]{1,1000})", line [0-9]{1,9}'
"""A frame inside a traceback flattened onto one line: the last one is where it was raised."""


LIBRARY = r"[\\/](?:site|dist)-packages[\\/]([A-Za-z0-9_.\\/-]{1,1000})"
"""The part of a frame's path under site-packages: its first component names the library."""


_TYPE = r"(?:[A-Za-z_][A-Za-z0-9_]{0,80}\.){0,12}[A-Za-z0-9_]{0,80}(?:Error|Exception|Exit|Interrupt)"
"""An exception's type, with its module: ``ValueError``, ``torch.OutOfMemoryError``, ``lmdb.Error``."""


_NAMED = (
    r"(?:(?:[A-Za-z_][A-Za-z0-9_]{0,80}\.){0,12}[A-Za-z_][A-Za-z0-9_]{0,80}(?:Error|Exception|Exit|Interrupt)"
    r"|(?:[A-Za-z_][A-Za-z0-9_]{0,80}\.){1,12}(?:Error|Exception))"
)
"""The same inside a line: a bare ``Error`` there is prose (``Mean Absolute Error: 0.31``)."""


LINES: list[tuple[str, str]] = [
    (
        "wrapper",
        r"^[ \t]{0,40}(?:[A-Za-z_][A-Za-z0-9_]{0,80}\.){0,12}(?:ChildFailedError|CalledProcessError"
        r"|ProcessRaisedException|ProcessExitedException|KeyboardInterrupt|SystemExit)\b",
    ),
    (
        "wrapper",
        r"exited with return code|failed \(exitcode: -?[0-9]{1,6}\)|closing signal SIG[A-Z]{2,8}"
        r"|^ERROR: Failed building wheel|^error: subprocess-exited-with-error|^ERROR: Could not build wheels",
    ),
    (
        "kill",
        r"^(?:[^ ]{1,300}: line [0-9]{1,9}: {1,8}[0-9]{1,9} )?(?:Killed|Segmentation fault|Bus error"
        r"|Illegal instruction|Aborted)(?: \(core dumped\))?(?:[ \t].{0,300})?$",
    ),
    ("kill", r"Out of memory: Killed process [0-9]{1,10}|oom-kill:|invoked oom-killer"),
    ("fatal", r"^terminate called after throwing an instance of|^Fatal Python error: "),
    ("exception", rf"^[ \t]{{0,40}}{_TYPE}(?::.*)?$|[ \t\x22'(`]{_NAMED}:[ \t]?[^ \t].*$"),
    ("exception", r"^[ \t]{0,40}(?:cannot import name '|No module named ')"),
    (
        "error",
        r"^(?:[^ ]{1,300}:[0-9]{1,7}:(?:[0-9]{1,5}:)? )?(?:fatal )?error: |^ERROR: |^CMake Error"
        r"|(?:^|\| )(?:ERROR|CRITICAL) {1,10}\| |^(?:[^ ]{1,200}: ){1,3}command not found$",
    ),
]
"""Line kinds, tried in order on a line's text after its rank prefix; the first that matches wins."""


TIER = {"kill": 0, "fatal": 0, "exception": 1, "error": 1, "wrapper": 2, "collateral": 2, "warning": 3}
"""Lower is more decisive; an exception that ends a traceback is promoted to tier 0."""


def rules() -> dict[str, Any]:
    """The rules as the bundle ships them."""
    return {
        "anchors": ANCHORS,
        "frame": FRAME,
        "inline_frame": INLINE_FRAME,
        "library": LIBRARY,
        "lines": [list(x) for x in LINES],
        "tiers": TIER,
    }


@dataclass
class Rules:
    """The compiled rules of a bundle."""

    anchors: list[str]
    frame: re.Pattern[str]
    inline_frame: re.Pattern[str]
    library: re.Pattern[str]
    lines: list[tuple[str, re.Pattern[str]]]
    tiers: dict[str, int]

    @classmethod
    def compile(cls, data: dict[str, Any]) -> Rules:
        return cls(
            list(data["anchors"]),
            re.compile(data["frame"], re.ASCII),
            re.compile(data["inline_frame"], re.ASCII),
            re.compile(data["library"], re.ASCII),
            [(kind, re.compile(rx, re.ASCII)) for kind, rx in data["lines"]],
            dict(data["tiers"]),
        )

    def kind(self, body: str) -> str | None:
        for kind, rx in self.lines:
            if rx.search(body):
                return kind
        return None

    def raised_in(self, path: str) -> dict[str, str]:
        """Where a frame is: its path (under site-packages when it is there) and library."""
        m = self.library.search(path)
        if m is None:
            return {"path": path.replace("\\", "/"), "library": ""}
        inner = m.group(1).replace("\\", "/")
        library = inner.split("/", 1)[0]
        if library.endswith(".py"):
            library = library[:-3]
        return {"path": inner, "library": library}

    def inline_raised_in(self, line: str) -> dict[str, str] | None:
        """Where a traceback flattened onto ``line`` was raised: its last frame, if it shows one."""
        frames = self.inline_frame.findall(line)
        return self.raised_in(frames[-1]) if frames else None


def raised_by(raised: dict[str, str], wanted: str) -> bool:
    """Whether a frame (see :meth:`Rules.raised_in`) is in ``wanted``: a module path when it holds a
    slash or ends in ``.py`` (``torch/utils/cpp_extension.py``, any part of the path), else a
    library name (``peft``: the package under site-packages, or a folder of that name in the path)."""
    path = raised["path"]
    if "/" in wanted or wanted.endswith(".py"):
        return wanted in path
    return raised["library"] == wanted or f"/{wanted}/" in "/" + path
