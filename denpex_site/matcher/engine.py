"""The compiled signature set: a prefilter scan over bytes and the exact regex per signature.

One byte-level scan with every signature's prefilter (RE2 when google-re2 is installed, else the
standard library) finds the few candidate lines; only those are decoded, cleaned (ANSI codes,
carriage-return rewrites) and checked against each signature with the exact regex, which means
the same in Python and JavaScript.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from denpex_site.errors import BundleError
from denpex_site.matcher.bundle import BUNDLE_VERSION
from denpex_site.matcher.decisive import Rules
from denpex_site.matcher.dialect import compile_regex
from denpex_site.matcher.normalise import MONTHS, clean_line

try:  # RE2 scans bytes in linear time, many times faster than `re` for one big alternation.
    import re2
except ImportError:  # pragma: no cover - exercised where google-re2 is missing
    re2 = None


MAX_LINE = 65536
"""Characters of a line that are looked at; the rest of a longer line is ignored."""
TRACEBACK = "Traceback (most recent call last)"
"""What opens a traceback: Python's header, IPython's (``ValueError   Traceback (most recent call last)``)
and Rich's box title."""


def normalise_time(date: str, clock: str) -> str:
    """A sortable 'MMDD HH:MM:SS.ffffff' from a glog 'MMDD', an ISO 'YYYY-MM-DD' or a syslog 'Nov 30' date."""
    if "-" in date:
        mmdd = date[5:7] + date[8:10]
    elif date[:1].isalpha():
        mmdd = f"{MONTHS.index(date[:3]) // 3 + 1:02d}{date[3:].strip().zfill(2)}"
    else:
        mmdd = date.zfill(4)
    hms, _, frac = clock.replace(",", ".").partition(".")
    return f"{mmdd} {hms}.{(frac + '000000')[:6]}"


@dataclass
class Rule:
    entry: str
    index: int
    role: str
    weight: float
    anchor: str
    regex: re.Pattern[str]
    raised_in: str | None = None
    """Only an exception raised in this library or module path counts (see Rules.raised_by)."""
    context: int | None = None
    """Only a line inside a traceback that also holds a line of this context (an index into
    ``Engine.contexts``) counts."""


@dataclass(frozen=True)
class Context:
    """A line that a signature requires in the same traceback (its ``traceback_has``)."""

    anchor: str
    regex: re.Pattern[str]


def _re2_options() -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.max_mem = 512 << 20
    return options


class Engine:
    """Compiled signatures and normalisation rules, reusable across many logs."""

    def __init__(self, bundle: dict[str, Any]) -> None:
        if bundle.get("schema_version") != BUNDLE_VERSION:
            raise BundleError(f"unsupported signature bundle version {bundle.get('schema_version')!r}")
        self.entries: dict[str, dict[str, Any]] = bundle["entries"]
        norm = bundle["normalize"]
        self.ansi_bytes = re.compile(norm["ansi"].encode())
        self.prefixes = [re.compile(p["regex"], re.ASCII) for p in norm["rank_prefixes"]]
        self.stamps = [re.compile(t["regex"], re.ASCII) for t in norm["timestamps"]]
        self.decisive = Rules.compile(norm["decisive"])
        self.hang_rules: dict[str, Any] = norm["hang"]
        self.hang_anchors: list[str] = list(self.hang_rules["anchors"])
        self.line_anchors = [*self.decisive.anchors, *self.hang_anchors]
        """Words of the lines read beside the signatures' candidates: decisive-line and hang rules."""
        self.line_anchor_bytes = re.compile("|".join(re.escape(a) for a in self.line_anchors).encode())
        contexts: dict[str, int] = {}
        context_prefilters: list[str] = []
        self.contexts: list[Context] = []
        self.rules = []
        for s in bundle["signatures"]:
            context = None
            if "traceback_has" in s:
                ctx = s["traceback_has"]
                if ctx["regex"] not in contexts:
                    contexts[ctx["regex"]] = len(self.contexts)
                    self.contexts.append(Context(ctx["anchor"], compile_regex(ctx["regex"])))
                    context_prefilters.append(ctx["prefilter"])
                context = contexts[ctx["regex"]]
            self.rules.append(
                Rule(
                    s["entry"],
                    s["index"],
                    s["role"],
                    float(s["weight"]),
                    s["anchor"],
                    compile_regex(s["regex"]),
                    s.get("raised_in"),
                    context,
                )
            )
        self.prefilters = [s["prefilter"] for s in bundle["signatures"]] + context_prefilters
        self.rule_set = None
        if re2 is not None:
            # Which signatures a candidate line may match, found in one pass over the line.
            self.rule_set = re2.Set.SearchSet(_re2_options())
            for prefilter in self.prefilters:
                self.rule_set.Add(prefilter.encode())
            self.rule_set.Compile()

    @functools.cached_property
    def scan_re(self) -> Any:
        """One regex for every signature's prefilter, the traceback header and the anchors of the
        decisive-line rules: a search over a big
        chunk stops only at candidate lines. Compiled when a chunk first needs it (the checks of a
        build only read small logs, which ask ``rule_set`` line by line)."""
        literal = [re.escape(a) for a in [TRACEBACK, *self.line_anchors]]
        combined = "|".join(f"(?:{a})" for a in [*self.prefilters, *literal]).encode()
        return re2.compile(combined, _re2_options()) if re2 is not None else re.compile(combined)

    def candidates(self, line: str) -> tuple[list[Rule], list[int]]:
        """The rules and the contexts worth checking on a cleaned line, in bundle order."""
        if self.rule_set is None:
            return self.rules, list(range(len(self.contexts)))
        hits = self.rule_set.Match(line.encode("utf-8", "surrogatepass"))
        if not hits:
            return [], []
        n = len(self.rules)
        found = sorted(hits)
        return [self.rules[i] for i in found if i < n], [i - n for i in found if i >= n]

    # -- one line -------------------------------------------------------------------------------

    def clean(self, line: str) -> str:
        """The first MAX_LINE characters of a line, cleaned as every check sees lines."""
        return clean_line(line[:MAX_LINE])

    def prefix(self, line: str) -> tuple[int | None, str]:
        for rx in self.prefixes:
            m = rx.match(line)
            if m:
                return int(m.group(1)), line[m.end() :]
        return None, line

    def stamp(self, rest: str) -> str | None:
        for rx in self.stamps:
            m = rx.match(rest)
            if m:
                return normalise_time(m.group(1), m.group(2))
        return None
