"""Text from logs and file names made safe to print on a terminal.

A log line may carry escape sequences (a reset, cursor moves, a character-set switch, an OSC
title or hyperlink) or other control characters that would act on the user's terminal when
printed. :func:`safe` shows every such character as a visible escape instead (``\\x1b``,
``\\x07``, ``\\u202e``), keeping tabs; the report adds its own colours afterwards.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str) -> str:
    """``text`` with every control and bidirectional-override character shown as an escape."""
    return _CONTROL.sub(_visible, text)
