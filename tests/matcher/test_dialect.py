"""The signature dialect (denpex_site.matcher.dialect): what each construct matches, and every
pattern it refuses, with the message and column it gives."""

from __future__ import annotations

import re

import pytest

from denpex_site.matcher.dialect import PLACEHOLDERS, PatternError, compile_pattern

PREFIX = "Watchdog caught collective timeout "
"""Literal text that makes a pattern specific enough, so each case tests only its own construct."""


def matches(pattern: str, line: str) -> bool:
    compiled = compile_pattern(pattern)
    return compiled.compile().search(line) is not None


@pytest.mark.parametrize(
    ("placeholder", "good", "bad"),
    [
        ("int", "42", "x"),
        ("num", "-1.5e-3", "x"),
        ("hex", "0x7f3a", "zz"),
        ("word", "ALLREDUCE_2", "-"),
        ("name", "module.layer.weight", "/"),
        ("path", "/opt/x/pair.cc", '"'),
        ("addr", "10.0.0.3:29500", "!"),
    ],
)
def test_each_placeholder_matches_its_kind_of_token(placeholder: str, good: str, bad: str) -> None:
    assert placeholder in PLACEHOLDERS
    pattern = f"{PREFIX}{{{placeholder}}} end"
    assert matches(pattern, f"{PREFIX}{good} end")
    assert not matches(pattern, f"{PREFIX}{bad} end")


def test_any_and_text_take_any_text_up_to_their_bound() -> None:
    assert matches(PREFIX + "{any} end", PREFIX + "x" * 200 + " end")
    assert not matches(PREFIX + "{any} end", PREFIX + "x" * 201 + " end")
    assert matches(PREFIX + "{text} end", PREFIX + "x" * 1000 + " end")
    assert not matches(PREFIX + "{text} end", PREFIX + "x" * 1001 + " end")


def test_spaces_match_runs_of_spaces_and_tabs() -> None:
    assert matches(
        "Watchdog caught collective operation timeout", "Watchdog  caught\tcollective operation timeout"
    )
    assert not matches(
        "Watchdog caught collective operation timeout", "Watchdogcaught collective operation timeout"
    )


def test_literal_text_is_literal_and_double_braces_are_braces() -> None:
    assert matches(PREFIX + "a.b*c (x) [y] {{z}}", PREFIX + "a.b*c (x) [y] {z}")
    assert not matches(PREFIX + "a.b*c", PREFIX + "aXbbbc")


def test_raw_regex_from_the_safe_subset() -> None:
    pattern = PREFIX + "{re:(?:ALLREDUCE|BROADCAST)} op {re:[0-9]{2,4}}"
    assert matches(pattern, PREFIX + "BROADCAST op 123")
    assert not matches(pattern, PREFIX + "GATHER op 123")
    assert not matches(pattern, PREFIX + "ALLREDUCE op 1")


def test_compiled_regex_uses_only_explicit_classes() -> None:
    """No \\s, \\w, \\d or . whose meaning differs between Python and JavaScript."""
    regex = compile_pattern(PREFIX + "{int} {word} {name} {path} {addr} {hex} {num} {any} end").regex
    outside_classes = re.sub(r"\[(?:\\.|[^\]])*\]", "", regex).replace("\\.", "")
    assert not re.search(r"\\[swdSWDb]", regex), regex
    assert "." not in outside_classes, regex


@pytest.mark.parametrize(
    ("pattern", "message", "column"),
    [
        (PREFIX + "{re:(a)\\1}", "backreferences are not allowed", 36),
        (PREFIX + "{re:(?=a)b}", "lookaround is not allowed", 36),
        (PREFIX + "{re:^a}", "anchors (^, $, \\b) are not allowed", 36),
        (PREFIX + "{re:[a-z]+}", "unbounded quantifier", 36),
        (PREFIX + "{re:(?:ab){1,5}}", "nested quantifier", 36),
        (PREFIX + "{re:[a-z]{1,5}?}", "lazy and possessive quantifiers are not allowed", 36),
        (PREFIX + "{re:[a-z]{1,5000}}", "upper bound of at most", 36),
        (PREFIX + "{re:[a-zé]{1,3}}", "only hold ASCII characters", 36),
        (PREFIX + "{re:[a-z]{1,3}", "{re:...} is not closed", 36),
        (PREFIX + "{nope}", "unknown placeholder {nope}", 36),
        (PREFIX + "a } b", "a lone '}' must be written }}", 38),
        ("{any} " + PREFIX.strip(), "a leading {any}/{text} adds nothing", 1),
        (PREFIX + "{text}", "a trailing {any}/{text} adds nothing", 36),
        (PREFIX + "{word}{int}", "two variable-length parts stand side by side", 42),
        (PREFIX + "{any}a{any} end", "only one part that takes any text", 42),
        (" " + PREFIX.strip(), "must not start or end with spaces", 1),
        ("short {int} text", "too general: only", 1),
        ("ab cd ef gh ij kl mn op {int}", "needs a literal word of at least 4 characters", 1),
        (PREFIX + "line\nbreak", "must not contain a line break", 40),
    ],
)
def test_refused_patterns_say_why_and_where(pattern: str, message: str, column: int) -> None:
    with pytest.raises(PatternError) as info:
        compile_pattern(pattern)
    assert message in str(info.value), str(info.value)
    assert info.value.column == column, (str(info.value), info.value.column)
