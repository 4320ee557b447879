"""The matcher: one behaviour in Python and JavaScript, on real and hostile logs."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from denpex_site.matcher.diagnosis import Diagnosis, detect_wrap
from denpex_site.matcher.engine import Engine

from ..conftest import FIXTURES, REPO, TESTS
from ..realset import real_logs

NODE = shutil.which("node")
RUNNER = TESTS / "js" / "diagnose.mjs"
LOGS = TESTS / "logs"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."


@pytest.fixture(scope="module")
def bundle_path(real_site: Path) -> Path:
    """The bundle of the real content."""
    return real_site / "api/signatures.json"


@functools.cache
def engine_of(bundle: Path) -> Engine:
    """The compiled signature set of a bundle, made once per test session (compiling takes a while)."""
    return Engine(json.loads(bundle.read_text()))


def python_result(bundle: Path, files: list[Path]) -> dict:
    diagnosis = Diagnosis(engine_of(bundle))
    for f in files:
        diagnosis.add_file(f)
    return json.loads(json.dumps(diagnosis.result()))


def node_result(bundle: Path, files: list[Path]) -> dict:
    if NODE is None:
        pytest.fail("node is required for the JavaScript matcher tests")
    out = subprocess.run(
        [NODE, str(RUNNER), str(bundle), *map(str, files)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def example_logs() -> list[Path]:
    logs = sorted(REPO.glob("content/failures/*/logs/*.log"))
    logs += sorted(LOGS.glob("*.log")) + sorted((TESTS / "healthy").glob("*.log"))
    logs += sorted(FIXTURES.glob("*/logs/*.log"))
    return logs


def node_results(bundle: Path, jobs: list[list[Path]]) -> list[dict]:
    """The JavaScript matcher's results for many jobs (each a list of files) from one Node process."""
    if NODE is None:
        pytest.fail("node is required for the JavaScript matcher tests")
    out = subprocess.run(
        [NODE, str(RUNNER), "--batch", str(bundle)],
        input=json.dumps([[str(f) for f in files] for files in jobs]),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def node_by_log(bundle_path: Path) -> dict[Path, dict]:
    logs = example_logs()
    return dict(zip(logs, node_results(bundle_path, [[log] for log in logs]), strict=True))


@pytest.mark.parametrize("log", example_logs(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_python_and_javascript_agree(bundle_path: Path, node_by_log: dict[Path, dict], log: Path) -> None:
    assert python_result(bundle_path, [log]) == node_by_log[log]


def test_agree_on_the_real_logs(bundle_path: Path, tmp_path: Path) -> None:
    """The logs users pasted (tests/real/), as one Node batch: decisive lines included."""
    logs = []
    for path, log in real_logs():
        logs.append(tmp_path / f"{path.stem}.log")
        logs[-1].write_text(log["log"], encoding="utf-8")
    node = node_results(bundle_path, [[log] for log in logs])
    for log, got in zip(logs, node, strict=True):
        assert python_result(bundle_path, [log]) == got, log.name


def test_agree_on_several_files_per_rank(bundle_path: Path) -> None:
    files = [LOGS / "rank0.log", LOGS / "rank1.log", LOGS / "interleaved-ranks.log"]
    py = python_result(bundle_path, files)
    assert py == node_result(bundle_path, files)
    assert py["initiating"]["file"] == "interleaved-ranks.log" and py["initiating"]["rank"] == 1


def test_every_example_log_ranks_its_own_entry_first(bundle_path: Path) -> None:
    for log in sorted(REPO.glob("content/failures/*/logs/*.log")):
        result = python_result(bundle_path, [log])
        assert result["findings"], f"{log}: nothing found"
        assert result["findings"][0]["id"] == log.parent.parent.name, log


def test_healthy_logs_match_nothing(bundle_path: Path) -> None:
    healthy = sorted((TESTS / "healthy").glob("*.log"))
    if not healthy:
        pytest.fail("tests/healthy/ holds no healthy training log")
    for log in healthy:
        assert python_result(bundle_path, [log])["findings"] == [], log


def first(result: dict) -> tuple:
    f = result["findings"][0]["first"]
    return result["findings"][0]["id"], f["line"], f["rank"], f["time"], f["began"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ansi-progress.log", ("cuda-oom", 6, None, None, 4)),
        ("crlf-glog.log", ("cuda-oom", 2, None, "1130 12:00:01.123456", None)),
        ("html.log", ("cuda-oom", 3, None, None, None)),
        ("interleaved-ranks.log", ("cuda-oom", 3, 1, "1130 12:00:07.500000", None)),
        ("invalid-utf8.log", ("cuda-oom", 2, None, None, None)),
        ("no-final-newline.log", ("cuda-oom", 2, None, None, None)),
        ("rank1.log", ("cuda-oom", 2, 1, "1130 12:00:09.600000", 1)),
        ("srun-prefix.log", ("cuda-oom", 3, 12, None, None)),
        ("wrapped-80.log", ("cuda-oom", 6, 3, None, None)),
    ],
)
def test_log_anatomy(bundle_path: Path, name: str, expected: tuple) -> None:
    """Rank prefixes, timestamps, ANSI, carriage returns, wrapped lines and tracebacks."""
    assert first(python_result(bundle_path, [LOGS / name])) == expected


def test_wrap_detection() -> None:
    ansi = Engine.__init__.__globals__["re"].compile(rb"\x1b\[[0-9;]*m")
    message = " ".join(f"word{i}" for i in range(80)).encode()  # one long line cut every 80 columns
    wrapped = b"".join(message[i : i + 80] + b"\n" for i in range(0, 400, 80)) + b"short\n"
    found = detect_wrap(wrapped, True, ansi)
    assert found is not None and found.width == 80
    repeated = b"x" * 80 + b"\n" * 1 + (b"x" * 80 + b"\n") * 10 + b"short\n"
    assert detect_wrap(repeated, True, ansi) is None, (
        "identical lines are a repetitive log, not a wrapped one"
    )
    ordinary = b"".join(b"y" * n + b"\n" for n in range(40, 140, 7))
    assert detect_wrap(ordinary, True, ansi) is None


def test_empty_input(bundle_path: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    result = python_result(bundle_path, [empty])
    assert result["findings"] == [] and result["lines"] == 0 and result["notes"] == []


def test_binary_file_is_skipped_with_a_note(bundle_path: Path, tmp_path: Path) -> None:
    core = tmp_path / "core.bin"
    core.write_bytes(bytes(range(256)) * 100 + OOM.encode())
    result = python_result(bundle_path, [core])
    assert result["findings"] == [] and result["files"][0]["skipped"] == "binary"
    assert result == node_result(bundle_path, [core])
    cli = subprocess.run(
        [sys.executable, "-m", "denpex_site", "diagnose", "--bundle", str(bundle_path), str(core)],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 2 and "core.bin looks like a binary file, not a text log" in cli.stderr


# The child's own peak resident memory in KiB. VmHWM belongs to the memory map made at exec;
# ru_maxrss also counts the parent's peak on Linux (it carries over the fork), so it is the fallback.
_PEAK_KIB = (
    "def peak():\n"
    "    try:\n"
    "        for line in open('/proc/self/status'):\n"
    "            if line.startswith('VmHWM:'):\n"
    "                return int(line.split()[1])\n"
    "    except OSError:\n"
    "        pass\n"
    "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
)


def run_measured(code: str, *args: str) -> tuple[dict, int]:
    """Run a matcher in a child process; return its JSON and its peak memory in MiB."""
    script = (
        "import json, resource, sys\n" + _PEAK_KIB + code + "\n"
        "print(json.dumps({'result': result, 'rss': peak()}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    return data["result"], data["rss"] // 1024


DIAGNOSE_FILE = (
    "from pathlib import Path\nfrom denpex_site.matcher.diagnosis import Diagnosis\nfrom denpex_site.matcher.engine import Engine\n"
    "d = Diagnosis(Engine(json.load(open(sys.argv[1]))))\nd.add_file(Path(sys.argv[2]))\nresult = d.result()"
)


def test_single_200mb_line_without_newline(bundle_path: Path, tmp_path: Path) -> None:
    big = tmp_path / "oneline.log"
    with open(big, "wb") as fh:
        fh.write(OOM.encode() + b" ")
        block = b"x" * (1 << 20)
        for _ in range(200):
            fh.write(block)
    result, rss = run_measured(DIAGNOSE_FILE, str(bundle_path), str(big))
    assert result["findings"][0]["id"] == "cuda-oom" and result["lines"] == 1
    assert result["notes"] == ["oneline.log: line 1 is longer than 256 KiB; only its start was read."]
    assert rss < 300, f"peak memory {rss} MiB"
    assert result == node_result(bundle_path, [big])


def test_five_gigabyte_sparse_file_is_streamed(bundle_path: Path, tmp_path: Path) -> None:
    sparse = tmp_path / "huge.log"
    with open(sparse, "wb") as fh:
        fh.write(b"step 1 loss 2.0\n" * 1000 + OOM.encode() + b"\n")
        fh.truncate(5 * 1024**3)
    result, rss = run_measured(DIAGNOSE_FILE, str(bundle_path), str(sparse))
    assert result["findings"][0]["id"] == "cuda-oom" and result["findings"][0]["first"]["line"] == 1001
    assert rss < 300, f"peak memory {rss} MiB"


def test_a_quarter_million_matching_lines_cap_evidence_and_keep_counts(
    bundle_path: Path, tmp_path: Path
) -> None:
    many = tmp_path / "many.log"
    with open(many, "wb") as fh:
        block = f"[rank0]: {OOM}\n".encode() * 10_000
        for _ in range(25):
            fh.write(block)
    result, rss = run_measured(DIAGNOSE_FILE, str(bundle_path), str(many))
    finding = result["findings"][0]
    assert finding["count"] == 250_000 and len(finding["evidence"]) == 20
    assert rss < 300
    assert result == node_result(bundle_path, [many])


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "denpex_site", *args], input=stdin, capture_output=True)


def test_cli_exit_codes_and_json(bundle_path: Path, tmp_path: Path) -> None:
    found = cli("diagnose", "--bundle", str(bundle_path), "--json", str(LOGS / "interleaved-ranks.log"))
    assert found.returncode == 0
    data = json.loads(found.stdout)
    assert data["schema_version"] == 2
    assert {"id", "title", "role", "score", "evidence"} <= set(data["findings"][0])
    none = cli("diagnose", "--bundle", str(bundle_path), str(LOGS / "rank0.log"))
    assert none.returncode == 1 and b"No known failure matched" in none.stdout
    missing = cli("diagnose", "--bundle", str(bundle_path), str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and b"cannot read" in missing.stderr
    usage = cli("diagnose")
    assert usage.returncode == 2
    piped = cli("diagnose", "--bundle", str(bundle_path), "-", stdin=OOM.encode())
    assert piped.returncode == 0 and b"First root cause" in piped.stdout and b"\x1b[" not in piped.stdout


def test_cli_reads_the_bundle_of_the_built_site(bundle_path: Path, tmp_path: Path) -> None:
    """Without --bundle, diagnose reads _site/api/signatures.json of --root; nothing is read from the package."""
    (tmp_path / "_site/api").mkdir(parents=True)
    shutil.copy(bundle_path, tmp_path / "_site/api/signatures.json")
    log = next(iter(sorted(REPO.glob("content/failures/*/logs/*.log"))))
    res = cli("--root", str(tmp_path), "diagnose", "--json", str(log))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["findings"][0]["id"] == log.parent.parent.name


@pytest.mark.parametrize("command", ["diagnose", "watch"])
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, b"no signature bundle"),
        (b"{not json", b"is not JSON"),
        (b'{"schema_version": 99}', b"format version 99"),
    ],
    ids=["missing", "not-json", "other-version"],
)
def test_a_bad_bundle_is_one_line_without_traceback(
    command: str, content: bytes | None, message: bytes, tmp_path: Path
) -> None:
    args = ["--root", str(tmp_path), command]
    if content is not None:
        (tmp_path / "bundle.json").write_bytes(content)
        args += ["--bundle", str(tmp_path / "bundle.json")]
    res = subprocess.run(
        [sys.executable, "-m", "denpex_site", *args, str(LOGS / "rank0.log")],
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "DENPEX_BUNDLE"},
        timeout=30,
    )
    assert res.returncode == 2
    assert message in res.stderr and b"Traceback" not in res.stderr
    assert res.stderr.count(b"\n") == 1, res.stderr


