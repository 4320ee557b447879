"""Follow a growing log (like ``tail -F``) and alert the moment a known failure's line appears.

The file is polled. It is read again from its start when it is replaced (a new inode, as log
rotation does), when it shrinks, and when it was truncated and grew back past the point already
read between two polls: the bytes just before that point are kept and compared on every poll.
Each such new start is a new run, so a failure seen before alerts again. Only complete lines are
matched; each alert names the entry, the line and its link, once per entry and run: root causes
as ALERT, warnings and collateral lines (what the victims of a failure print) marked as such.
``--stall`` alerts when the log stops growing. ``--exec`` runs a shell command on the first alert
of each run and on each stall, with the finding in DENPEX_* environment variables (listed in
``denpex-site watch --help``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from denpex_site.matcher.diagnosis import CHUNK, Diagnosis, FileState
from denpex_site.matcher.engine import Engine
from denpex_site.terminal import safe

TAIL = 256
"""Bytes before the read offset kept to notice a file rewritten in place between two polls."""


class Follower:
    """The complete new lines of one file, poll after poll, across rotation and truncation."""

    def __init__(self, path: Path, *, from_end: bool = False) -> None:
        self.path = path
        self.from_end = from_end
        self.fh: IO[bytes] | None = None
        self.inode: int | None = None
        self.offset = 0
        self.tail = b""
        self.carry = b""
        self.restarted = False
        """Set when the file was found replaced or rewritten: the caller starts a new run."""

    def _rewritten(self, size: int) -> bool:
        """True when the bytes before the offset are no longer those that were read there."""
        if size < self.offset:
            return True
        if not self.tail or self.fh is None:
            return False
        self.fh.seek(self.offset - len(self.tail))
        same = self.fh.read(len(self.tail)) == self.tail
        self.fh.seek(self.offset)
        return not same

    def _open(self, st: os.stat_result, first: bool) -> None:
        if self.fh is not None:
            self.fh.close()
        self.fh = open(self.path, "rb")  # noqa: SIM115 - kept open across polls, closed by close()
        self.inode = st.st_ino
        self.offset = st.st_size if (first and self.from_end) else 0
        self.fh.seek(self.offset)
        self.tail = b""
        self.carry = b""

    def poll(self) -> bytes:
        """The whole lines that arrived since the last poll (empty when none)."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return b""
        if self.fh is None:
            self._open(st, first=True)
        elif st.st_ino != self.inode or self._rewritten(st.st_size):
            self._open(st, first=False)
            self.restarted = True
        assert self.fh is not None
        block = self.fh.read(CHUNK)
        if not block:
            return b""
        self.offset += len(block)
        self.tail = (self.tail + block)[-TAIL:]
        data = self.carry + block
        cut = data.rfind(b"\n") + 1
        self.carry = data[cut:]
        return data[:cut]

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()


class Run:
    """One generation of the file: its diagnosis and the entries already alerted on."""

    def __init__(self, engine: Engine, name: str) -> None:
        self.diagnosis = Diagnosis(engine)
        self.state: FileState = self.diagnosis.open_file(name)
        self.line_no = 0
        self.alerted: set[str] = set()

    def new_findings(self, chunk: bytes) -> Iterator[dict[str, Any]]:
        """The findings not alerted on yet in this run, root causes first."""
        self.line_no = self.diagnosis.scan_lines(chunk, 0, len(chunk), self.state, self.line_no)
        for finding in self.diagnosis.result()["findings"]:
            if finding["id"] not in self.alerted:
                self.alerted.add(finding["id"])
                yield finding


HEADINGS = {
    "root-cause": "ALERT",
    "warning": "WARNING",
    "collateral": "COLLATERAL (printed by the victims of a failure: the cause may be on another rank or earlier)",
}


def _alert(finding: dict[str, Any], name: str, base_url: str) -> None:
    ev = finding["first"]
    rank = f", rank {ev['rank']}" if ev["rank"] is not None else ""
    lines = [f"{HEADINGS[finding['role']]} {safe(finding['title'])} at {safe(name)}:{ev['line']}{rank}"]
    lines.append(f"  > {safe(ev['text'][:300])}")
    if finding["role"] != "collateral":
        lines += [f"  cause: {safe(finding['cause'])}", f"  fix:   {safe(finding['fix'])}"]
    lines.append(f"  {base_url}/failures/{finding['id']}/")
    print("\n".join(lines), flush=True)


def _run_command(command: str, path: Path, role: str, entry: str, line: int, rank: int | None) -> None:
    env = dict(os.environ, DENPEX_ROLE=role, DENPEX_ENTRY=entry, DENPEX_FILE=str(path), DENPEX_LINE=str(line))
    env["DENPEX_RANK"] = "" if rank is None else str(rank)
    subprocess.run(command, shell=True, env=env, check=False)


def watch(
    path: Path,
    bundle: dict[str, Any],
    *,
    base_url: str,
    command: str | None = None,
    from_end: bool = False,
    interval: float = 0.25,
    exit_on_alert: bool = False,
    stall: float | None = None,
    max_polls: int | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Follow ``path`` until interrupted (or ``max_polls``); 0 when anything alerted, else 1.

    ``stall``: minutes without a new line after which the log counts as stopped (alerted once,
    until it grows again)."""
    engine = Engine(bundle)
    follower = Follower(path, from_end=from_end)
    run = Run(engine, path.name)
    alerted_ever = False
    polls = 0
    grew = clock()
    stalled = False
    print(f"watching {safe(str(path))} (Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        while max_polls is None or polls < max_polls:
            polls += 1
            chunk = follower.poll()
            if follower.restarted:
                follower.restarted = False
                print(
                    f"{safe(str(path))} was replaced or truncated: reading it from the start",
                    file=sys.stderr,
                    flush=True,
                )
                run = Run(engine, path.name)
            if not chunk:
                if stall is not None and not stalled and clock() - grew >= stall * 60:
                    stalled = alerted_ever = True
                    print(
                        f"STALL {safe(path.name)} has had no new line for {stall:g} minute(s) "
                        f"(last line read: {run.line_no}): a hang, or a job that died without a word",
                        flush=True,
                    )
                    if command:
                        _run_command(command, path, "stall", "", run.line_no, None)
                    if exit_on_alert:
                        return 0
                time.sleep(interval)
                continue
            grew, stalled = clock(), False
            for finding in run.new_findings(chunk):
                first_of_run = len(run.alerted) == 1
                alerted_ever = True
                _alert(finding, path.name, base_url)
                if command and first_of_run:
                    ev = finding["first"]
                    _run_command(command, path, finding["role"], finding["id"], ev["line"], ev["rank"])
                if exit_on_alert:
                    return 0
    except KeyboardInterrupt:
        pass
    finally:
        follower.close()
    return 0 if alerted_ever else 1
