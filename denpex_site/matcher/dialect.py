r"""The signature dialect: readable patterns compiled to one portable, backtracking-safe regex.

A pattern is literal text with placeholders::

    Timed out waiting {int}ms for {word} operation to complete
    [enforce fail at {path}:{int}] op.preamble.length <= op.nbytes

* Literal text matches itself; a run of spaces matches any run of spaces or tabs.
* ``{{`` and ``}}`` stand for literal braces.
* Placeholders (see :data:`PLACEHOLDERS`) each match one bounded kind of token.
* ``{re:...}`` embeds raw regex from a safe subset: literals, character classes, non-capturing
  groups, alternation and quantifiers of a single character class with an upper bound of at
  most 1000. No backreferences, lookaround, anchors or nested quantifiers.

The compiled source uses only explicit character classes, so it means the same in Python ``re``
(compiled with ``re.ASCII``) and JavaScript ``RegExp`` (no flags): there is no ``\s``, ``\w``,
``\d`` or ``.`` whose meaning differs between the engines. Two quantified pieces may only stand
side by side when no character can be taken by both, so matching time is linear in the line.
"""

from __future__ import annotations

import functools
import itertools
import re

# re._parser is the standard library's own regex parser; we walk its tree to vet raw regex.
import re._constants as sre_c
import re._parser as sre_parse
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_REPEAT = 1000


MIN_LITERAL = 16
"""A pattern needs at least this many literal characters (spaces included), or it is too general."""


WS = "[ \\t]"


PLACEHOLDERS: dict[str, tuple[str, str, str]] = {
    # name: (character class, quantifier, what it matches)
    "int": ("[0-9]", "{1,20}", "a whole number, e.g. 42 (write a sign before it if one is printed)"),
    "num": ("[0-9.eE+-]", "{1,32}", "a number with optional sign, decimals or exponent, e.g. -1.5e-3"),
    "hex": ("[0-9a-fA-Fx]", "{1,40}", "a hexadecimal value, with or without 0x, e.g. 0x7f3a"),
    "word": ("[A-Za-z0-9_]", "{1,100}", "one identifier-like word, e.g. ALLREDUCE"),
    "name": ("[A-Za-z0-9_.:-]", "{1,200}", "a dotted or qualified name, e.g. module.layer.weight"),
    "path": ("[A-Za-z0-9_./\\\\~+@=-]", "{1,400}", "a file system path or file name, e.g. /opt/x/pair.cc"),
    "addr": ("[0-9A-Za-z.:_\\[\\]-]", "{1,100}", "a host, IP address or host:port, e.g. 10.0.0.3:29500"),
    "any": ("[^\\n]", "{0,200}", "any text on the same line, up to 200 characters"),
    "text": ("[^\\n]", "{0,1000}", "any text on the same line, up to 1000 characters"),
}


_PH_RE = re.compile(r"\{([a-z]+)\}")


_LITERAL_SPECIAL = set("\\^$.|?*+()[]{}")


class PatternError(ValueError):
    """A pattern that cannot be compiled; ``column`` is 1-based within the pattern."""

    def __init__(self, message: str, column: int = 1) -> None:
        super().__init__(message)
        self.column = column


@dataclass(frozen=True)
class Piece:
    regex: str
    chars: frozenset[int] | None
    """For a quantified piece: the code points (sampled) it can take; None for fixed text."""
    column: int
    literal: str = ""
    prefilter: str = ""
    """The same piece for a byte-level scan: a superset that also holds for UTF-8 bytes."""


def _lit(text: str, column: int) -> Piece:
    return Piece(_escape_literal(text), None, column, text, _escape_bytes(text))


def _rep(cls: str, lo: int, hi: int | None, column: int, variable: bool = True) -> Piece:
    """A repeated character class; its byte form allows four bytes per character where needed."""
    chars = _chars_of(cls)
    wide = any(c >= 128 for c in chars)

    def quant(low: int, high: int | None) -> str:
        if high is None:
            return "+" if low == 1 else f"{{{low},}}"
        if (low, high) == (0, 1):
            return "?"
        if (low, high) == (1, 1):
            return ""
        return f"{{{low}}}" if low == high else f"{{{low},{high}}}"

    # Scans see whole chunks of lines: a negated class must never run on into the next line.
    if cls.startswith("[^") and not cls.startswith("[^\\n"):
        cls = "[^\\n" + cls[2:]
    regex = cls + quant(lo, hi)
    # The byte scan counts bytes, up to four per character; a long bound becomes open-ended
    # there (still a superset, since no class crosses a line end, and cheaper for RE2).
    scaled = None if hi is None else hi * (4 if wide else 1)
    prefilter = cls + quant(lo, scaled if scaled is not None and scaled <= 64 else None)
    return Piece(regex, chars if variable else None, column, "", prefilter)


