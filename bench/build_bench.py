"""Time the site build on replicated content, against Hugo rendering the same entries.

``python bench/build_bench.py [--sizes 1000,5000] [--repeat 3] [--source ROOT] [--write]``

The entries under ``SOURCE/content/failures/`` that load on their own are replicated to N
synthetic entries in a temporary project (templates, static files and ``tests/healthy/`` come
from this repository, the taxonomy and site settings from SOURCE). Replica ``k`` of entry ``x``
is ``x-r0000k``:

* its title, every Markdown field, code example, observation and log get a short replica marker,
  so that no cache of the generator (Markdown, highlighting) is hit across replicas, as with real
  distinct entries; a field keeps its Markdown shape (a one-line field stays one line);
* the longest word of each signature's anchor gets a per-replica suffix in its patterns and logs
  alike, so every signature still matches its own logs but no other replica's, and the
  cross-entry log checks pass as they do for distinct entries (logs and signatures are kept, so
  validation does its real work);
* ``related`` and ``overlaps`` ids are remapped to the replicas of the same group or dropped;
  ``/failures/<id>/`` links go to the same group (else group 0), and Markdown links to entries
  that are not replicated keep only their text.

For each size it measures, as the median of ``--repeat`` runs after ``--warmup`` untimed ones:

* our cold full build: ``python build.py --root TMP build --out TMP/_site`` in a fresh process
  (every contender's previous output is removed and the removal flushed to disk before its clock
  starts);
* Hugo's cold build of the same entries as plain Markdown pages (``hugo --quiet``) with code
  highlighting on and taxonomies for categories, tags and systems;
* a one-entry rebuild in process: ``Builder.build()``, then an edit to one entry's mechanism and
  ``Builder.rebuild_entries({id})`` (median over ``--edits`` different entries).

It prints a Markdown table; ``--write`` replaces the "## Site build" section of
docs/benchmarks.md with it, the command line, the date and the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from denpex_site.build.builder import Builder  # noqa: E402
from denpex_site.build.pagefind import pagefind_command  # noqa: E402
from denpex_site.content.documents import read_yaml  # noqa: E402
from denpex_site.content.load import load_entry_folder  # noqa: E402
from denpex_site.errors import InvalidContent, Problems  # noqa: E402
from denpex_site.matcher.dialect import PatternError, compile_pattern  # noqa: E402

DOC = REPO / "docs" / "benchmarks.md"
SECTION = "## Site build"
TARGET_COLD_RATIO = 1.5
TARGET_COLD_SIZE = 1000
TARGET_REBUILD_S = 0.1
LINE_MAX = 300
"""Longest one-line field the model accepts (model.Line)."""


class BenchError(Exception):
    """A step failed; the message holds the command and its full output."""


# --------------------------------------------------------------------------------------------
# Source entries and replicas


@dataclass
class SourceEntry:
    id: str
    folder: Path
    data: dict[str, Any]


@dataclass
class Plan:
    """Replica ``i`` of ``n`` copies source ``i % len(sources)`` into group ``i // len(sources)``."""

    sources: list[SourceEntry]
    n: int
    index: dict[str, int] = field(init=False)
    words: dict[str, list[str]] = field(init=False)
    """Per source entry: the words that get a per-replica suffix in its signatures and logs."""
    width: int = field(init=False)

    def __post_init__(self) -> None:
        self.index = {s.id: i for i, s in enumerate(self.sources)}
        self.words = {s.id: signature_words(s.data) for s in self.sources}
        self.width = 3
        while len(_TAG_LETTERS) ** self.width < self.n:
            self.width += 1

    def tag(self, src: SourceEntry, group: int) -> str:
        """Letters unique to one replica, none of them a hex digit (so ``{hex}`` never takes them)."""
        i = group * len(self.sources) + self.index[src.id]
        letters = []
        for _ in range(self.width):
            i, digit = divmod(i, len(_TAG_LETTERS))
            letters.append(_TAG_LETTERS[digit])
        return "".join(reversed(letters))

    def rename(self, src: SourceEntry, group: int, text: str) -> str:
        """Give the signature words of ``src`` in ``text`` (a log) the replica's suffix."""
        tag = self.tag(src, group)
        for word in self.words[src.id]:
            text = text.replace(word, word + tag)
        return text

    def rename_pattern(self, src: SourceEntry, group: int, pattern: str) -> str:
        """The same renaming in a signature pattern, leaving placeholders and brace escapes alone."""
        parts = _PROTECTED.split(pattern)
        return "".join(p if _PROTECTED.fullmatch(p) else self.rename(src, group, p) for p in parts)

    def replicas(self) -> list[tuple[SourceEntry, int]]:
        size = len(self.sources)
        return [(self.sources[i % size], i // size) for i in range(self.n)]

    def exists(self, eid: str, group: int) -> bool:
        return eid in self.index and group * len(self.sources) + self.index[eid] < self.n


_TAG_LETTERS = "ghijklmnopqrstuvwyz"
_PROTECTED = re.compile(r"(\{\{|\}\}|\{[a-z]+\})")
"""Brace escapes and placeholders; the words inside ``{re:...}`` are renamed like literal text."""


def signature_words(data: dict[str, Any]) -> list[str]:
    """For each signature, the longest word of its anchor (the literal text every match contains).

    Suffixing these words per replica, in the patterns and in the logs alike, keeps every signature
    matching its own logs while no replica's signature matches another replica's logs: the
    replicas then pass the cross-entry log checks as distinct real entries do.
    """
    words = set()
    for sig in _items(data, "signatures"):
        try:
            anchor = compile_pattern(str(sig.get("pattern", ""))).anchor
        except PatternError:
            continue
        found = re.findall(r"[A-Za-z]{4,}", anchor) or re.findall(r"[A-Za-z]{3,}", anchor)
        if found:
            words.add(max(found, key=len))
    return sorted(words, key=lambda w: (-len(w), w))


_ENTRY_LINK = re.compile(r"\[([^\]\n]*)\]\(/failures/([a-z0-9-]+)/[^)\s]*\)")
"""A Markdown link to an entry: links to entries that are not replicated keep only their text."""


def replica_id(eid: str, group: int) -> str:
    return f"{eid}-r{group:05d}"


def replica_title(src: SourceEntry, group: int) -> str:
    suffix = f" (replica {group})"
    return str(src.data.get("title", src.id))[: LINE_MAX - len(suffix)] + suffix


def load_sources(root: Path) -> list[SourceEntry]:
    """The entries that load on their own (schema-valid); the others are skipped with a warning."""
    failures = root / "content" / "failures"
    folders = (
        sorted(p for p in failures.iterdir() if (p / "entry.yaml").is_file()) if failures.is_dir() else []
    )
    out = []
    for folder in folders:
        problems = Problems(root)
        doc = read_yaml(folder / "entry.yaml", problems)
        if load_entry_folder(folder, problems) is None or doc is None or not isinstance(doc.data, dict):
            log(f"warning: skipping source entry {folder.name}, it does not load:\n{problems.format()}")
            continue
        out.append(SourceEntry(folder.name, folder, doc.data))
    return out


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    return value


def _items(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _block(text: Any, group: int) -> Any:
    """A Markdown block field made unique in the shape it has: one line stays one line (with a
    short suffix), several lines get a closing paragraph."""
    if not isinstance(text, str):
        return text
    if "\n" not in text.strip():
        return f"{text.strip()} (r{group})"
    return f"{text.rstrip()}\n\nReplica {group} of this entry.\n"


def _inline(text: Any, group: int) -> Any:
    """A one-line field with a short unique suffix (unchanged if it would get too long)."""
    if not isinstance(text, str):
        return text
    longer = f"{text} (r{group})"
    return longer if len(longer) <= LINE_MAX else text


_COMMENTS = {
    **dict.fromkeys(("c", "cpp", "c++", "cuda", "go", "java", "javascript", "js", "json", "rust"), "//"),
    **dict.fromkeys(("ts", "typescript"), "//"),
    **dict.fromkeys(("lua", "sql"), "--"),
}


def _code(code: Any, language: str, group: int) -> Any:
    if not isinstance(code, str):
        return code
    return f"{code.rstrip()}\n{_COMMENTS.get(language, '#')} replica {group}\n"


def make_replica(plan: Plan, src: SourceEntry, group: int) -> dict[str, Any]:
    """The entry data of replica ``group`` of ``src``."""
    ids = sorted(plan.index, key=len, reverse=True)
    link = re.compile(r"/failures/(" + "|".join(re.escape(i) for i in ids) + r")/")

    def relink(m: re.Match[str]) -> str:
        target = m.group(1)
        return f"/failures/{replica_id(target, group if plan.exists(target, group) else 0)}/"

    def unlink(m: re.Match[str]) -> str:
        return m.group(0) if m.group(2) in plan.index else m.group(1)

    def fix_links(text: str) -> str:
        return link.sub(relink, _ENTRY_LINK.sub(unlink, text))

    data: dict[str, Any] = _map_strings(src.data, fix_links)
    data["id"] = replica_id(src.id, group)
    data["title"] = replica_title(src, group)

    for key in ("mechanism", "verify", "fingerprint", "scale", "operator_action"):
        if key in data:
            data[key] = _block(data[key], group)
    if isinstance(data.get("prevention"), list):
        data["prevention"] = [_block(v, group) for v in data["prevention"]]
    for step in _items(data, "confirm"):
        for key in ("step", "shows"):
            if key in step:
                step[key] = _block(step[key], group)
    for item in _items(data, "faq"):
        if "a" in item:
            item["a"] = _block(item["a"], group)
    for obs in _items(data, "observations"):
        if "text" in obs:
            obs["text"] = _inline(obs["text"], group)
    for sym in _items(data, "symptoms"):
        for key in ("symptom", "why"):
            if key in sym:
                sym[key] = _inline(sym[key], group)
    quick = data.get("quick_answer")
    if isinstance(quick, dict):
        for key in ("symptom", "cause", "fix"):
            if key in quick:
                quick[key] = _inline(quick[key], group)
    fix = data.get("fix")
    if isinstance(fix, dict):
        for key in ("summary", "cost", "alternatives"):
            if key in fix:
                fix[key] = _block(fix[key], group)
        for ex in _items(fix, "examples"):
            language = str(ex.get("language", "python"))
            for key in ("code", "before"):
                if key in ex:
                    ex[key] = _code(ex[key], language, group)
            if "note" in ex:
                ex["note"] = _block(ex["note"], group)

    for sig in _items(data, "signatures"):
        if isinstance(sig.get("pattern"), str):
            sig["pattern"] = plan.rename_pattern(src, group, sig["pattern"])
    if isinstance(data.get("overlaps"), list):
        overlaps = [replica_id(o, group) for o in data["overlaps"] if o != src.id and plan.exists(o, group)]
        if overlaps:
            data["overlaps"] = overlaps
        else:
            data.pop("overlaps")

    related = []
    for rel in _items(data, "related"):
        target = rel.get("id")
        if isinstance(target, str) and target != src.id and plan.exists(target, group):
            rel = {**rel, "id": replica_id(target, group)}
            if "note" in rel:
                rel["note"] = _inline(rel["note"], group)
            related.append(rel)
    if related:
        data["related"] = related
    else:
        data.pop("related", None)
    return data


# --------------------------------------------------------------------------------------------
# YAML output in the style of hand-written entry files: multi-line text as literal blocks


class _BlockDumper(yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_BlockDumper.add_representer(str, _represent_str)


def to_yaml(data: dict[str, Any], comment: str = "") -> str:
    head = f"# {comment}\n" if comment else ""
    body = yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=float("inf"))
    return head + body


# --------------------------------------------------------------------------------------------
# Project generation: ours and Hugo's


def _fence(code: str, language: str = "text") -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{code.rstrip(chr(10))}\n{ticks}\n"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _indent_item(text: Any) -> str:
    return re.sub(r"\n(?=[^\n])", "\n  ", str(text).strip())


def hugo_page(data: dict[str, Any], logs: dict[str, str], titles: dict[str, str]) -> str:
    """One entry as a plain Markdown page: front matter, then its fields in page order."""
    quick = data.get("quick_answer") or {}
    front: dict[str, Any] = {
        "title": data["title"],
        "date": data.get("added"),
        "description": quick.get("symptom", ""),
        "severity": data.get("severity", ""),
        "categories": [data.get("category", "")],
        "tags": data.get("tags", []),
        "systems": data.get("systems", []),
    }
    md = ["---", to_yaml(front).rstrip("\n"), "---", ""]

    def section(title: str, *parts: str) -> None:
        md.append(f"## {title}\n")
        md.extend(p.rstrip("\n") + "\n" for p in parts if p)

    section(
        "Quick answer",
        f"- **Symptom:** {quick.get('symptom', '')}\n- **Cause:** {quick.get('cause', '')}\n"
        f"- **Fix:** {quick.get('fix', '')}",
    )
    versions = _items(data, "versions")
    if versions:
        rows = "".join(
            f"| {_cell(v.get('system'))} | `{_cell(v.get('versions'))}` | {_cell(v.get('note', ''))} |\n"
            for v in versions
        )
        md.append("| System | Versions | Note |\n|---|---|---|\n" + rows)
    section("Mechanism", str(data.get("mechanism", "")))
    observations = _items(data, "observations")
    if observations:
        section(
            "What you observe",
            *(_fence(str(o.get("text", ""))) + _cell(o.get("versions", "")) for o in observations),
        )
    section(
        "Symptoms",
        "| What you see | Why |\n|---|---|\n"
        + "".join(
            f"| {_cell(s.get('symptom'))} | {_cell(s.get('why'))} |\n" for s in _items(data, "symptoms")
        ),
    )
    section(
        "How to confirm",
        *(
            f"### Step {i + 1}\n\n{s.get('step', '')}\n\n**If this is the cause:** {s.get('shows', '')}"
            for i, s in enumerate(_items(data, "confirm"))
        ),
    )
    signatures = _items(data, "signatures")
    if signatures:
        section(
            "Error signatures",
            *(
                f"**{s.get('role')}**, source: {s.get('source')}\n\n{_fence(str(s.get('pattern', '')))}"
                for s in signatures
            ),
        )
    if logs:
        section("Example logs", *(f"`{name}`\n\n{_fence(text)}" for name, text in sorted(logs.items())))
    fix = data.get("fix") or {}
    parts = [str(fix.get("summary", ""))]
    for ex in _items(fix, "examples"):
        language = str(ex.get("language", "python"))
        parts.append(f"### {ex.get('stack')}: {ex.get('title')}")
        if ex.get("before"):
            parts.append("Before:\n\n" + _fence(str(ex["before"]), language) + "\nAfter:")
        parts.append(_fence(str(ex.get("code", "")), language))
        if ex.get("note"):
            parts.append(str(ex["note"]))
    for key, title in (("cost", "Cost"), ("alternatives", "Alternatives")):
        if fix.get(key):
            parts.append(f"### {title}\n\n{fix[key]}")
    section("Fix", *parts)
    section("Verify the fix", str(data.get("verify", "")))
    prevention = data.get("prevention") or []
    section("Prevention", "".join(f"- {_indent_item(p)}\n" for p in prevention))
    section("Fingerprint to monitor", str(data.get("fingerprint", "")))
    if data.get("scale"):
        section("At scale", str(data["scale"]))
    if data.get("operator_action"):
        section("Operator action", str(data["operator_action"]))
    faq = _items(data, "faq")
    if faq:
        section("FAQ", *(f"### {f.get('q')}\n\n{f.get('a')}" for f in faq))
    related = _items(data, "related")
    if related:
        section(
            "Related failures",
            "".join(
                f"- [{titles.get(r['id'], r['id'])}](/failures/{r['id']}/): {r.get('note', '')}\n"
                for r in related
            ),
        )
    section(
        "References",
        "".join(f"- [{r.get('title')}]({r.get('url')})\n" for r in _items(data, "references")),
    )
    return "\n".join(md)


HUGO_CONFIG = """\
baseURL = "https://denpex-site.netlify.app/"
title = "denpex"
languageCode = "en"

[taxonomies]
  category = "categories"
  tag = "tags"
  system = "systems"

[markup]
  [markup.highlight]
    codeFences = true
    noClasses = false
    guessSyntax = false
  [markup.goldmark.renderer]
    unsafe = false
  [markup.tableOfContents]
    startLevel = 2
    endLevel = 3
"""

_HUGO_HEAD = """\
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} | {{ .Site.Title }}</title>
<link rel="canonical" href="{{ .Permalink }}">
</head>
<body>
<header><a href="{{ "/" | relURL }}">{{ .Site.Title }}</a></header>
<main>
"""
_HUGO_FOOT = "</main>\n</body>\n</html>\n"

HUGO_LAYOUTS = {
    "_default/single.html": _HUGO_HEAD
    + """\
<nav>{{ range .GetTerms "categories" }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a>{{ end }}</nav>
<article data-pagefind-body>
<h1>{{ .Title }}</h1>
<p>{{ .Params.severity }} {{ range .GetTerms "systems" }}<a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a> {{ end }}</p>
<p>{{ range .GetTerms "tags" }}<a href="{{ .RelPermalink }}">#{{ .LinkTitle }}</a> {{ end }}</p>
{{ .Content }}
</article>
<aside>{{ .TableOfContents }}</aside>
"""
    + _HUGO_FOOT,
    "_default/list.html": _HUGO_HEAD
    + """\
<h1>{{ .Title }}</h1>
<ul>
{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a> {{ .Params.severity }}<p>{{ .Description }}</p></li>
{{ end }}
</ul>
"""
    + _HUGO_FOOT,
    "index.html": _HUGO_HEAD
    + """\
<h1>{{ .Site.Title }}</h1>
<ul>
{{ range .Site.Taxonomies.categories }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> {{ .Count }}</li>
{{ end }}
</ul>
<h2>Recently added</h2>
<ul>
{{ range first 8 .Site.RegularPages.ByDate.Reverse }}<li><a href="{{ .RelPermalink }}">{{ .LinkTitle }}</a><p>{{ .Description }}</p></li>
{{ end }}
</ul>
"""
    + _HUGO_FOOT,
}


def _bundle_logs(folder: Path) -> dict[str, str]:
    logs_dir = folder / "logs"
    if not logs_dir.is_dir():
        return {}
    return {
        f"logs/{p.name}": p.read_bytes().decode("utf-8", "replace") for p in sorted(logs_dir.glob("*.log"))
    }


def make_projects(plan: Plan, source_root: Path, ours: Path, hugo: Path) -> None:
    """Write our project (content bundles) and Hugo's site (Markdown pages) for the same replicas."""
    for name in ("templates", "static", "tests/healthy"):
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, ours / name)
    (ours / "content" / "failures").mkdir(parents=True)
    for path in sorted((source_root / "content").glob("*.yaml")):
        shutil.copy2(path, ours / "content" / path.name)

    (hugo / "content" / "failures").mkdir(parents=True)
    (hugo / "config.toml").write_text(HUGO_CONFIG, encoding="utf-8")
    for rel, text in HUGO_LAYOUTS.items():
        (hugo / "layouts" / rel).parent.mkdir(parents=True, exist_ok=True)
        (hugo / "layouts" / rel).write_text(text, encoding="utf-8")
    (hugo / "content" / "failures" / "_index.md").write_text(
        '---\ntitle: "All failures"\n---\n', encoding="utf-8"
    )

    replicas = plan.replicas()
    titles = {replica_id(src.id, group): replica_title(src, group) for src, group in replicas}
    for src, group in replicas:
        data = make_replica(plan, src, group)
        folder = ours / "content" / "failures" / data["id"]
        shutil.copytree(src.folder, folder, ignore=shutil.ignore_patterns("entry.yaml"))
        logs = _bundle_logs(folder)
        for name, text in logs.items():
            logs[name] = f"{plan.rename(src, group, text).rstrip(chr(10))}\n[bench] replica {group}\n"
            (folder / name).write_text(logs[name], encoding="utf-8")
        text = to_yaml(data, f"Synthetic replica {group} of {src.id} (bench/build_bench.py)")
        (folder / "entry.yaml").write_text(text, encoding="utf-8")
        if group == 0:  # check the emitter once per source entry: the file must read back as written
            problems = Problems(ours)
            doc = read_yaml(folder / "entry.yaml", problems)
            if doc is None or doc.data != data:
                raise BenchError(
                    f"internal: {folder}/entry.yaml does not read back as written\n{problems.format()}"
                )
        (hugo / "content" / "failures" / f"{data['id']}.md").write_text(
            hugo_page(data, logs, titles), encoding="utf-8"
        )


# --------------------------------------------------------------------------------------------
# Timing


def run_timed(cmd: list[str], cwd: Path, clean: Path) -> float:
    """Seconds one fresh process takes; ``clean`` is removed first so every run is a cold build.
    The removal is flushed to disk before the clock starts: the file system would otherwise free the
    old files during the timed run and charge that to whichever contender runs next."""
    shutil.rmtree(clean, ignore_errors=True)
    os.sync()
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise BenchError(
            f"command failed with exit code {proc.returncode}: {shlex.join(cmd)}\n"
            f"--- stdout ---\n{proc.stdout}--- stderr ---\n{proc.stderr}"
        )
    return took


def cold_times(
    runs: list[tuple[str, list[str], Path, Path]], repeat: int, warmup: int
) -> dict[str, list[float]]:
    """Median-ready times of each ``(label, command, cwd, output)``, interleaved run by run so that a
    busy spell on the machine slows every contender alike."""
    for _ in range(warmup):
        for _label, cmd, cwd, clean in runs:
            run_timed(cmd, cwd, clean)
    times: dict[str, list[float]] = {label: [] for label, *_ in runs}
    for i in range(repeat):
        for label, cmd, cwd, clean in runs:
            times[label].append(run_timed(cmd, cwd, clean))
            log(f"  {label} cold build {i + 1}/{repeat}: {times[label][-1]:.2f} s")
    return times


_LOG_PREFIX = re.compile(r"^[IWEF][0-9]{4} [0-9:. ]+[0-9]+ +")
"""The prefix of an absl/glog line (RE2 logs this way): severity, date, time, thread id."""


@contextlib.contextmanager
def captured_stderr(what: str) -> Iterator[None]:
    """Send file descriptor 2 (native libraries log there too) to a file; summarise it afterwards."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines = sink.read().decode("utf-8", "replace").splitlines()
            if lines:
                # Drop log prefixes (times, thread ids) so repeats of one message count together.
                common, count = Counter(_LOG_PREFIX.sub("", line) for line in lines).most_common(1)[0]
                log(f"  {what} wrote {len(lines)} line(s) to stderr, {count} of them: {common[:300]}")


def rebuild_times(project: Path, plan: Plan, edits: int) -> list[float]:
    """Seconds ``rebuild_entries`` takes after a one-entry edit, for ``edits`` different entries."""
    out = project / "_site_incremental"
    builder = Builder(project, out)
    try:
        with captured_stderr("the in-process build"):
            builder.build()
        replicas = plan.replicas()
        times = []
        # A fixed sample, so runs edit the same entries, spread over the groups and the sources.
        for j, i in enumerate(
            sorted(random.Random(0).sample(range(len(replicas)), min(edits, len(replicas))))
        ):
            src, group = replicas[i]
            eid = replica_id(src.id, group)
            path = project / "content" / "failures" / eid / "entry.yaml"
            data = make_replica(plan, src, group)
            marker = f"Benchmark edit {j} of {eid}."
            data["mechanism"] = f"{str(data['mechanism']).rstrip()}\n\n{marker}\n"
            path.write_text(to_yaml(data), encoding="utf-8")
            start = time.perf_counter()
            builder.rebuild_entries({eid})
            times.append(time.perf_counter() - start)
            page = (out / "failures" / eid / "index.html").read_text(encoding="utf-8")
            if marker not in page:
                raise BenchError(f"the rebuild of {eid} did not update its page")
            log(f"  rebuild after editing {eid}: {times[-1] * 1000:.0f} ms")
        return times
    except InvalidContent as exc:
        raise BenchError(f"in-process build failed:\n{exc.problems.format()}") from exc
    finally:
        shutil.rmtree(out, ignore_errors=True)


@dataclass
class Result:
    entries: int
    ours: list[float]
    hugo: list[float]
    rebuild: list[float]
    bare: list[float]
    """Our cold build without the Pagefind index (Hugo builds no search index)."""
    hugo_indexed: list[float]
    """Hugo's cold build followed by Pagefind over its entry pages, as a Hugo site with search runs."""

    @property
    def ours_s(self) -> float:
        return statistics.median(self.ours)

    @property
    def hugo_s(self) -> float:
        return statistics.median(self.hugo)

    @property
    def ratio(self) -> float:
        return self.ours_s / self.hugo_s

    @property
    def bare_s(self) -> float:
        return statistics.median(self.bare)

    @property
    def hugo_indexed_s(self) -> float:
        return statistics.median(self.hugo_indexed)

    @property
    def rebuild_s(self) -> float:
        return statistics.median(self.rebuild)


def bench_size(
    plan: Plan,
    source_root: Path,
    hugo_bin: str,
    repeat: int,
    warmup: int,
    edits: int,
    keep: bool,
    workdir: Path | None = None,
) -> Result:
    work = Path(tempfile.mkdtemp(prefix=f"denpex-bench-{plan.n}-", dir=workdir))
    ours, hugo = work / "project", work / "hugo"
    try:
        log(f"{plan.n} entries: writing replicas into {work}")
        make_projects(plan, source_root, ours, hugo)
        build_cmd = [
            sys.executable,
            str(REPO / "build.py"),
            "--root",
            str(ours),
            "build",
            "--out",
            str(ours / "_site"),
        ]
        hugo_cmd = [hugo_bin, "--quiet", "--source", str(hugo), "--destination", str(hugo / "public")]
        pagefind = pagefind_command(hugo / "public")  # as our build indexes its own pages
        hugo_indexed = ["sh", "-c", f"{shlex.join(hugo_cmd)} && {shlex.join(pagefind)}"]
        cold = cold_times(
            [
                ("ours", build_cmd, REPO, ours / "_site"),
                ("ours without Pagefind", [*build_cmd, "--no-index"], REPO, ours / "_site"),
                ("hugo", hugo_cmd, hugo, hugo / "public"),
                ("hugo + Pagefind", hugo_indexed, hugo, hugo / "public"),
            ],
            repeat,
            warmup,
        )
        rebuild_t = rebuild_times(ours, plan, edits)
        return Result(
            plan.n,
            cold["ours"],
            cold["hugo"],
            rebuild_t,
            cold["ours without Pagefind"],
            cold["hugo + Pagefind"],
        )
    finally:
        if keep:
            log(f"kept {work} (project/ is ours, hugo/ is Hugo's)")
        else:
            shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Report


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def table(results: list[Result]) -> str:
    rows = [
        "| Entries | Our cold build (s) | Hugo cold build (s) | Ours / Hugo | Ours without Pagefind (s) "
        "| Hugo + Pagefind (s) | One-entry rebuild (ms) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows += [
        f"| {r.entries:,} | {r.ours_s:.2f} | {r.hugo_s:.2f} | {r.ratio:.2f}x "
        f"| {r.bare_s:.2f} ({r.bare_s / r.hugo_s:.2f}x) "
        f"| {r.hugo_indexed_s:.2f} (ours {r.ours_s / r.hugo_indexed_s:.2f}x) | {r.rebuild_s * 1000:.0f} |"
        for r in results
    ]
    return "\n".join(rows) + "\n"


def load_average() -> float | None:
    """The 1-minute load average (None where the platform has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def settle(limit: float) -> None:
    """Wait, at most ``limit`` seconds, until the 1-minute load average is below half the cores."""
    cores = os.cpu_count() or 1
    deadline = time.monotonic() + limit
    load = load_average()
    if load is not None and load >= cores / 2 and limit > 0:
        log(f"load average {load:.2f} on {cores} cores: waiting for it to fall below {cores / 2:g}")
    while load is not None and load >= cores / 2 and time.monotonic() < deadline:
        time.sleep(5)
        load = load_average()


def file_system(path: Path) -> str:
    """The type of the file system that holds ``path`` (from /proc/mounts; "unknown" elsewhere)."""
    best, kind = "", "unknown"
    try:
        for line in Path("/proc/mounts").read_text(encoding="utf-8").splitlines():
            fields = line.split()
            mount = fields[1].replace("\\040", " ")
            inside = str(path) == mount or str(path).startswith(mount.rstrip("/") + "/")
            if len(fields) > 2 and inside and len(mount) >= len(best):
                best, kind = mount, fields[2]
    except OSError:
        pass
    return kind


def machine(hugo_bin: str, load_start: float | None, workdir: Path) -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        hugo = subprocess.run(
            [hugo_bin, "version"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        hugo = "not found"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    loads = [x for x in (load_start, load_average()) if x is not None]
    load = " / ".join(f"{x:.2f}" for x in loads) or "unknown"
    # The load at the end includes the bench's own builds; only the load at the start says whether
    # other work was running.
    if load_start is not None and load_start > cores:
        load += " (above nproc at the start: other work was running, so the times are inflated)"
    return {
        "nproc": str(cores),
        "CPU": cpu,
        "Python": platform.python_version(),
        "Hugo": f"`{hugo}`",
        "Load average (1 min) at start / end": load,
        "Work folder": f"{workdir} ({file_system(workdir)})",
    }


def targets(results: list[Result]) -> list[str]:
    out = []
    cold = next((r for r in results if r.entries == TARGET_COLD_SIZE), None)
    if cold is None:
        verdict = f"not measured (run with {TARGET_COLD_SIZE} in --sizes)"
    else:
        verdict = ("met" if cold.ratio <= TARGET_COLD_RATIO else "**not met**") + f" ({cold.ratio:.2f}x)"
    out.append(
        f"- Cold build of {TARGET_COLD_SIZE:,} entries within {TARGET_COLD_RATIO}x Hugo's time: {verdict}."
    )
    measured = ", ".join(
        f"{'met' if r.rebuild_s < TARGET_REBUILD_S else '**not met**'} at {r.entries:,} entries "
        f"({r.rebuild_s * 1000:.0f} ms)"
        for r in results
    )
    out.append(f"- One-entry rebuild under {TARGET_REBUILD_S} s: {measured}.")
    return out


def _runs(times: list[float], digits: int = 2) -> str:
    return " / ".join(f"{t:.{digits}f}" for t in times)


def section_text(
    results: list[Result],
    command: str,
    sources: list[SourceEntry],
    source_root: Path,
    hugo_bin: str,
    load_start: float | None,
    workdir: Path,
) -> str:
    facts = machine(hugo_bin, load_start, workdir)
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    where = "content/failures/" if source_root == REPO else f"{source_root}/content/failures/"
    count = f"{len(sources)} source entr{'y' if len(sources) == 1 else 'ies'}"
    lines = [
        SECTION,
        "",
        "Cold full build of N entries (a fresh `python build.py --root TMP build` process, Python start-up",
        "included) against Hugo rendering the same entries as plain Markdown pages (a fresh `hugo --quiet`,",
        "with code highlighting and category/tag/system taxonomies), and the in-process one-entry rebuild",
        "(`Builder.rebuild_entries({id})` after appending a paragraph to one entry's mechanism).",
        f"Content: the {count} in `{where}` ({', '.join(s.id for s in sources)}), replicated to N by",
        "`bench/build_bench.py`. Each replica gets a unique title and a unique marker in every Markdown",
        "field, code example and log, so no cache is hit across replicas; the longest word of each",
        "signature's anchor gets a per-replica suffix in the pattern and the logs alike, so the",
        "cross-entry log checks pass as for distinct entries (logs and signatures are kept).",
        "Times are medians of `--repeat` cold runs (rebuild: of `--edits` edits of different entries).",
        "The build without Pagefind is the same command with `--no-index`: Hugo builds no search index,",
        "ours ends with Pagefind indexing the entry pages. Hugo + Pagefind is Hugo's build followed by",
        "Pagefind over Hugo's entry pages (their whole article), as a Hugo site with search would run.",
        "Every contender reads and writes in the work folder below. On this machine's ext4 disk, file",
        "creation slows down from run to run as files are created and deleted (perf shows the kernel's",
        "inode allocator); a RAM file system (tmpfs, `--workdir /dev/shm`) keeps that out of the times.",
        "",
        f"- Command: `{command}`",
        f"- Date: {now}",
        *(f"- {k}: {v}" for k, v in facts.items()),
        "",
        table(results).rstrip("\n"),
        "",
        "Every run (s): "
        + "; ".join(
            f"{r.entries:,}: ours {_runs(r.ours)}, without Pagefind {_runs(r.bare)}, Hugo {_runs(r.hugo)}, "
            f"Hugo + Pagefind {_runs(r.hugo_indexed)}, "
            f"rebuild {_runs(r.rebuild, 3)}"
            for r in results
        )
        + ".",
        "",
        "Targets:",
        "",
        *targets(results),
        "",
    ]
    return "\n".join(lines)


def write_section(text: str, doc: Path = DOC) -> None:
    """Replace the "## Site build" section of ``doc`` (up to the next heading of level 1 or 2)."""
    if not doc.exists():
        doc.parent.mkdir(parents=True, exist_ok=True)
        doc.write_text(f"# Benchmarks\n\n{text}", encoding="utf-8")
        return
    old = doc.read_text(encoding="utf-8")
    m = re.search(rf"^{re.escape(SECTION)}[ \t]*$", old, re.M)
    if m is None:
        doc.write_text(old.rstrip("\n") + "\n\n" + text, encoding="utf-8")
        return
    nxt = re.compile(r"^#{1,2} ", re.M).search(old, m.end())
    end = nxt.start() if nxt else len(old)
    after = old[end:]
    doc.write_text(old[: m.start()] + text + ("\n" + after if after else ""), encoding="utf-8")


# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "--source", type=Path, default=REPO, help="project whose content/ is replicated (default: this repo)"
    )
    parser.add_argument(
        "--sizes", default="1000,5000", help="comma-separated entry counts (default: 1000,5000)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed cold builds per size (default: 3)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed builds first (default: 1)")
    parser.add_argument("--edits", type=int, default=5, help="one-entry rebuilds timed per size (default: 5)")
    parser.add_argument("--hugo", default="hugo", help="the hugo binary (default: hugo on PATH)")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    parser.add_argument("--keep", action="store_true", help="keep the temporary projects (for profiling)")
    parser.add_argument(
        "--settle",
        type=float,
        default=180,
        help="wait up to this many seconds for the 1-minute load average to fall below half the cores "
        "before timing, so that work that just ended does not weigh on the first runs (default: 180)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="folder for the temporary projects and every build's output (default: the system's "
        "temporary folder); /dev/shm keeps the disk's state out of the times",
    )
    args = parser.parse_args(argv)
    command = shlex.join(["python", *sys.argv]) if argv is None else shlex.join(["python", __file__, *argv])

    try:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes must be comma-separated integers, got {args.sizes!r}")
    if args.repeat < 1 or args.edits < 1 or args.warmup < 0:
        parser.error("--repeat and --edits must be at least 1, --warmup at least 0")
    hugo_bin = shutil.which(args.hugo)
    if hugo_bin is None:
        parser.error(f"hugo binary not found: {args.hugo}")
    source_root = args.source.resolve()
    settle(args.settle)
    load_start = load_average()

    try:
        sources = load_sources(source_root)
        if not sources:
            raise BenchError(
                f"no entry bundles (folders with entry.yaml) under {source_root}/content/failures/; "
                "pass --source PROJECT with some, e.g. --source /tmp/t1"
            )
        log(f"source: {len(sources)} entr{'y' if len(sources) == 1 else 'ies'} from {source_root}")
        results = []
        for n in sizes:
            # Fewer entries than sources: the first n sources, once each.
            plan = Plan(sources[:n], n)
            result = bench_size(
                plan, source_root, hugo_bin, args.repeat, args.warmup, args.edits, args.keep, args.workdir
            )
            results.append(result)
    except BenchError as exc:
        log(f"error: {exc}")
        return 1

    print(table(results), end="")
    for line in targets(results):
        print(line)
    if args.write:
        workdir = (args.workdir or Path(tempfile.gettempdir())).resolve()
        write_section(section_text(results, command, sources, source_root, hugo_bin, load_start, workdir))
        log(f"wrote the '{SECTION}' section of {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
