"""The standing adversarial suite: one test per class of hostile or broken input.

Content comes from pull requests that deploy previews build, and logs come from anywhere: no
input may destroy data, publish a file of the build machine, act on the user's terminal, or make
a tool run without end. Each test names the defect it keeps from coming back.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from denpex_site.build.builder import Builder, check
from denpex_site.build.output import MARKER
from denpex_site.errors import InvalidContent, OutputError

from .conftest import REPO
from .matcher.test_matcher import node_result, python_result

ENTRY = "content/failures/demo-oom/entry.yaml"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
BUILD_PY = str(REPO / "build.py")


def problems_of(root: Path) -> list[str]:
    return [p.text() for p in check(root).sorted()]


def tree_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


# --- the output folder -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["plain-folder", "project-root", "git-checkout", "file"])
def test_build_never_replaces_what_is_not_a_build(project: Path, tmp_path: Path, kind: str) -> None:
    """`build --out .` once deleted the repository: only a previous build may be replaced."""
    if kind == "project-root":
        out = project
        (project / "notes.txt").write_text("uncommitted work\n")
    elif kind == "git-checkout":
        out = tmp_path / "checkout"
        (out / ".git").mkdir(parents=True)
        (out / MARKER).write_text("even with a marker\n")
    elif kind == "file":
        out = tmp_path / "a-file"
        out.write_text("keep me\n")
    else:
        out = tmp_path / "mine"
        out.mkdir()
        (out / "thesis.tex").write_text("keep me\n")
    before = tree_hash(out) if out.is_dir() else out.read_text()
    with pytest.raises(OutputError):
        Builder(project, out, index=False).build()
    assert (tree_hash(out) if out.is_dir() else out.read_text()) == before
    res = subprocess.run(
        [sys.executable, BUILD_PY, "--root", str(project), "build", "--no-index", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr and res.stderr.startswith("error: ")


def test_a_previous_build_is_replaced_and_stale_build_folders_removed(project: Path) -> None:
    """Killed builds left ._site.* folders that no build removed."""
    Builder(project, index=False).build()
    out = project / "_site"
    assert (out / MARKER).is_file()
    dead = project / "._site.build-999999999-abc"
    dead.mkdir()
    (dead / MARKER).write_text("left by a killed build\n")
    alive = project / f"._site.build-{os.getpid()}-xyz"
    alive.mkdir()
    (alive / MARKER).write_text("a build that still runs\n")
    Builder(project, index=False).build()
    assert not dead.exists() and alive.exists()
    assert sorted(p.name for p in project.iterdir() if p.name.startswith("._site")) == [alive.name]


def test_the_output_folder_never_goes_missing_during_a_swap(project: Path) -> None:
    """A poller once found no _site/ between the two renames of the swap."""
    builder = Builder(project, index=False)
    builder.build()
    out = project / "_site"
    missing: list[int] = []
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            if not (out / "index.html").exists():
                missing.append(1)

    watcher = threading.Thread(target=poll)
    watcher.start()
    try:
        for _ in range(4):
            builder.build()
    finally:
        stop.set()
        watcher.join()
    assert not missing


# --- content that points outside content/ ------------------------------------------------------


def test_a_symlinked_log_is_refused_and_never_published(project: Path) -> None:
    """A log linked to /etc/passwd was published on the entry page."""
    logs = project / "content/failures/demo-oom/logs"
    (logs / "passwd.log").symlink_to("/etc/passwd")
    text = (project / ENTRY).read_text()
    (project / ENTRY).write_text(
        text.replace(
            "  - file: logs/oom.log\n",
            "  - file: logs/passwd.log\n    kind: captured\n    origin: x\n  - file: logs/oom.log\n",
        )
    )
    problems = problems_of(project)
    assert any(
        p.startswith("content/failures/demo-oom/logs/passwd.log:1:1: file: symbolic links are not allowed")
        for p in problems
    ), problems
    with pytest.raises(InvalidContent):
        Builder(project, index=False).build()
    assert not (project / "_site").exists()


@pytest.mark.parametrize("what", ["entry.yaml", "folder", "categories.yaml"])
def test_symlinked_entries_folders_and_taxonomies_are_refused(
    project: Path, tmp_path: Path, what: str
) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(project / "content/failures/demo-oom", outside)
    if what == "entry.yaml":
        (project / ENTRY).unlink()
        (project / ENTRY).symlink_to(outside / "entry.yaml")
        where = ENTRY
    elif what == "folder":
        shutil.rmtree(project / "content/failures/demo-oom")
        (project / "content/failures/demo-oom").symlink_to(outside)
        where = "content/failures/demo-oom"
    else:
        real = tmp_path / "categories.yaml"
        shutil.move(project / "content/categories.yaml", real)
        (project / "content/categories.yaml").symlink_to(real)
        where = "content/categories.yaml"
    assert any(
        p.startswith(f"{where}:1:1: file: symbolic links are not allowed") for p in problems_of(project)
    )


# --- YAML that is too large or not text --------------------------------------------------------


def test_an_alias_bomb_is_refused_at_its_line(project: Path) -> None:
    """9 anchors of 9 aliases each ran check for 104 s into a MemoryError."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    (project / ENTRY).write_text((project / ENTRY).read_text() + "\n".join(lines) + "\n")
    res = subprocess.run(
        [sys.executable, BUILD_PY, "--root", str(project), "check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "the aliases here expand the document past 100,000 values" in res.stdout


def test_a_byte_that_is_not_utf8_is_reported_at_its_line_and_column(project: Path) -> None:
    raw = (project / ENTRY).read_bytes().replace(b"Halve the micro-batch", b"Halve the micro\xe9batch")
    (project / ENTRY).write_bytes(raw)
    line = raw[: raw.index(b"\xe9")].count(b"\n") + 1
    col = raw.index(b"\xe9") - raw.rfind(b"\n", 0, raw.index(b"\xe9"))
    assert problems_of(project) == [
        f"{ENTRY}:{line}:{col}: file: byte 0xe9 is not UTF-8: save the file as UTF-8"
    ]


def test_a_tab_in_indentation_says_so(project: Path) -> None:
    (project / ENTRY).write_text(
        (project / ENTRY).read_text().replace("    why: Peak memory", "\twhy: Peak memory")
    )
    problems = problems_of(project)
    assert len(problems) == 1 and "never tabs" in problems[0]


def test_control_characters_in_content_do_not_reach_the_terminal(project: Path) -> None:
    """A field name with ESC c in it (YAML's "\\e") would reset the terminal that prints the problem."""
    text = (project / ENTRY).read_text()
    (project / ENTRY).write_text(text.replace("severity: critical", 'severity: critical\n"sev\\ec\\a": 1'))
    res = subprocess.run(
        [sys.executable, BUILD_PY, "--root", str(project), "check"], capture_output=True, timeout=120
    )
    assert res.returncode == 1 and b"\x1b" not in res.stdout and b"\x07" not in res.stdout
    assert b"unknown field 'sev\\x1bc\\x07'" in res.stdout


# --- pages -------------------------------------------------------------------------------------


def test_a_title_that_opens_a_comment_does_not_blank_the_page(project: Path) -> None:
    """A title of '<!--<script>' hid the rest of the page: JSON-LD escaped only '</'."""
    text = (project / ENTRY).read_text()
    (project / ENTRY).write_text(
        text.replace('title: "Test fixture: ', 'title: "<!--<script> Test fixture: ')
    )
    Builder(project, index=False).build()
    html = (project / "_site/failures/demo-oom/index.html").read_text()
    data = html[html.index('<script type="application/ld+json">') :].split("</script>", 1)[0]
    assert "<!--" not in data and "<script>" not in data.split(">", 1)[1] and "\\u003c!--" in data


def test_a_failed_build_writes_nothing_into_the_package(project: Path) -> None:
    """A failed build used to rewrite the shipped signature bundle."""
    package = REPO / "denpex_site"
    before = tree_hash(package)
    (project / ENTRY).write_text(
        (project / ENTRY).read_text().replace("severity: critical", "severity: nope")
    )
    with pytest.raises(InvalidContent):
        Builder(project, index=False).build()
    Builder(REPO, project / "elsewhere", index=False).build()
    assert tree_hash(package) == before


# --- logs --------------------------------------------------------------------------------------


def _diagnose(bundle: Path, *files: Path, json_out: bool = False) -> subprocess.CompletedProcess[bytes]:
    args = [sys.executable, "-m", "denpex_site", "diagnose", "--bundle", str(bundle), "--color", "never"]
    return subprocess.run(
        [*args, *(["--json"] if json_out else []), *map(str, files)], capture_output=True, timeout=60
    )


@pytest.fixture(scope="module")
def bundle(real_site: Path) -> Path:
    return real_site / "api/signatures.json"


def test_escape_sequences_in_a_log_are_shown_not_obeyed(bundle: Path, tmp_path: Path) -> None:
    """ESC c in a log reset the user's terminal when diagnose printed it."""
    log = tmp_path / "ev\x1b]0;pwned\x07il.log"
    hostile = "\x1bc\x1b7\x1b(0\x1b[" + "9" * 4000 + "m\x9b2J\x08\x07"
    log.write_text(f"{OOM} {hostile}\n")
    res = _diagnose(bundle, log)
    assert res.returncode == 0
    assert not any(byte in res.stdout for byte in (b"\x1b", b"\x07", b"\x08", "\x9b".encode()))
    assert b"\\x1bc" in res.stdout and b"\\x1b]0;pwned" in res.stdout


def test_watch_alerts_are_escaped(bundle: Path, tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(f"{OOM} \x1bc\x07\n")
    res = subprocess.run(
        [sys.executable, "-m", "denpex_site", "watch", "--bundle", str(bundle), "--exit-on-alert", str(log)],
        capture_output=True,
        timeout=60,
    )
    assert res.returncode == 0 and b"ALERT" in res.stdout
    assert b"\x1b" not in res.stdout and b"\x07" not in res.stdout and b"\\x1bc" in res.stdout


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be-bom", "nul-prefix", "utf-8-bom"])
def test_utf16_and_nul_prefixed_logs_are_read_by_both_matchers(
    bundle: Path, tmp_path: Path, encoding: str
) -> None:
    """PowerShell's UTF-16 logs and logs opening with NUL bytes were skipped as binary."""
    text = f"step 1 loss 2.0\r\n[rank1]: {OOM}\r\n"
    data = {
        "utf-16": text.encode("utf-16"),
        "utf-16-be-bom": b"\xfe\xff" + text.encode("utf-16-be"),
        "nul-prefix": b"\0" * 512 + text.encode(),
        "utf-8-bom": b"\xef\xbb\xbf" + text.encode(),
    }[encoding]
    log = tmp_path / "rank1.log"
    log.write_bytes(data)
    res = _diagnose(bundle, log, json_out=True)

    result = json.loads(res.stdout)
    assert [f["id"] for f in result["findings"]][:1] == ["cuda-oom"]
    assert result["findings"][0]["first"]["line"] == 2 and result["lines"] == 2
    assert node_result(bundle, [log]) == python_result(bundle, [log])


# --- patterns whose matching could take very long ----------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        "Trying to backward through the graph {text}a{text}a{text}a{text}have already been freed",
        "NVRM: Xid (PCI:{any}): 13, {any}Graphics {any}Exception",
        "cublas runtime error : {any} at {any}:{int}",
        "CUDA out of memory {re:[^\\n]{0,300}} tried {text} bytes",
    ],
)
def test_patterns_with_several_parts_that_take_any_text_are_refused(pattern: str) -> None:
    """Three {any} took 8.7 s (terminal) and 24 s (browser) on a crafted 12 MB log; {text}a{text}...
    passed the old adjacency check and ran both matchers for over a minute on one 4 KB line."""
    from denpex_site.matcher.dialect import PatternError, compile_pattern

    with pytest.raises(PatternError, match="only one part that takes any text"):
        compile_pattern(pattern)


def test_crafted_lines_for_every_signature_are_matched_by_both_matchers(bundle: Path, tmp_path: Path) -> None:
    """Near misses and late matches built from every shipped pattern; both matchers finish (the
    timeout is a guard against a hang, not a speed target: see bench/matcher_fuzz.py)."""

    from .crafted import crafted_log

    log = tmp_path / "crafted.log"
    log.write_bytes(crafted_log(bundle))
    res = _diagnose(bundle, log, json_out=True)
    assert res.returncode == 0, res.stderr
    assert node_result(bundle, [log]) == python_result(bundle, [log])


# --- watch -------------------------------------------------------------------------------------


def test_watch_notices_a_log_truncated_and_grown_back_between_two_polls(tmp_path: Path) -> None:
    """A truncate-and-regrow past the old offset within one poll gave no alert and no notice."""
    from denpex_site.matcher.watch import Follower

    log = tmp_path / "train.log"
    log.write_text("step 1 loss 2.0\nstep 2 loss 1.9\n")
    follower = Follower(log)
    assert follower.poll() == b"step 1 loss 2.0\nstep 2 loss 1.9\n"
    with open(log, "w") as fh:  # same inode, rewritten, already longer than before
        fh.write(f"run 2 starts\nstep 1 loss 2.1\n{OOM}\n")
    assert follower.poll() == f"run 2 starts\nstep 1 loss 2.1\n{OOM}\n".encode()
    assert follower.restarted
    follower.close()


WATCH = [sys.executable, "-m", "denpex_site", "watch"]


def test_watch_alerts_again_after_a_rotation(bundle: Path, tmp_path: Path) -> None:
    """After a rotation, the same failure in the new file alerted no more."""
    log = tmp_path / "train.log"
    log.write_text(f"{OOM}\n")
    marker = tmp_path / "alerts"
    proc = subprocess.Popen(
        [
            *WATCH,
            "--bundle",
            str(bundle),
            "--interval",
            "0.05",
            "--exec",
            f"echo $DENPEX_LINE >> {marker}",
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(lambda: marker.exists() and marker.read_text().count("\n") == 1)
        os.rename(log, tmp_path / "train.log.1")
        log.write_text(f"new run\n{OOM}\n")
        _wait_for(lambda: marker.read_text().count("\n") == 2)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert marker.read_text().split() == ["1", "2"]
    assert out.count(b"ALERT") == 2


def _wait_for(condition: object, seconds: float = 20) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


@pytest.mark.parametrize(
    "href", ["javascript:alert(1)", "data:text/html,<b>x</b>", "vbscript:msgbox", "file:///etc/passwd"]
)
def test_links_with_unsafe_schemes_are_reported(project: Path, href: str) -> None:
    """javascript: and data: links silently became text; now check names them."""
    text = (project / ENTRY).read_text()
    (project / ENTRY).write_text(text.replace("See [the fix](#fix)", f"See [the fix]({href})"))
    problems = problems_of(project)
    assert any("uses a scheme that is not allowed" in p and "mechanism" in p for p in problems), problems


def test_one_unreadable_log_does_not_stop_the_others(bundle: Path, tmp_path: Path) -> None:
    """One unreadable file among several aborted the whole diagnosis; a FIFO blocked forever."""
    good = tmp_path / "rank0.log"
    good.write_text(f"{OOM}\n")
    fifo = tmp_path / "rank1.log"
    os.mkfifo(fifo)
    res = _diagnose(bundle, good, fifo, tmp_path / "missing.log")
    assert res.returncode == 2
    assert b"First root cause" in res.stdout and b"cuda-oom" in res.stdout
    assert b"rank1.log is not a regular file" in res.stderr and b"cannot read" in res.stderr
    assert b"Traceback" not in res.stderr


def test_a_progress_bar_written_over_an_error_does_not_hide_it(bundle: Path, tmp_path: Path) -> None:
    """A line with an error followed by '\\r 50%...' was missed: only the progress bar was matched."""
    log = tmp_path / "train.log"
    log.write_bytes(
        f"{OOM}\r 50%|#####     | 5/10 [00:05<00:05,  1.00it/s]\r\nstep done\r 60%|###\n".encode()
    )
    python = python_result(bundle, [log])
    assert [f["id"] for f in python["findings"]][:1] == ["cuda-oom"]
    assert node_result(bundle, [log]) == python


def test_an_example_log_too_large_for_a_page_is_refused(project: Path) -> None:
    """A 100 MB example log made a 105 MB page."""
    log = project / "content/failures/demo-oom/logs/oom.log"
    log.write_text(log.read_text() + "step 1 loss 2.0\n" * 20_000)
    problems = problems_of(project)
    assert (
        len(problems) == 1
        and "is 312 KiB: keep the lines that show the failure, at most 256 KiB" in problems[0]
    )


def test_security_headers() -> None:
    """The obsolete interest-cohort is replaced; resources are same-origin except the open API; pages
    at their pretty URLs are revalidated."""
    from .browser import netlify_headers

    page = netlify_headers("/diagnose/")
    assert (
        "browsing-topics=()" in page["Permissions-Policy"]
        and "interest-cohort" not in page["Permissions-Policy"]
    )
    assert page["Cross-Origin-Resource-Policy"] == "same-origin"
    assert page["Cache-Control"] == "public, max-age=0, must-revalidate"
    assert netlify_headers("/failures/cuda-oom/")["Cache-Control"] == "public, max-age=0, must-revalidate"
    assert netlify_headers("/api/signatures.json")["Cross-Origin-Resource-Policy"] == "cross-origin"
    assert netlify_headers("/assets/js/site.0123456789.js")["Cache-Control"].endswith("immutable")


@pytest.mark.parametrize("where", ["project", "interpreter", "pytest"])
def test_example_logs_may_not_show_the_capturing_machine(project: Path, where: str) -> None:
    """Example logs showed /work/main/... and /root/.pyenv/... of the machine that captured them."""
    path = {
        "project": str(project / "train.py"),
        "interpreter": f"{sys.base_prefix}/lib/python3.11/site-packages/torch/nn/modules/module.py",
        "pytest": "/tmp/pytest-of-root/pytest-3/test0/train.py",
    }[where]
    if where == "interpreter" and sys.base_prefix in ("/usr", "/usr/local"):
        pytest.skip("a system interpreter's prefix is in every log")
    log = project / "content/failures/demo-oom/logs/oom.log"
    log.write_text(f'  File "{path}", line 3, in <module>\n' + log.read_text())
    problems = problems_of(project)
    assert len(problems) == 1 and "shows a path of the machine that captured it" in problems[0], problems


def test_ctrl_c_is_one_line_without_traceback() -> None:
    """Ctrl-C printed a traceback."""
    import signal
    import time

    reader = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "denpex_site",
            "diagnose",
            "--bundle",
            str(REPO / "tests/golden/api/signatures.json"),
            "-",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(3)  # reading standard input, which never ends
    assert reader.poll() is None, reader.communicate()
    reader.send_signal(signal.SIGINT)
    _, err = reader.communicate(timeout=30)
    assert reader.returncode == 130 and err == b"interrupted\n", (reader.returncode, err)
