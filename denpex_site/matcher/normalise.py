"""Log text normalisation: the rules both matchers apply before signatures see a line.

The rules are data (regular expressions in the portable subset) so that the signature bundle can
carry them to the browser matcher unchanged.
"""

from __future__ import annotations

import re

ANSI = r"\x1b(?:\[[0-9;?]{0,64}[ -/]{0,8}[@-~]|\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\)|[@-Z\\-_])"
"""CSI colour and cursor codes, OSC titles and two-byte escapes."""


RANK_PREFIXES: list[tuple[str, str]] = [
    ("torchrun", r"^\[(?:rank|default)([0-9]{1,6})\]:[ ]?"),
    ("tee", r"^\[([0-9]{1,6})\]:[ ]?"),
    ("deepspeed", r"^\[(?:RANK|Rank|rank)[ ]([0-9]{1,6})\][ ]?"),
    ("srun", r"^[ ]{0,5}([0-9]{1,6}):[ ]"),
]
"""Rank prefixes, tried in order; group 1 is the rank."""


TIMESTAMPS: list[tuple[str, str]] = [
    ("glog", r"^\[?[IWEF]([0-9]{3,4})[ ]([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?)"),
    ("python", r"^\[?([0-9]{4}-[0-9]{2}-[0-9]{2})[ T]([0-9]{2}:[0-9]{2}:[0-9]{2}(?:[,.][0-9]{1,6})?)"),
    (
        "syslog",
        r"^((?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ ]{1,2}[0-9]{1,2})[ ]([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?)",
    ),
    (
        "dmesg",
        r"^\[(?:[A-Z][a-z]{2}[ ])?((?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ ]{1,2}[0-9]{1,2})[ ]([0-9]{2}:[0-9]{2}:[0-9]{2})[ ][0-9]{4}\]",
    ),
]
"""Timestamps at the start of a line (after any rank prefix): group 1 the date, group 2 the time.

glog and c10 print the month without a leading zero in some builds (``[E709 17:05:38.162555850``);
journald and syslog print ``Nov 30 03:12:41``, ``dmesg -T`` prints ``[Mon Nov 30 03:12:41 2026]``.
"""


MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec"


_ANSI_RE = re.compile(ANSI)


def clean_line(line: str) -> str:
    """Strip ANSI codes and keep what a terminal would show after carriage-return rewrites."""
    if "\x1b" in line:
        line = _ANSI_RE.sub("", line)
    if "\r" in line:
        parts = [p for p in line.split("\r") if p]
        line = parts[-1] if parts else ""
    return line


def normalize_lines(text: str) -> list[str]:
    return [clean_line(line) for line in text.split("\n")]