@dataclass(frozen=True)
class Compiled:
    pattern: str
    regex: str
    anchor: str
    """The longest literal run: every matching line contains it (used to prefilter lines)."""
    prefilter: str = ""
    """A byte-level superset of ``regex`` (UTF-8 input, one byte per character): used for fast scans."""

    def compile(self) -> re.Pattern[str]:
        return compile_regex(self.regex)


@functools.cache
def compile_regex(regex: str) -> re.Pattern[str]:
    """An emitted regex, compiled once: the build checks thousands of them against several logs,
    more than the ``re`` module's own cache holds."""
    return re.compile(regex, re.ASCII)


_SAMPLE = [*range(0, 128), 0xA0, 0xE9, 0x2028, 0x4E2D]


@lru_cache(maxsize=1024)
def _chars_of(char_class: str) -> frozenset[int]:
    rx = re.compile(char_class, re.ASCII)
    return frozenset(c for c in _SAMPLE if rx.fullmatch(chr(c)))


def _escape_literal(text: str) -> str:
    return "".join("\\" + c if c in _LITERAL_SPECIAL else c for c in text)


def _escape_bytes(text: str) -> str:
    """Literal text as a byte-level regex: non-ASCII characters become their UTF-8 bytes."""
    out = []
    for c in text:
        if ord(c) < 128:
            out.append("\\" + c if c in _LITERAL_SPECIAL else c)
        else:
            out.extend(f"\\x{b:02x}" for b in c.encode("utf-8"))
    return "".join(out)


def _tokenize(pattern: str) -> list[Piece]:
    """The pattern as pieces: runs of literal text, placeholders, raw regex and runs of spaces."""
    pieces: list[Piece] = []
    literal = ""
    literal_col = 1
    i = 0

    def flush() -> None:
        nonlocal literal
        if literal:
            pieces.append(_lit(literal, literal_col))
            literal = ""

    while i < len(pattern):
        c = pattern[i]
        escaped = pattern.startswith("{{", i) or pattern.startswith("}}", i)
        if c == "{" and not escaped:
            flush()
            i = _placeholder(pattern, i, pieces)
        elif c == "}" and not escaped:
            raise PatternError("a lone '}' must be written }}", i + 1)
        elif c in " \t":
            flush()
            j = i
            while j < len(pattern) and pattern[j] in " \t":
                j += 1
            pieces.append(_rep(WS, 1, None, i + 1))
            i = j
        elif c in "\r\n":
            raise PatternError("a pattern is one line: it must not contain a line break", i + 1)
        else:
            if not literal:
                literal_col = i + 1
            literal += c
            i += 2 if escaped else 1
    flush()
    return pieces


def _placeholder(pattern: str, i: int, pieces: list[Piece]) -> int:
    """Append the pieces of the placeholder or raw regex at ``pattern[i]``; the index after it."""
    if pattern.startswith("{re:", i):
        end, body = _raw_body(pattern, i)
        pieces.extend(_raw_pieces(body, i + 1))
        return end
    m = _PH_RE.match(pattern, i)
    if not m:
        raise PatternError("a '{' must start a placeholder like {int}; write {{ for a literal brace", i + 1)
    name = m.group(1)
    if name not in PLACEHOLDERS:
        known = ", ".join("{" + n + "}" for n in PLACEHOLDERS)
        raise PatternError(f"unknown placeholder {{{name}}}; known: {known}, {{re:...}}", i + 1)
    cls, quant, _ = PLACEHOLDERS[name]
    lo, hi = (int(x) for x in quant.strip("{}").split(","))
    pieces.append(_rep(cls, lo, hi, i + 1))
    return m.end()


def _raw_body(pattern: str, start: int) -> tuple[int, str]:
    depth = 0
    i = start
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1, pattern[start + 4 : i]
        i += 1
    raise PatternError("{re:...} is not closed", start + 1)


def _class_source(items: list[tuple[Any, Any]]) -> str:
    parts = []
    negate = False
    for op, av in items:
        if op is sre_c.LITERAL:
            parts.append(_class_char(int(av)))
        elif op is sre_c.RANGE:
            lo, hi = av
            parts.append(_class_char(lo) + "-" + _class_char(hi))
        elif op is sre_c.NEGATE:
            negate = True
        elif op is sre_c.CATEGORY and av in _CATEGORY_CLASS:
            parts.append(_CATEGORY_CLASS[av])
        else:
            raise PatternError(
                "in {re:...} a character class may hold ASCII characters, ranges, \\d, \\w and \\s"
            )
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


