"""Lines crafted to make a backtracking regex engine work hard on a signature.

For each pattern, the lines repeat its literal text with the placeholders filled and the last
character left out (so every attempt nearly matches and must be given up), and repeat each
literal piece many times over (so every part that takes any text has many places to stop).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

PLACEHOLDER = re.compile(r"\{re:(?:[^{}]|\{[0-9,]+\})*\}|\{[a-z]+\}")
FILLER = {
    "int": "7",
    "num": "7.5",
    "hex": "0x7f",
    "word": "w",
    "name": "a.b",
    "path": "/p/f.py",
    "addr": "h:1",
}


def crafted_lines(pattern: str, width: int) -> list[str]:
    literals = [piece for piece in PLACEHOLDER.split(pattern.replace("{{", "{").replace("}}", "}")) if piece]
    filled = PLACEHOLDER.sub(lambda m: FILLER.get(m.group()[1:-1], "x"), pattern)[:-1]
    lines = [(filled + " ") * (width // (len(filled) + 1) + 1)]
    if len(literals) > 1:
        # The first literal, then the middle ones over and over within reach of a part that takes any
        # text (up to 200 characters), then the last one without its last character.
        middle = "".join(literals[1:-1]) or literals[-1][:-1]
        block = literals[0] + middle * max(1, 150 // max(len(middle), 1)) + literals[-1][:-1]
        lines.append(block * (width // len(block) + 1))
    # The same, with one real match at the very end: an engine that backtracks must first give up
    # every near miss before it finds it.
    full = PLACEHOLDER.sub(lambda m: FILLER.get(m.group()[1:-1], "x"), pattern)
    return [line[: width - len(full) - 1] + " " + full if i else line[:width] for i, line in enumerate(lines)]


def crafted_log(bundle: Path, width: int = 4000) -> bytes:
    """One log with the crafted lines of every signature in ``bundle``."""
    data = json.loads(bundle.read_text(encoding="utf-8"))
    patterns = [sig["pattern"] for sig in data["signatures"]]
    return "".join(line + "\n" for pattern in patterns for line in crafted_lines(pattern, width)).encode()
