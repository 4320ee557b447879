"""Throughput and memory of the log matcher next to ripgrep, on one generated torchrun-style log.

    python bench/diagnose_bench.py [--size-mb 1024] [--repeat 3] [--write]

Builds the site (for the real signature bundle), generates a log of --size-mb MiB (8 ranks,
timestamps, progress and NCCL-style lines, with real error lines from the entries' example logs
mixed in), then times on the same file and the same patterns:

* ``rg -c -f patterns.txt`` (Debian's ripgrep), the reference;
* the terminal matcher, ``python -m denpex_site diagnose --json``;
* the JavaScript core under Node (tests/js/diagnose.mjs);
* the JavaScript core in Chromium, through the /diagnose/ page's file input and Web Worker.

Each command runs --repeat times; the median wall time gives the throughput. Peak memory is the
child's maximum resident set size (wait4). With --write the table replaces the "## Log matcher"
section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from denpex_site.build.builder import Builder  # noqa: E402
from tests.browser import CHROMIUM_ARGS, CHROMIUM_PATH, static_server  # noqa: E402

HEALTHY = [
    "[rank{r}]:[{d} {t},{ms:03d}] INFO train.py:{ln}: epoch {e} step {st} loss {l:.4f} lr {lr:.2e} grad_norm {g:.3f}",
    "[rank{r}]: {st}/{tot} [{m:02d}:{s:02d}<01:23:45, {it:.2f}it/s, loss={l:.4f}]",
    "[rank{r}]: W1130 {t}.{us:06d} {pid} torch/distributed/run.py:{ln}] dataloader worker {w} fetched batch {st} in {it:.3f}s",
    "[rank{r}]: node{n}:{pid}:{pid} [{w}] NCCL INFO Channel {w:02d}/32 : {r} -> {n} via P2P/IPC/read",
    "[rank{r}]:[{d} {t},{ms:03d}] INFO checkpoint.py:{ln}: saved shard {w} of step {st} to /scratch/run42/ckpt/step{st}/rank{r}.pt",
]


def error_lines() -> list[str]:
    """Lines of the real example logs that some signature matches: the errors to mix in."""
    bundle = json.loads((ROOT / "denpex_site/data/signatures.json").read_text())
    rules = [re.compile(s["regex"]) for s in bundle["signatures"]]
    found = []
    for log in sorted(ROOT.glob("content/failures/*/logs/*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if any(r.search(line) for r in rules):
                found.append(line.strip()[:400])
    return sorted(set(found))


def generate(path: Path, size: int, seed: int = 42) -> None:
    rng = random.Random(seed)
    errors = error_lines()
    written = 0
    i = 0
    with open(path, "w", encoding="utf-8") as out:
        while written < size:
            lines = []
            for _ in range(2000):
                i += 1
                r = rng.randrange(8)
                secs = i // 400
                t = f"{12 + secs // 3600 % 12:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
                template = HEALTHY[rng.randrange(len(HEALTHY))]
                lines.append(
                    template.format(
                        r=r,
                        d="2026-11-30",
                        t=t,
                        ms=i % 1000,
                        ln=i % 900,
                        e=i // 100000,
                        st=i,
                        tot=10**7,
                        l=rng.random() * 3,
                        lr=3e-4,
                        g=rng.random() * 2,
                        m=i // 60 % 60,
                        s=i % 60,
                        it=rng.random() * 10,
                        us=i % 10**6,
                        pid=4000 + r,
                        w=i % 32,
                        n=r // 4,
                    )
                )
            if errors and rng.random() < 0.05:
                lines[rng.randrange(len(lines))] = f"[rank{rng.randrange(8)}]: {rng.choice(errors)}"
            chunk = "\n".join(lines) + "\n"
            out.write(chunk)
            written += len(chunk)


def run(cmd: list[str]) -> tuple[float, float, int, bytes]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of one child process, and its output."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        sink.seek(0)
        output = sink.read()
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"{cmd[0]} failed with status {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, output


def chromium(site: Path, log: Path) -> float:
    from playwright.sync_api import sync_playwright

    with static_server(site) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(base + "/diagnose/")
        page.set_input_files("#log-files", str(log))
        start = time.perf_counter()
        page.click("#diagnose-form button[type=submit]")
        page.wait_for_selector("#diagnosis-results[data-state=done]", timeout=600_000)
        wall = time.perf_counter() - start
        found = page.locator("#diagnosis-results [data-entry-id]").count()
        browser.close()
    if not found:
        raise RuntimeError("Chromium found nothing in the generated log")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument("--workdir", default=None, help="keep the generated log here between runs")
    args = parser.parse_args()

    work = Path(args.workdir or tempfile.mkdtemp(prefix="denpex-diag-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    site = work / "site"
    Builder(ROOT, site).build()
    bundle = site / "api/signatures.json"
    patterns = work / "patterns.txt"
    patterns.write_text("\n".join(s["regex"] for s in json.loads(bundle.read_text())["signatures"]) + "\n")
    log = work / f"train-{args.size_mb}mb.log"
    if not log.exists() or log.stat().st_size < args.size_mb << 20:
        print(f"generating {log} ...", file=sys.stderr)
        generate(log, args.size_mb << 20)
    size_mb = log.stat().st_size / (1 << 20)
    node = shutil.which("node") or "node"
    commands = {
        "ripgrep (rg -c -f)": ["rg", "-c", "-f", str(patterns), str(log)],
        "Python terminal matcher": [
            sys.executable,
            "-m",
            "denpex_site",
            "diagnose",
            "--json",
            "--bundle",
            str(bundle),
            str(log),
        ],
        "JavaScript core in Node": [node, str(ROOT / "tests/js/diagnose.mjs"), str(bundle), str(log)],
    }
    rows = []
    outputs = {}
    for name, cmd in commands.items():
        runs = [run(cmd) for _ in range(args.repeat)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        rows.append((name, wall, cpu, max(r[2] for r in runs)))
        outputs[name] = runs[0][3]
        print(f"{name}: {wall:.2f}s wall, {cpu:.2f}s CPU, {rows[-1][3]} MiB", file=sys.stderr)
    py = json.loads(outputs["Python terminal matcher"])
    js = json.loads(outputs["JavaScript core in Node"])
    # The CLI names a file by the path it was given, the Node runner by its base name.
    agree = json.loads(json.dumps(py).replace(str(log.parent) + "/", "")) == js
    if not args.no_browser:
        walls = [chromium(site, log) for _ in range(args.repeat)]
        rows.append(("JavaScript core in Chromium (Web Worker)", statistics.median(walls), None, None))
        print(f"Chromium: {rows[-1][1]:.2f}s wall", file=sys.stderr)
    rg_wall = rows[0][1]
    table = [
        "| matcher | wall s (median) | MB/s | vs ripgrep | CPU s | peak RSS MiB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, wall, cpu, rss in rows:
        table.append(
            f"| {name} | {wall:.2f} | {size_mb / wall:.0f} | {rg_wall / wall:.2f}x | "
            f"{'' if cpu is None else f'{cpu:.2f}'} | {'' if rss is None else rss} |"
        )
    findings = len(py["findings"])
    text = "\n".join(table)
    print(text)
    if args.write:
        section = (
            "## Log matcher\n\n"
            f"Command: `python bench/diagnose_bench.py --size-mb {args.size_mb} --repeat {args.repeat}` "
            f"({dt.date.today().isoformat()}; {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
            f"Python {platform.python_version()}, {subprocess.run(['rg', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}, "
            f"Node {subprocess.run([node, '--version'], capture_output=True, text=True).stdout.strip()}).\n\n"
            f"One generated torchrun-style log of {size_mb:.0f} MiB ({py['lines']:,} lines, 8 ranks), "
            f"{len(json.loads(bundle.read_text())['signatures'])} signatures from the real bundle; "
            f"{findings} known failures found; Python and Node results identical: {'yes' if agree else 'NO'}.\n"
            "Targets: each matcher at least half of ripgrep's throughput (0.50x), peak memory under 300 MiB.\n\n"
            + text
            + "\n"
        )
        replace_section(ROOT / "docs/benchmarks.md", "## Log matcher", section)
    return 0 if agree else 1


def replace_section(path: Path, heading: str, section: str) -> None:
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.S | re.M)
    text = pattern.sub(section + "\n", text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