_CATEGORY_CLASS = {
    sre_c.CATEGORY_DIGIT: "0-9",
    sre_c.CATEGORY_WORD: "A-Za-z0-9_",
    sre_c.CATEGORY_SPACE: " \\t\\r\\f\\v",
}


def _class_char(code: int) -> str:
    if code > 126:
        raise PatternError("in {re:...} a character class may only hold ASCII characters")
    c = chr(code)
    if c in "\\]^-[":
        return "\\" + c
    return f"\\x{code:02x}" if code < 32 or code == 127 else c


def _raw_pieces(body: str, column: int) -> list[Piece]:
    try:
        tree = sre_parse.parse(body, re.ASCII)
        return _emit(list(tree), column)
    except re.error as exc:
        raise PatternError(f"raw regex does not compile: {exc}", column) from exc
    except PatternError as exc:
        raise PatternError(str(exc), column) from exc


def _single_class(op: Any, av: Any) -> str | None:
    """Source of a class for a one-character item, or None if the item is not one character."""
    if op is sre_c.NOT_LITERAL:
        return "[^" + _class_char(av) + "]"
    if op is sre_c.ANY:
        return "[^\\n]"
    if op is sre_c.IN:
        return _class_source(list(av))
    if op is sre_c.LITERAL:
        return "[" + _class_char(av) + "]" if av < 128 else None
    return None


