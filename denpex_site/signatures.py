"""The signature dialect: readable patterns compiled to one portable, backtracking-safe regex.

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
(compiled with ``re.ASCII``) and JavaScript ``RegExp`` (no flags): there is no ``\\s``, ``\\w``,
``\\d`` or ``.`` whose meaning differs between the engines. Two quantified pieces may only stand
side by side when no character can be taken by both, so matching time is linear in the line.
"""

from __future__ import annotations

import itertools
import re

# re._parser is the standard library's own regex parser; we walk its tree to vet raw regex.
import re._constants as sre_c  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
from dataclasses import dataclass

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
_LITERAL_SPECIAL = set("\\^$.|?*+()[]{}/")


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


@dataclass(frozen=True)
class Compiled:
    pattern: str
    regex: str
    anchor: str
    """The longest literal run: every matching line contains it (used to prefilter lines)."""

    def compile(self) -> re.Pattern[str]:
        return re.compile(self.regex, re.ASCII)


_SAMPLE = [*range(0, 128), 0xA0, 0xE9, 0x2028, 0x4E2D]


def _chars_of(char_class: str) -> frozenset[int]:
    rx = re.compile(char_class, re.ASCII)
    return frozenset(c for c in _SAMPLE if rx.fullmatch(chr(c)))


def _escape_literal(text: str) -> str:
    return "".join("\\" + c if c in _LITERAL_SPECIAL else c for c in text)


def _tokenize(pattern: str) -> list[Piece]:
    pieces: list[Piece] = []
    literal = ""
    literal_col = 1
    i = 0

    def flush() -> None:
        nonlocal literal
        if literal:
            pieces.append(Piece(_escape_literal(literal), None, literal_col, literal))
            literal = ""

    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("{{", i) or pattern.startswith("}}", i):
            if not literal:
                literal_col = i + 1
            literal += c
            i += 2
        elif c == "{":
            flush()
            if pattern.startswith("{re:", i):
                end, body = _raw_body(pattern, i)
                pieces.extend(_raw_pieces(body, i + 1))
                i = end
                continue
            m = _PH_RE.match(pattern, i)
            if not m:
                raise PatternError(
                    "a '{' must start a placeholder like {int}; write {{ for a literal brace", i + 1
                )
            name = m.group(1)
            if name not in PLACEHOLDERS:
                known = ", ".join("{" + n + "}" for n in PLACEHOLDERS)
                raise PatternError(f"unknown placeholder {{{name}}}; known: {known}, {{re:...}}", i + 1)
            cls, quant, _ = PLACEHOLDERS[name]
            pieces.append(Piece(cls + quant, _chars_of(cls), i + 1))
            i = m.end()
        elif c == "}":
            raise PatternError("a lone '}' must be written }}", i + 1)
        elif c in " \t":
            flush()
            j = i
            while j < len(pattern) and pattern[j] in " \t":
                j += 1
            pieces.append(Piece(WS + "+", _chars_of(WS), i + 1))
            i = j
        elif c in "\r\n":
            raise PatternError("a pattern is one line: it must not contain a line break", i + 1)
        else:
            if not literal:
                literal_col = i + 1
            literal += c
            i += 1
    flush()
    return pieces


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


def _class_source(items: list[tuple[object, object]], negate: bool = False) -> str:
    parts = []
    for op, av in items:
        if op is sre_c.LITERAL:
            parts.append(_class_char(int(av)))  # type: ignore[call-overload]
        elif op is sre_c.RANGE:
            lo, hi = av  # type: ignore[misc]
            parts.append(_class_char(lo) + "-" + _class_char(hi))
        elif op is sre_c.NEGATE:
            negate = True
        elif op is sre_c.CATEGORY:
            parts.append(_CATEGORY_CLASS[av])  # type: ignore[index]
        else:
            raise PatternError(f"unsupported item in a character class: {op}")
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


_CATEGORY_CLASS = {
    sre_c.CATEGORY_DIGIT: "0-9",
    sre_c.CATEGORY_NOT_DIGIT: "\\x00-\\x2f\\x3a-\\uffff",
    sre_c.CATEGORY_WORD: "A-Za-z0-9_",
    sre_c.CATEGORY_SPACE: " \\t\\n\\r\\f\\v",
}


def _class_char(code: int) -> str:
    c = chr(code)
    if c in "\\]^-[":
        return "\\" + c
    if code < 32 or code > 126:
        return f"\\u{code:04x}" if code <= 0xFFFF else c
    return c


def _raw_pieces(body: str, column: int) -> list[Piece]:
    try:
        tree = sre_parse.parse(body, re.ASCII)
    except re.error as exc:
        raise PatternError(f"raw regex does not compile: {exc}", column) from exc
    return _emit(list(tree), column)


