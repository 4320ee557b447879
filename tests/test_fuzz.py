"""Property-based fuzzing (Hypothesis) of the three parsers that read untrusted text: the YAML
loader, the pattern dialect and the log matcher's input. None may raise anything but the
project's own errors. The examples are derived from a fixed seed, so CI runs the same cases;
bench/fuzz.py runs many more with random seeds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from denpex_site.content.documents import read_yaml
from denpex_site.errors import Problems
from denpex_site.matcher.diagnosis import Diagnosis
from denpex_site.matcher.dialect import PatternError, compile_pattern
from denpex_site.matcher.engine import Engine
from denpex_site.matcher.normalise import mask, normalize_lines

EXAMPLES = int(os.environ.get("DENPEX_FUZZ_EXAMPLES", "200"))
FIXED = settings(
    max_examples=EXAMPLES,
    derandomize=os.environ.get("DENPEX_FUZZ_RANDOM") != "1",
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

YAML_ATOMS = st.sampled_from(
    [
        "a: 1\n",
        "- x\n",
        "  ",
        "\t",
        "&a ",
        "*a ",
        "<<: *a\n",
        "{",
        "}",
        "[",
        "]",
        '"',
        "'",
        "\\",
        ":",
        "#",
        "\n",
        "!!python/object ",
        "? ",
        "|\n",
        ">-\n",
        "TODO",
        "\x00",
        "\x1b",
        "é",
        "\ufeff",
        "%YAML 1.2\n",
        "---\n",
        "...",
    ]
)
yaml_text = st.lists(YAML_ATOMS | st.text(max_size=5), max_size=40).map("".join)

PATTERN_ATOMS = st.sampled_from(
    [
        "{int}",
        "{num}",
        "{hex}",
        "{word}",
        "{name}",
        "{path}",
        "{addr}",
        "{any}",
        "{text}",
        "{{",
        "}}",
        "{",
        "}",
        "{re:",
        "[a-z]",
        "{1,5}",
        "(?:",
        "|",
        ")",
        "\\1",
        "(?=",
        "^",
        "$",
        "*",
        "+",
        "?",
        " ",
        "\t",
        "Error: ",
        "CUDA",
    ]
)
pattern_text = st.lists(PATTERN_ATOMS | st.text(max_size=4), max_size=25).map("".join)

LOG_ATOMS = st.sampled_from(
    [
        b"\n",
        b"\r",
        b"\r\n",
        b"\x1b[31m",
        b"\x1b]0;t\x07",
        b"\x00",
        b"\xff\xfe",
        b"\xef\xbb\xbf",
        b"\xe9",
        b"[rank3]: ",
        b"E1201 12:00:00.123456 1 x.cpp:1] ",
        b"Traceback (most recent call last):\n",
        b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
        b"\t",
        b'  File "x.py", line 1\n',
    ]
)
log_bytes = st.lists(LOG_ATOMS | st.binary(max_size=8), max_size=60).map(b"".join)


@FIXED
@given(text=yaml_text)
def test_yaml_loader_reports_or_loads(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("y") / "entry.yaml"
    try:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    except UnicodeEncodeError:
        return
    problems = Problems(path.parent)
    doc = read_yaml(path, problems)
    assert (doc is None) == bool(problems) or doc is not None
    for problem in problems.sorted():
        assert problem.line >= 1 and problem.col >= 1 and "\x1b" not in problem.text()


@FIXED
@given(pattern=pattern_text)
def test_dialect_compiles_or_explains(pattern: str) -> None:
    try:
        compiled = compile_pattern(pattern)
    except PatternError as exc:
        assert exc.column >= 1 and str(exc)
        return
    compiled.compile().search(pattern)


@pytest.fixture(scope="module")
def engine(real_site: Path) -> Engine:
    import json

    return Engine(json.loads((real_site / "api/signatures.json").read_text()))


@FIXED
@given(data=log_bytes)
def test_log_input_never_raises(engine: Engine, data: bytes) -> None:
    diagnosis = Diagnosis(engine)
    diagnosis.add_text(data.decode("utf-8", "replace"), "fuzz.log")
    from denpex_site.matcher.diagnosis import _BytesReader

    diagnosis.add_stream(_BytesReader(data), "fuzz-bytes.log", len(data))
    result = diagnosis.result()
    assert len(result["files"]) == 2
    for line in normalize_lines(data.decode("utf-8", "replace")):
        assert "\n" not in line
    mask(data.decode("utf-8", "replace"))