def _emit(items: list[tuple[Any, Any]], column: int) -> list[Piece]:
    pieces: list[Piece] = []
    for op, av in items:
        if op is sre_c.LITERAL:
            pieces.append(_lit(chr(av), column))
        elif (one := _single_class(op, av)) is not None:
            pieces.append(_rep(one, 1, 1, column, variable=False))
        elif op in (sre_c.MAX_REPEAT, sre_c.POSSESSIVE_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, body = av
            body = list(body)
            if op is not sre_c.MAX_REPEAT:
                raise PatternError("lazy and possessive quantifiers are not allowed in {re:...}", column)
            if hi is sre_c.MAXREPEAT or hi > MAX_REPEAT:
                raise PatternError(
                    f"unbounded quantifier in {{re:...}}: give an upper bound of at most {MAX_REPEAT}, e.g. {{1,200}}",
                    column,
                )
            cls = _single_class(*body[0]) if len(body) == 1 else None
            if cls is None:
                raise PatternError(
                    "nested quantifier: in {re:...} only a single character class may repeat", column
                )
            pieces.append(_rep(cls, lo, hi, column, variable=lo != hi))
        elif op is sre_c.SUBPATTERN:
            _group, _add, _del, sub = av
            pieces.append(_group_piece([_emit(list(sub), column)], column))
        elif op is sre_c.BRANCH:
            _, branches = av
            pieces.append(_group_piece([_emit(list(b), column) for b in branches], column))
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            raise PatternError("lookaround is not allowed in {re:...}", column)
        elif op in (sre_c.GROUPREF, sre_c.GROUPREF_EXISTS):
            raise PatternError("backreferences are not allowed in {re:...}", column)
        elif op is sre_c.AT:
            raise PatternError("anchors (^, $, \\b) are not allowed in {re:...}", column)
        else:
            raise PatternError(f"unsupported construct in {{re:...}}: {op}", column)
    return pieces


def _piece_chars(p: Piece) -> frozenset[int]:
    return p.chars if p.chars is not None else frozenset(ord(c) for c in p.literal) or _chars_of(p.regex)


def _group_piece(branches: list[list[Piece]], column: int) -> Piece:
    for branch in branches:
        _check_adjacent(branch)
    variable = len(branches) > 1 or any(p.chars is not None for b in branches for p in b)
    chars = frozenset().union(*(_piece_chars(p) for b in branches for p in b)) if variable else None
    regex = "(?:" + "|".join("".join(p.regex for p in b) for b in branches) + ")"
    prefilter = "(?:" + "|".join("".join(p.prefilter for p in b) for b in branches) + ")"
    literal = branches[0][0].literal if len(branches) == 1 and len(branches[0]) == 1 else ""
    return Piece(regex, chars, column, literal if not variable else "", prefilter)


_PRINTABLE = frozenset(range(0x20, 0x7F))


def _takes_any_text(p: Piece) -> bool:
    """A part that can take any printable text of more than one character ({any}, {text}, a broad {re:})."""
    return p.chars is not None and p.chars >= _PRINTABLE and p.regex.endswith(("}", "+", "*"))


def _check_one_wide(pieces: list[Piece]) -> None:
    """At most one part may take any text. With one, a backtracking engine tries each of its lengths
    once per start; with two or more, those tries multiply, and a crafted line of repeated literal
    text makes matching take time that grows with a power of the line's length."""
    wide = [p for p in pieces if _takes_any_text(p)]
    if len(wide) > 1:
        raise PatternError(
            "a pattern may hold only one part that takes any text ({any}, {text} or as broad a {re:...}): "
            "use a narrower placeholder for the others ({word}, {name}, {path}, {int}, or {re:[^)]{1,80}} "
            "up to the character that ends the part)",
            wide[1].column,
        )


def _check_adjacent(pieces: list[Piece]) -> None:
    for a, b in itertools.pairwise(pieces):
        if a.chars is not None and b.chars is not None and a.chars & b.chars:
            raise PatternError(
                "ambiguous: two variable-length parts stand side by side and can take the same characters "
                "(put literal text between them)",
                b.column,
            )


_WS_CHARS = frozenset({9, 32})


COMMON_WORDS = frozenset(
    w.lower()
    for w in (
        "RuntimeError:",
        "RuntimeError",
        "ValueError:",
        "TypeError:",
        "Traceback",
        "Exception",
        "Error:",
        "error:",
        "distributed",
        "torch.distributed",
        "ProcessGroupNCCL.cpp",
        "process",
        "processes",
        "parameters",
        "Parameter",
        "Parameters",
        "training",
        "warning",
        "UserWarning:",
        "FutureWarning:",
        "operation",
        "expected",
        "Expected",
        "failed",
        "timeout",
        "because",
        "following",
        "default",
        "checkpoint",
        "checkpoint.py",
        "loading",
        "saving",
        "model",
        "module",
        "tensor",
        "tensors",
        "device",
        "worker",
        "workers",
        "memory",
        "epoch",
        "batch",
        "step",
        "loss",
        "torch",
        "cuda",
        "NCCL",
        "INFO",
        "WARNING",
        "dataloader",
        "DataLoader",
        "training",
        "train.py",
        "shape",
        "state_dict",
        "gradient",
        "gradients",
        "optimizer",
        "learning",
    )
)
"""Words that fill healthy logs too: a signature's anchor is another of its words where it has one."""


def _fold_spaces(pieces: list[Piece]) -> list[Piece]:
    """A space run next to a part that can also take spaces matches exactly one space or tab.

    ``foo {any} bar`` then stays unambiguous: the placeholder absorbs any further spaces.
    """
    out = list(pieces)
    for i, p in enumerate(pieces):
        if p.regex != WS + "+":
            continue
        neighbours = [
            q for q in (pieces[i - 1] if i else None, pieces[i + 1] if i + 1 < len(pieces) else None) if q
        ]
        if any(q.chars is not None and q.chars & _WS_CHARS for q in neighbours if q.regex != WS + "+"):
            out[i] = _rep(WS, 1, 1, p.column, variable=False)
    return out


@functools.lru_cache(maxsize=16384)
def compile_pattern(pattern: str) -> Compiled:
    """Compile one dialect pattern, or raise :class:`PatternError` explaining what is wrong."""
    if pattern != pattern.strip():
        raise PatternError("a pattern must not start or end with spaces", 1)
    pieces = _fold_spaces(_tokenize(pattern))
    if pieces and pieces[0].chars is not None and pieces[0].regex.startswith("[^\\n]"):
        raise PatternError("ambiguous: a leading {any}/{text} adds nothing (matching searches the line)", 1)
    if pieces and pieces[-1].chars is not None and pieces[-1].regex.startswith("[^\\n]"):
        raise PatternError(
            "ambiguous: a trailing {any}/{text} adds nothing (matching searches the line)", pieces[-1].column
        )
    _check_adjacent(pieces)
    _check_one_wide(pieces)
    literal_total = sum(len(p.literal) for p in pieces if p.chars is None)
    literal_total += sum(1 for p in pieces if p.regex in (WS + "+", WS))
    if literal_total < MIN_LITERAL:
        raise PatternError(
            f"too general: only {literal_total} literal characters; at least {MIN_LITERAL} are needed",
            1,
        )
    merged: list[str] = []
    prev_literal = False
    for p in pieces:
        is_lit = p.chars is None and bool(p.literal)
        if is_lit and prev_literal:
            merged[-1] += p.literal
        elif is_lit:
            merged.append(p.literal)
        prev_literal = is_lit
    anchor = max(
        merged or [""], key=lambda word: (len(word) >= 6 and word.lower() not in COMMON_WORDS, len(word))
    )
    if len(anchor) < 4:
        raise PatternError("too general: the pattern needs a literal word of at least 4 characters", 1)
    regex = "".join(p.regex for p in pieces)
    try:
        compile_regex(regex)
    except re.error as exc:  # pragma: no cover - the emitter only produces valid regex
        raise PatternError(f"internal: emitted regex does not compile: {exc}") from exc
    return Compiled(pattern, regex, anchor, "".join(p.prefilter for p in pieces))
