"""Every kind of bad input is reported at its file, line and field, and leaves _site/ untouched."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from denpex_site.build.builder import Builder, check, manifest
from denpex_site.errors import InvalidContent, Problems
from denpex_site.site.checks import ROOT_CAUSE_RULE

from ..conftest import REPO

ENTRY = "content/failures/demo-oom/entry.yaml"


def edit(root: Path, old: str, new: str, path: str = ENTRY) -> None:
    file = root / path
    text = file.read_text()
    assert old in text, f"fixture text not found: {old!r}"
    file.write_text(text.replace(old, new, 1))


def line_of(root: Path, needle: str, path: str = ENTRY) -> int:
    for number, line in enumerate((root / path).read_text().splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def problems_of(root: Path) -> list[str]:
    return [e.text() for e in check(root).sorted()]


@pytest.fixture
def built(project: Path) -> tuple[Path, dict[str, str]]:
    """A project with a good build in _site/, and the hashes of that build."""
    Builder(project).build()
    return project, manifest(project / "_site")


def assert_fails_untouched(root: Path, before: dict[str, str]) -> list[str]:
    with pytest.raises(InvalidContent) as info:
        Builder(root).build()
    assert manifest(root / "_site") == before, "a failed build must leave the previous _site/ unchanged"
    assert not [p for p in root.iterdir() if p.name.startswith("._site")], (
        "temporary build folders left behind"
    )
    return [e.text() for e in info.value.problems.sorted()]


def test_fixture_is_valid(project: Path) -> None:
    assert problems_of(project) == []


def test_yaml_syntax_error(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "severity: critical", "severity: [critical")
    problems = assert_fails_untouched(root, before)
    assert len(problems) == 1
    assert re.match(rf"^{re.escape(ENTRY)}:\d+:\d+: yaml: ", problems[0])


def test_misspelt_field_is_named_with_a_hint(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "mechanism: |", "mechansim: |")
    line = line_of(root, "mechansim:")
    problems = assert_fails_untouched(root, before)
    assert f"{ENTRY}:{line}:1: mechansim: unknown field 'mechansim' (did you mean 'mechanism'?)" in problems
    assert f"{ENTRY}:1:1: mechanism: required field 'mechanism' is missing" in problems


def test_unknown_nested_field(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "    role: root-cause", "    role: root-cause\n    weigth: 5")
    line = line_of(root, "weigth:")
    problems = assert_fails_untouched(root, before)
    assert problems == [
        f"{ENTRY}:{line}:5: signatures[0].weigth: unknown field 'weigth' (did you mean 'weight'?)"
    ]


def test_missing_required_nested_field(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "  cause: The batch's activations do not fit next to the weights and optimizer state.\n", "")
    line = line_of(root, '  symptom: "The step dies')
    problems = assert_fails_untouched(root, before)
    assert problems == [f"{ENTRY}:{line}:3: quick_answer.cause: required field 'cause' is missing"]


def test_wrong_type(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "tags: [oom, allocator]", "tags: oom")
    edit(root, "severity: critical", "severity: fatal")
    problems = assert_fails_untouched(root, before)
    tags_line, sev_line = line_of(root, "tags: oom"), line_of(root, "severity: fatal")
    assert f"{ENTRY}:{tags_line}:7: tags: Input should be a valid list" in problems
    assert any(p.startswith(f"{ENTRY}:{sev_line}:11: severity: Input should be 'critical'") for p in problems)


def test_duplicate_id_and_id_not_matching_folder(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    shutil.copytree(root / "content/failures/demo-oom", root / "content/failures/demo-oom-copy")
    problems = assert_fails_untouched(root, before)
    copy = "content/failures/demo-oom-copy/entry.yaml"
    assert f"{copy}:1:5: id: id 'demo-oom' must equal its folder name 'demo-oom-copy'" in problems
    assert any(p.startswith(f"{copy}:1:5: id: duplicate id 'demo-oom'") for p in problems)


def test_id_not_kebab_case(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "id: demo-oom", "id: Demo_OOM")
    problems = assert_fails_untouched(root, before)
    assert problems == [
        f"{ENTRY}:1:5: id: must be kebab-case: lowercase letters and digits joined by '-' (got 'Demo_OOM')"
    ]


def test_unknown_category_system_and_related(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "category: memory", "category: memroy")
    edit(root, "systems: [pytorch, cuda]", "systems: [pytorch, cudaa]")
    edit(root, "faq:", "related:\n  - id: no-such-entry\n    note: Not the same thing.\nfaq:")
    problems = assert_fails_untouched(root, before)
    assert any(p.startswith(f"{ENTRY}:3:11: category: unknown category 'memroy'") for p in problems)
    assert (
        f"{ENTRY}:7:20: systems[1]: unknown system 'cudaa' (did you mean 'cuda'?) (add it to content/systems.yaml)"
        in problems
    )
    rel = line_of(root, "  - id: no-such-entry")
    assert f"{ENTRY}:{rel}:9: related[0].id: unknown entry id 'no-such-entry'" in problems


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://docs.pytorch.org/docs/stable/notes/cuda.html", "must be an absolute https:// URL"),
        ("https://docs pytorch org", "must be an absolute https:// URL"),
        ("docs.pytorch.org/x", "must be an absolute https:// URL"),
    ],
)
def test_bad_reference_url(built: tuple[Path, dict[str, str]], url: str, message: str) -> None:
    root, before = built
    edit(root, "https://docs.pytorch.org/docs/stable/notes/cuda.html", url)
    line = line_of(root, f"url: {url}")
    problems = assert_fails_untouched(root, before)
    assert len(problems) == 1 and problems[0].startswith(f"{ENTRY}:{line}:10: references[0].url: {message}")


def test_broken_internal_links_and_anchors(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "See [the fix](#fix)", "See [the fix](#fixx)")
    edit(root, "(/failures/demo-oom/#confirm)", "(/failures/demo-oom/#confirmation)")
    edit(
        root,
        "verify: The error",
        "verify: See [other](/failures/nowhere/) and [plain](http://example.org). The error",
    )
    problems = assert_fails_untouched(root, before)
    mech = line_of(root, "mechanism: |")
    verify = line_of(root, "verify: See")
    assert f"{ENTRY}:{mech}:12: mechanism: link '#fixx' points to no anchor on this page" in problems
    assert (
        f"{ENTRY}:{mech}:12: mechanism: link '/failures/demo-oom/#confirmation': entry 'demo-oom' has no anchor '#confirmation'"
        in problems
    )
    assert (
        f"{ENTRY}:{verify}:9: verify: link '/failures/nowhere/' points to unknown entry 'nowhere'" in problems
    )
    assert f"{ENTRY}:{verify}:9: verify: link 'http://example.org' must use https" in problems


def test_markdown_heading_anchor_is_linkable(project: Path) -> None:
    edit(project, "See [the fix](#fix)", "See [the fix](#fragmentation)")
    assert problems_of(project) == []


def test_signature_that_does_not_compile(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "Tried to allocate {num} {word}", "Tried to allocate {number} {word}")
    line = line_of(root, "  - pattern:")
    problems = assert_fails_untouched(root, before)
    assert len(problems) == 1
    assert problems[0].startswith(f"{ENTRY}:{line}:14: signatures[0].pattern: unknown placeholder {{number}}")


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("CUDA out of memory {re:(a{1,5}){1,3}} x", "nested quantifier"),
        ("CUDA out of memory {re:a*} x", "unbounded quantifier"),
        ("CUDA out of memory {any}{int}", "ambiguous"),
        ("{any} CUDA out of memory", "ambiguous"),
        ("CUDA {int}", "too general"),
        ("CUDA out of memory {re:(?=x)}", "lookaround"),
    ],
)
def test_unsafe_or_vague_patterns_are_rejected(project: Path, pattern: str, message: str) -> None:
    edit(project, "CUDA out of memory. Tried to allocate {num} {word}", pattern)
    problems = problems_of(project)
    assert len(problems) == 1 and message in problems[0], problems


def test_signature_that_does_not_match_its_example(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "Tried to allocate {num} {word}", "Tried to free {num} {word}")
    line = line_of(root, "  - pattern:")
    problems = assert_fails_untouched(root, before)
    log_line = line_of(root, "  - file: logs/oom.log")
    assert problems == [
        f"{ENTRY}:{line}:14: signatures[0].pattern: does not match any line of its example log 'logs/oom.log'",
        f"{ENTRY}:{log_line}:11: logs[0].file: example log 'logs/oom.log' is diagnosed as no known failure; "
        "its own entry must rank first",
    ]


def test_log_named_but_missing(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "examples: [logs/oom.log]", "examples: [logs/oom.log, logs/rank1.log]")
    problems = assert_fails_untouched(root, before)
    line = line_of(root, "examples: [logs/oom.log, logs/rank1.log]")
    assert problems == [
        f"{ENTRY}:{line}:30: signatures[0].examples[1]: example log 'logs/rank1.log' does not exist"
    ]


def test_log_file_without_description(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    (root / "content/failures/demo-oom/logs/extra.log").write_text("hello\n")
    problems = assert_fails_untouched(root, before)
    line = line_of(root, "  - file: logs/oom.log")
    assert problems == [
        f"{ENTRY}:{line}:3: logs: 'logs/extra.log' is not described in logs (add its kind and origin)"
    ]


def test_duplicate_yaml_key(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "severity: critical", "severity: critical\nseverity: low")
    problems = assert_fails_untouched(root, before)
    assert problems == [f"{ENTRY}:5:1: severity: duplicate key: the later value would silently win"]


def test_title_must_be_plain_text(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    line = line_of(root, "title:")
    text = (root / ENTRY).read_text().splitlines()[line - 1]
    edit(root, text, 'title: "`torch.cuda.OutOfMemoryError` in the demo"')
    problems = assert_fails_untouched(root, before)
    assert len(problems) == 1
    assert problems[0].startswith(
        f"{ENTRY}:{line}:8: title: must be plain text: backticks would show literally"
    )


def test_bare_python_dunder_in_markdown_is_reported(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    line = line_of(root, "mechanism:")
    edit(
        root,
        "mechanism: |\n",
        "mechanism: |\n  Raised in Module.__call__ and `torch.nn.Module.__init__`.\n\n",
    )
    problems = assert_fails_untouched(root, before)
    assert problems == [
        f"{ENTRY}:{line}:12: mechanism: __call__ renders as bold 'call': put Python names in backticks (`__call__`)"
    ]


def test_recursive_alias_is_refused_at_its_line(built: tuple[Path, dict[str, str]]) -> None:
    root, before = built
    edit(root, "severity: critical", "severity: critical\nloop: &loop [1, *loop]")
    problems = assert_fails_untouched(root, before)
    assert problems == [f"{ENTRY}:5:7: yaml: an alias refers to its own parent"]


def test_recursive_alias_in_a_document_with_merge_keys_is_refused(project: Path) -> None:
    from denpex_site.content.documents import read_yaml

    file = project / "loop.yaml"
    file.write_text("base: &b {k: 1}\nentry:\n  <<: *b\n  loop: &l [1, *l]\n")
    problems = Problems(project)
    assert read_yaml(file, problems) is None
    assert [e.text() for e in problems.sorted()] == ["loop.yaml:4:9: yaml: an alias refers to its own parent"]


def test_yaml_merge_keys_load_as_pyyaml_loads_them(project: Path) -> None:
    from denpex_site.content.documents import read_yaml

    file = project / "merge.yaml"
    file.write_text("base: &b {title: x, n: 1}\nentry:\n  <<: *b\n  n: 2\n  when: 2026-11-30\n  todo: TODO\n")
    doc = read_yaml(file, Problems(project))
    assert doc is not None
    assert doc.data == yaml.safe_load(file.read_text())
    assert doc.lines.at(("entry", "n")) == (4, 6)
    assert doc.todos == [("entry", "todo")]


def test_all_problems_in_all_files_in_one_run(project: Path) -> None:
    shutil.copytree(project / "content/failures/demo-oom", project / "content/failures/demo-two")
    edit(project, "id: demo-oom", "id: demo-two", "content/failures/demo-two/entry.yaml")
    edit(project, "severity: critical", "severity: nope")
    edit(project, "category: memory", "category: none", "content/failures/demo-two/entry.yaml")
    edit(project, "verify: The", "verify: See [x](http://a.org). The", "content/failures/demo-two/entry.yaml")
    problems = problems_of(project)
    assert len(problems) == 3
    assert {p.split(":")[0] for p in problems} == {ENTRY, "content/failures/demo-two/entry.yaml"}


def test_scaffold_fails_until_filled(project: Path) -> None:
    cli = [sys.executable, str(REPO / "build.py"), "--root", str(project)]
    out = subprocess.run(
        [*cli, "new", "my-new-failure", "--category", "memory"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    res = subprocess.run([*cli, "check"], capture_output=True, text=True)
    assert res.returncode == 1
    assert (
        "content/failures/my-new-failure/entry.yaml:3:8: title: still contains the TODO marker" in res.stdout
    )
    # Fill every TODO with real values: the scaffold then passes.
    entry = project / "content/failures/my-new-failure/entry.yaml"
    text = entry.read_text()
    text = text.replace("tags: [TODO]", "tags: [oom]").replace(
        "https://TODO.example", "https://docs.pytorch.org/docs/stable/"
    )
    text = re.sub(
        r'pattern: ".*"', 'pattern: "DataLoader worker (pid {int}) is killed by signal: Killed."', text
    )
    text = text.replace("# TODO: code that runs as written", "torch.cuda.empty_cache()")
    entry.write_text(text.replace("TODO", "Written"))
    (entry.parent / "logs/example.log").write_text(
        "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Killed.\n"
    )
    res = subprocess.run([*cli, "check"], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_output_formats(project: Path) -> None:
    edit(project, "severity: critical", "severity: nope")
    cli = [sys.executable, str(REPO / "build.py"), "--root", str(project), "check"]
    text = subprocess.run(cli, capture_output=True, text=True)
    assert text.returncode == 1 and text.stdout.startswith(f"{ENTRY}:4:11: severity: ")
    gh = subprocess.run([*cli, "--format", "github"], capture_output=True, text=True)
    assert gh.returncode == 1
    assert gh.stdout.startswith(f"::error file={ENTRY},line=4,col=11,title=severity::Input should be")
    js = subprocess.run([*cli, "--format", "json"], capture_output=True, text=True)
    data = json.loads(js.stdout)
    assert data[0] | {"message": ""} == {
        "path": ENTRY,
        "line": 4,
        "col": 11,
        "field": "severity",
        "message": "",
    }


def second_entry(root: Path, pattern: str, log: str) -> Path:
    """A copy of the fixture as entry 'demo-two' with its own signature and log."""
    folder = root / "content/failures/demo-two"
    shutil.copytree(root / "content/failures/demo-oom", folder)
    entry = folder / "entry.yaml"
    text = (
        entry.read_text()
        .replace("id: demo-oom", "id: demo-two")
        .replace("/failures/demo-oom/", "/failures/demo-two/")
    )
    entry.write_text(text.replace("CUDA out of memory. Tried to allocate {num} {word}", pattern))
    (folder / "logs/oom.log").write_text(log)
    return entry


def test_signature_matching_another_entrys_log_must_be_declared(project: Path) -> None:
    entry = second_entry(
        project,
        "Tried to allocate {num} {word}",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity\n",
    )
    problems = problems_of(project)
    two = "content/failures/demo-two/entry.yaml"
    assert any(
        p.startswith(f"{two}:34:14: signatures[0].pattern: matches the example log demo-oom/logs/oom.log")
        for p in problems
    )
    assert any(
        p.startswith(f"{ENTRY}:34:14: signatures[0].pattern: matches the example log demo-two/logs/oom.log")
        for p in problems
    )
    # Declared, and made specific enough to rank first on its own log: no problem is left.
    text = entry.read_text().replace("references:", "overlaps: [demo-oom]\nreferences:")
    text = text.replace(
        "Tried to allocate {num} {word}", "Tried to allocate {num} {word}. GPU {int} has a total capacity"
    )
    entry.write_text(text.replace("    role: root-cause", "    role: root-cause\n    weight: 12"))
    assert problems_of(project) == []


def test_example_log_must_rank_its_own_entry_first(project: Path) -> None:
    entry = second_entry(
        project, "Tried to allocate {num} {word}", "CUDA out of memory. Tried to allocate 1.00 GiB\n"
    )
    entry.write_text(
        entry.read_text()
        .replace("references:", "overlaps: [demo-oom]\nreferences:")
        .replace("role: root-cause", "role: collateral")
    )
    assert problems_of(project) == [
        f"content/failures/demo-two/entry.yaml:34:3: signatures: {ROOT_CAUSE_RULE}",
        "content/failures/demo-two/entry.yaml:39:11: logs[0].file: example log 'logs/oom.log' is diagnosed as "
        "'demo-oom' first; its own entry must rank first",
    ]


def test_an_entry_that_is_not_silent_needs_a_root_cause_signature(project: Path) -> None:
    edit(project, "    role: root-cause", "    role: warning")
    line = line_of(project, "signatures:")
    assert problems_of(project) == [f"{ENTRY}:{line + 1}:3: signatures: {ROOT_CAUSE_RULE}"]
    assert "silent: true" in ROOT_CAUSE_RULE
    edit(project, "severity: critical", "severity: critical\nsilent: true")
    assert problems_of(project) == []


def test_one_run_reports_field_reference_signature_and_root_cause_problems(project: Path) -> None:
    """An entry with a field error still gets its references, patterns and root-cause rule checked."""
    edit(project, "mechanism: |", "mechansim: |")
    edit(project, "category: memory", "category: memroy")
    edit(project, "    role: root-cause", "    role: warning")
    edit(
        project,
        "references:",
        "related:\n  - id: demo-om\n    note: Not the same.\noverlaps: [nobody]\nreferences:",
    )
    edit(
        project,
        "CUDA out of memory. Tried to allocate {num} {word}",
        "CUDA out of memory {any}{any} tail text",
    )
    problems = problems_of(project)
    fields = [re.match(r"^[^:]+:\d+:\d+: ([^:]+):", p).group(1) for p in problems]  # type: ignore[union-attr]
    assert sorted(fields) == sorted(
        [
            "mechansim",
            "mechanism",
            "category",
            "related[0].id",
            "overlaps[0]",
            "signatures[0].pattern",
            "signatures",
        ]
    ), problems
    assert any("did you mean 'memory'?" in p for p in problems)
    assert any("unknown entry id 'demo-om' (did you mean 'demo-oom'?)" in p for p in problems)


def test_check_reports_a_template_error_at_its_line(project: Path) -> None:
    template = project / "templates/entry.html"
    lines = template.read_text().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if "{{ e.title }}" in line)
    template.write_text("".join(lines).replace("{{ e.title }}", "{{ e.titel }}", 1))
    assert problems_of(project) == [
        f"templates/entry.html:{number}:1: template: "
        "'denpex_site.content.model.Entry object' has no attribute 'titel'"
    ]


def test_check_reports_a_template_syntax_error(project: Path) -> None:
    template = project / "templates/home.html"
    template.write_text(template.read_text() + "{% if %}\n")
    problems = problems_of(project)
    assert (
        len(problems) == 1 and problems[0].startswith("templates/home.html:") and "template:" in problems[0]
    )


def test_build_with_a_template_error_prints_one_line(project: Path) -> None:
    template = project / "templates/entry.html"
    template.write_text(template.read_text().replace("{{ e.title }}", "{{ e.titel }}", 1))
    cli = [sys.executable, str(REPO / "build.py"), "--root", str(project), "build"]
    res = subprocess.run([*cli, "--no-index"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and res.stderr.startswith("error: templates/entry.html:"), res.stderr
    assert not (project / "_site").exists()


def test_new_with_an_unknown_category_lists_the_valid_ones(project: Path) -> None:
    cli = [sys.executable, str(REPO / "build.py"), "--root", str(project)]
    res = subprocess.run(
        [*cli, "new", "some-failure", "--category", "memroy"], capture_output=True, text=True
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert (
        "unknown category 'memroy'; the categories are: synchronization, communication, memory" in res.stderr
    )


def test_unknown_overlap_id(project: Path) -> None:
    edit(project, "references:", "overlaps: [nobody]\nreferences:")
    line = line_of(project, "overlaps: [nobody]")
    assert problems_of(project) == [f"{ENTRY}:{line}:12: overlaps[0]: unknown entry id 'nobody'"]


def test_pattern_matching_a_healthy_log_is_too_general(project: Path) -> None:
    healthy = project / "tests/healthy"
    healthy.mkdir(parents=True)
    (healthy / "train.log").write_text(
        "step 10 loss 1.2\nnote: CUDA out of memory. Tried to allocate 0 bytes is fine\n"
    )
    line = line_of(project, "  - pattern:")
    assert problems_of(project) == [
        f"{ENTRY}:{line}:14: signatures[0].pattern: too general: matches line 2 of the healthy log train.log: "
        "'note: CUDA out of memory. Tried to allocate 0 bytes is fine'"
    ]


def test_collateral_signature_may_match_other_entries_logs(project: Path) -> None:
    """Victims' lines are expected beside every root cause: they need no overlap declaration."""
    entry = second_entry(project, "watchdog caught collective operation timeout {any} ms", "x\n")
    text = entry.read_text().replace("    role: root-cause", "    role: collateral")
    entry.write_text(
        text.replace("silent: false", "").replace("severity: critical", "severity: critical\nsilent: true")
    )
    (entry.parent / "logs/oom.log").write_text(
        "[rank1]: watchdog caught collective operation timeout after 600000 ms\n"
    )
    oom = project / "content/failures/demo-oom/logs/oom.log"
    oom.write_text(
        oom.read_text() + "[rank1]: watchdog caught collective operation timeout after 600000 ms\n"
    )
    assert problems_of(project) == []


def test_every_placeholder_compiles_for_both_scans(project: Path) -> None:
    """Long placeholders such as {text} must compile in the byte-level scan too (RE2 caps repeats)."""
    edit(
        project,
        "CUDA out of memory. Tried to allocate {num} {word}",
        "CUDA out of memory. Tried to allocate {text} GiB",
    )
    assert problems_of(project) == []