def _single_class(op: object, av: object) -> str | None:
    """Source of a one-character item, or None if the item is not a single character."""
    if op is sre_c.LITERAL:
        return _escape_literal(chr(av))  # type: ignore[arg-type]
    if op is sre_c.NOT_LITERAL:
        return "[^" + _class_char(av) + "]"  # type: ignore[arg-type]
    if op is sre_c.ANY:
        return "[^\\n]"
    if op is sre_c.IN:
        return _class_source(list(av))  # type: ignore[call-overload]
    return None


def _emit(items: list[tuple[object, object]], column: int) -> list[Piece]:
    pieces: list[Piece] = []
    for op, av in items:
        one = _single_class(op, av)
        if one is not None:
            lit = chr(av) if op is sre_c.LITERAL else ""  # type: ignore[arg-type]
            pieces.append(Piece(one, None, column, lit))
        elif op in (sre_c.MAX_REPEAT, sre_c.POSSESSIVE_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, body = av  # type: ignore[misc]
            body = list(body)
            if op is not sre_c.MAX_REPEAT:
                raise PatternError("lazy and possessive quantifiers are not allowed in {re:...}", column)
            if hi is sre_c.MAXREPEAT or hi > MAX_REPEAT:
                raise PatternError(
                    f"unbounded quantifier in {{re:...}}: give an upper bound of at most {MAX_REPEAT}, e.g. {{1,200}}",
                    column,
                )
            if len(body) != 1 or _single_class(*body[0]) is None:
                raise PatternError(
                    "nested quantifier: in {re:...} only a single character class may repeat", column
                )
            cls = _single_class(*body[0])
            assert cls is not None
            quant = "?" if (lo, hi) == (0, 1) else (f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}")
            fixed = lo == hi
            pieces.append(Piece(cls + quant, None if fixed else _chars_of(cls), column))
        elif op is sre_c.SUBPATTERN:
            _group, _add, _del, sub = av  # type: ignore[misc]
            inner = _emit(list(sub), column)
            pieces.append(_group_piece([inner], column))
        elif op is sre_c.BRANCH:
            _, branches = av  # type: ignore[misc]
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


def _group_piece(branches: list[list[Piece]], column: int) -> Piece:
    for branch in branches:
        _check_adjacent(branch)
    chars: set[int] = set()
    variable = False
    for branch in branches:
        for p in branch:
            if p.chars is not None:
                variable = True
                chars |= p.chars
    if variable or len(branches) > 1:
        # A group that can vary in length takes part in the adjacency rule as a whole.
        for branch in branches:
            for p in branch:
                chars |= p.chars if p.chars is not None else _chars_of(p.regex)
    src = "(?:" + "|".join("".join(p.regex for p in b) for b in branches) + ")"
    return Piece(src, frozenset(chars) if (variable or len(branches) > 1) else None, column)


def _check_adjacent(pieces: list[Piece]) -> None:
    for a, b in itertools.pairwise(pieces):
        if a.chars is not None and b.chars is not None and a.chars & b.chars:
            raise PatternError(
                "ambiguous: two variable-length parts stand side by side and can take the same characters "
                "(put literal text between them)",
                b.column,
            )


def compile_pattern(pattern: str) -> Compiled:
    """Compile one dialect pattern, or raise :class:`PatternError` explaining what is wrong."""
    if pattern != pattern.strip():
        raise PatternError("a pattern must not start or end with spaces", 1)
    pieces = _tokenize(pattern)
    if pieces and pieces[0].chars is not None and pieces[0].regex.startswith("[^\\n]"):
        raise PatternError("ambiguous: a leading {any}/{text} adds nothing (matching searches the line)", 1)
    if pieces and pieces[-1].chars is not None and pieces[-1].regex.startswith("[^\\n]"):
        raise PatternError(
            "ambiguous: a trailing {any}/{text} adds nothing (matching searches the line)", pieces[-1].column
        )
    _check_adjacent(pieces)
    literal_total = sum(len(p.literal) for p in pieces if p.chars is None)
    literal_total += sum(1 for p in pieces if p.regex == WS + "+")
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
    anchor = max(merged or [""], key=len)
    if len(anchor) < 4:
        raise PatternError("too general: the pattern needs a literal word of at least 4 characters", 1)
    regex = "".join(p.regex for p in pieces)
    try:
        re.compile(regex, re.ASCII)
    except re.error as exc:  # pragma: no cover - the emitter only produces valid regex
        raise PatternError(f"internal: emitted regex does not compile: {exc}") from exc
    return Compiled(pattern, regex, anchor)


def placeholder_help() -> list[tuple[str, str]]:
    return [("{" + name + "}", desc) for name, (_, _, desc) in PLACEHOLDERS.items()]
