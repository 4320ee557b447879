"""Signatures that require context: ``raised_in`` (the library or module path of the frame that
raised) and ``traceback_has`` (a line above in the same traceback), in both matchers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from denpex_site.matcher.diagnosis import Diagnosis
from denpex_site.matcher.dialect import compile_pattern
from denpex_site.matcher.engine import Engine

from .test_matcher import node_results

IMPORT = "ImportError: cannot import name 'Cache' from 'transformers' (/env/site-packages/transformers/__init__.py)"
INDEX = "IndexError: list index out of range"


def frame(path: str, line: int = 10, fn: str = "f") -> str:
    return f'  File "{path}", line {line}, in {fn}'


def signature(entry: str, pattern: str, **context: str) -> dict:
    comp = compile_pattern(pattern)
    record = {
        "entry": entry,
        "index": 0,
        "role": "root-cause",
        "weight": 10,
        "pattern": pattern,
        "regex": comp.regex,
        "prefilter": comp.prefilter,
        "anchor": comp.anchor,
        "source": "test",
    }
    if "raised_in" in context:
        record["raised_in"] = context["raised_in"]
    if "traceback_has" in context:
        ctx = compile_pattern(context["traceback_has"])
        record["traceback_has"] = {"regex": ctx.regex, "prefilter": ctx.prefilter, "anchor": ctx.anchor}
    return record


@pytest.fixture(scope="module")
def bundle(real_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real bundle's rules with three signatures that require context."""
    real = json.loads((real_site / "api/signatures.json").read_text())
    meta = {"title": "t", "category": "c", "severity": "high", "silent": False, "systems": []}
    meta |= {"cause": "c", "fix": "f", "confirm": "s"}
    signatures = [
        signature(
            "peft-import", "ImportError: cannot import name 'Cache' from 'transformers'", raised_in="peft"
        ),
        signature(
            "arch-list",
            INDEX,
            raised_in="torch/utils/cpp_extension.py",
            traceback_has="arch_list[-1] += '+PTX'",
        ),
    ]
    data = {**real, "entries": {s["entry"]: meta for s in signatures}, "signatures": signatures}
    path = tmp_path_factory.mktemp("context") / "bundle.json"
    path.write_text(json.dumps(data))
    return path


PEFT = "/home/u/env/lib/python3.11/site-packages/peft/import_utils.py"
DIFFUSERS = "/home/u/env/lib/python3.11/site-packages/diffusers/utils/import_utils.py"
EXT = "/home/u/env/lib/python3.11/site-packages/torch/utils/cpp_extension.py"
TB = "Traceback (most recent call last):"

CASES = {
    "raised-in-the-library": (
        [TB, frame("train.py"), frame(PEFT), "    from transformers import Cache", IMPORT],
        "peft-import",
    ),
    "raised-in-another-library": ([TB, frame("train.py"), frame(DIFFUSERS), IMPORT], None),
    "no-traceback": (["loading model", IMPORT], None),
    "library-in-an-earlier-frame-only": ([TB, frame(PEFT), frame(DIFFUSERS), IMPORT], None),
    "windows-path": (
        [TB, frame(PEFT.replace("/", "\\").replace("\\home", "C:\\Users")), IMPORT],
        "peft-import",
    ),
    "source-checkout": ([TB, frame("/home/u/src/peft/src/peft/tuners/lora.py"), IMPORT], "peft-import"),
    "flattened-on-one-line": (
        [f"{TB} {frame('train.py').strip()} {frame(PEFT).strip()} {IMPORT}"],
        "peft-import",
    ),
    "module-path-and-code-line": (
        [
            TB,
            frame("setup.py"),
            frame(EXT, 2714, "_get_cuda_arch_flags"),
            "    arch_list[-1] += '+PTX'",
            INDEX,
        ],
        "arch-list",
    ),
    "code-line-but-raised-in-another-module": (
        [TB, frame(EXT), "    arch_list[-1] += '+PTX'", frame(EXT.replace("cpp_extension", "hipify")), INDEX],
        None,
    ),
    "code-line-missing": ([TB, frame(EXT, 2714, "_get_cuda_arch_flags"), "    arch_list[0]", INDEX], None),
    "code-line-in-an-earlier-traceback": (
        [TB, frame(EXT), "    arch_list[-1] += '+PTX'", INDEX, "", TB, frame(EXT, 12), INDEX],
        "arch-list",
    ),
    "code-line-only-before-this-traceback": (
        [TB, frame("a.py"), "    arch_list[-1] += '+PTX'", "ValueError: x", TB, frame(EXT, 12), INDEX],
        None,
    ),
    "code-line-on-another-rank": (
        [
            "[rank1]: " + TB,
            "[rank1]:   arch_list[-1] += '+PTX'",
            "[rank0]: " + TB,
            "[rank0]: " + frame(EXT),
            "[rank0]: " + INDEX,
        ],
        None,
    ),
    "paste-starting-inside-the-traceback": ([frame(EXT), "    arch_list[-1] += '+PTX'", INDEX], "arch-list"),
}


def diagnose(engine: Engine, text: str) -> dict:
    diagnosis = Diagnosis(engine)
    diagnosis.add_text(text, "pasted.log")
    return json.loads(json.dumps(diagnosis.result()))


@pytest.mark.parametrize("without_re2", [False, True], ids=["signature-set", "every-rule"])
def test_context_decides_the_hit(bundle: Path, without_re2: bool) -> None:
    engine = Engine(json.loads(bundle.read_text()))
    if without_re2:
        engine.rule_set = None  # the path taken where google-re2 is not installed
    for name, (lines, want) in CASES.items():
        findings = diagnose(engine, "\n".join(lines) + "\n")["findings"]
        assert [f["id"] for f in findings] == ([want] if want else []), name


def test_context_across_a_large_file(bundle: Path, tmp_path: Path) -> None:
    """A file too big for the line-by-line path: the scan must still stop at the context lines."""
    big = tmp_path / "big.log"
    filler = "".join(f"step {i} loss 0.5\n" for i in range(120_000))
    lines, _ = CASES["module-path-and-code-line"]
    big.write_text(filler + "\n".join(lines) + "\n")
    diagnosis = Diagnosis(Engine(json.loads(bundle.read_text())))
    diagnosis.add_file(big)
    assert [f["id"] for f in diagnosis.result()["findings"]] == ["arch-list"]


def test_both_matchers_agree_on_context(bundle: Path, tmp_path: Path) -> None:
    engine = Engine(json.loads(bundle.read_text()))
    files = []
    for name, (lines, _) in CASES.items():
        path = tmp_path / f"{name}.log"
        path.write_text("\n".join(lines) + "\n")
        files.append(path)
    python = []
    for path in files:
        diagnosis = Diagnosis(engine)
        diagnosis.add_file(path)
        python.append(json.loads(json.dumps(diagnosis.result())))
    assert node_results(bundle, [[f] for f in files]) == python
