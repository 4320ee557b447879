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


PROGRESS = r"[0-9]{1,3}%\||[0-9.]{1,12}(?:it/s|s/it)\]"
"""A progress bar (tqdm's ``45%|####``, ``3.99s/it]``): a carriage-return rewrite that is one does
not hide the text it was written over."""

_PROGRESS_RE = re.compile(PROGRESS)


def clean_line(line: str) -> str:
    """Strip ANSI codes and keep what a terminal would show after carriage-return rewrites, except
    that a progress bar written over a message keeps the message (the last part that is not one)."""
    if "\x1b" in line:
        line = _ANSI_RE.sub("", line)
    if "\r" in line:
        parts = [p for p in line.split("\r") if p]
        text = [p for p in parts if not _PROGRESS_RE.search(p)]
        line = (text or parts or [""])[-1]
    return line


def normalize_lines(text: str) -> list[str]:
    return [clean_line(line) for line in text.split("\n")]


MASKS: list[tuple[str, str, str]] = [
    # (kind, regex in the portable subset, replacement: $1 refers to group 1)
    ("private-key", r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[^\n]{0,4000}", "<private-key>"),
    ("aws-access-key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b", "<aws-key>"),
    (
        "secret-assignment",
        r"\b([A-Za-z0-9_]{0,40}(?:API_KEY|APIKEY|api_key|apikey|TOKEN|token|SECRET|secret|PASSWORD|password"
        r"|PASSWD|passwd|ACCESS_KEY|access_key)[A-Za-z0-9_]{0,20}[\"']?[ ]{0,3}[=:][ ]{0,3}[\"']?)"
        r"[^ \t\r\n\"',;]{4,}",
        "$1<secret>",
    ),
    ("bearer", r"\b([Bb]earer[ ]{1,3})[A-Za-z0-9._~+/=-]{8,}", "$1<token>"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}", "<jwt>"),
    ("hf-token", r"\bhf_[A-Za-z0-9]{20,}\b", "<hf-token>"),
    ("github-token", r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}\b", "<github-token>"),
    ("wandb-key", r"\b[0-9a-f]{40}\b", "<hex-40>"),
    (
        "url-credentials",
        r"\b([a-z][a-z0-9+.-]{1,20}://)[^/ \t\r\n:@]{1,100}(?::[^/ \t\r\n@]{0,100})?@",
        "$1<user>@",
    ),
    ("email", r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,190}\.[A-Za-z]{2,24}", "<email>"),
    (
        "windows-user",
        r"\b([A-Za-z]:[\\/]{1,2}(?:Users|users|Documents and Settings)[\\/]{1,2})[^\\/ \t\r\n\"':]{1,100}",
        "$1<user>",
    ),
    (
        "home-user",
        r"(/(?:home|Users|users|scratch|work|gpfs|lustre|nfs|data|mnt|opt/slurm/jobs|var/spool/slurmd?/job[0-9]{0,10})/)"
        r"[^/ \t\r\n:'\"]{1,100}",
        "$1<user>",
    ),
    ("root-home", r"(^|[ \t'\"=(])/root/", "$1/<home>/"),
    ("ipv6-full", r"\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b", "<ip>"),
    (
        "ipv6-compressed",
        r"\b(?:[0-9A-Fa-f]{1,4}:){1,6}(?::[0-9A-Fa-f]{1,4}){1,6}(?:%[A-Za-z0-9]{1,16})?\b",
        "<ip>",
    ),
    ("ipv6-leading", r"(^|[^0-9A-Za-z_:])::(?:[0-9A-Fa-f]{1,4}:){0,6}[0-9A-Fa-f]{1,4}\b", "$1<ip>"),
    ("ipv6-trailing", r"\b(?:[0-9A-Fa-f]{1,4}:){1,7}:([^0-9A-Za-z_:]|$)", "<ip>$1"),
    (
        "ipv4",
        r"\b(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}\b",
        "<ip>",
    ),
    (
        "nccl-host",
        r"^([ ]{0,4})[A-Za-z][A-Za-z0-9_.-]{0,100}(:[0-9]{1,10}:[0-9]{1,10} \[[0-9]{1,5}\])",
        "$1<host>$2",
    ),
    ("host-in-brackets", r"\[[A-Za-z][A-Za-z0-9.-]{0,253}\](:[0-9]{2,5})", "[<host>]$1"),
    (
        "host-after-label",
        r"\b((?:host|hostname|HOST|HOSTNAME|Host|node|nodename|MASTER_ADDR|master_addr)[ ]{0,2}[=:][ ]{0,2}[\"']?)"
        r"[A-Za-z][A-Za-z0-9-]{0,62}(?:\.[A-Za-z0-9-]{1,63}){0,8}",
        "$1<host>",
    ),
    (
        "host-name",
        r"\b[a-z][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,8}\.(?:com|net|org|io|ai|edu|gov|internal|local|lan|cluster"
        r"|corp|intra|priv|home|cloud|ec2|compute)\b",
        "<host>",
    ),
    (
        "node-name",
        r"\b(?:node|gpu|host|worker|compute|dgx|hgx|login|ip|cn|gn|nid|sh[0-9]{2}|[a-z]{2,10}-[a-z0-9]{1,10})"
        r"-?[0-9]{1,6}(?:-[A-Za-z0-9]{1,12}){0,4}\b",
        "<host>",
    ),
]
"""What is masked before a report leaves the user's machine (copied, or put in an issue link), in
order: private keys and tokens first, then user names in paths and URLs, then addresses and host
names. Times (``12:00:00``, ``[29:55<00:10``) are left alone: an IPv6 address needs ``::`` or eight
groups. Both matchers apply this one table (:func:`mask`, static/js/matcher.js ``mask``)."""


def _replacement(template: str) -> str:
    return re.sub(r"\$([0-9])", r"\\\1", template)


_MASKS = [(re.compile(regex, re.ASCII | re.MULTILINE), _replacement(repl)) for _, regex, repl in MASKS]


def mask(text: str) -> str:
    """``text`` with private details replaced by ``<kind>`` markers (see :data:`MASKS`)."""
    for rx, replacement in _MASKS:
        text = rx.sub(replacement, text)
    return text