def test_watch_alerts_and_survives_rotation(bundle_path: Path, tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("step 1 loss 2.0\n")
    marker = tmp_path / "alerted"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "denpex_site",
            "watch",
            "--bundle",
            str(bundle_path),
            "--interval",
            "0.05",
            "--exec",
            f"echo $DENPEX_ENTRY:$DENPEX_LINE > {marker}",
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        time.sleep(0.5)
        os.rename(log, tmp_path / "train.log.1")  # rotation: a new file takes the name
        log.write_text("step 2 loss 1.9\n" + OOM + "\n")
        deadline = time.time() + 10
        while not marker.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert marker.read_text().strip() == "cuda-oom:2"
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=5)
    assert b"ALERT" in out and b"/failures/cuda-oom/" in out
    assert b"\n  fix:   " in out and b"\n  cause: " in out


@pytest.mark.parametrize(
    ("name", "rank"),
    [
        ("rank3.log", 3),
        ("train-rank3.log", 3),
        ("worker_3.out", 3),
        ("rank0.log.1", 0),
        ("torch2.7-rank2-never-enqueued.log", None),
        ("myrank3.log", None),
        ("train.log", None),
    ],
)
def test_rank_from_file_name(name: str, rank: int | None) -> None:
    from denpex_site.matcher.bundle import rank_from_file_name

    assert rank_from_file_name(name) == rank
    if NODE:
        js = subprocess.run(
            [
                NODE,
                "--input-type=module",
                "-e",
                f"import {{ rankFromFileName }} from '{(REPO / 'static/js/matcher.js').as_uri()}';"
                f"console.log(JSON.stringify(rankFromFileName({json.dumps(name)})))",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(js.stdout) == rank


@pytest.mark.parametrize("script", sorted((REPO / "static/js").glob("*.js")), ids=lambda p: p.name)
def test_javascript_parses(script: Path, tmp_path: Path) -> None:
    """Every ES module of the site is valid JavaScript (a syntax error would break pages silently)."""
    if NODE is None:
        pytest.fail("node is required for the JavaScript tests")
    copy = tmp_path / (script.stem + ".mjs")
    copy.write_text(script.read_text())
    res = subprocess.run([NODE, "--check", str(copy)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_agree_across_block_boundaries(bundle_path: Path, tmp_path: Path) -> None:
    """A log of several read blocks, every line different, errors scattered: same result in both."""
    log = tmp_path / "rank3.log"
    examples = [
        line
        for p in sorted(REPO.glob("content/failures/*/logs/*.log"))[:40]
        for line in p.read_text().splitlines()[:30]
    ]
    with open(log, "w") as fh:
        for i in range(330_000):
            fh.write(
                f"[rank{i % 8}]: step {i} loss {i % 97 / 31:.4f} tokens/s {40000 + i % 977} grad_norm 0.{i % 89}\n"
            )
            if i % 9_973 == 0:
                fh.write(examples[(i // 9_973) % len(examples)] + "\n")
    assert log.stat().st_size > 2 * 8 * 1024 * 1024
    py = python_result(bundle_path, [log])
    assert py == node_result(bundle_path, [log])
    with open(log, "rb") as fh:
        assert py["lines"] == sum(1 for _ in fh)
