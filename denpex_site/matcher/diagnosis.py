"""The log matcher for terminals and CI: the same algorithm as static/js/matcher.js.

Both read the signature bundle (``/api/signatures.json``) and produce the same JSON. A log is read
in chunks of bytes, never whole, and only candidate lines found by the :class:`Engine` scan are
decoded and matched.

Diagnosis: every hit becomes evidence (file, line, rank, time, text). Hits are grouped into one
finding per entry; a finding's role is the strongest role among its signatures (root-cause, then
warning, then collateral). Findings are ranked by role, then by their earliest evidence (time when
both lines have one, else file order and line), then by score, then by id. A hit inside a Python
traceback also records the line where that traceback began.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from denpex_site.matcher.bundle import BUNDLE_VERSION, rank_from_file_name
from denpex_site.matcher.decisive import raised_by
from denpex_site.matcher.engine import MAX_LINE, TRACEBACK, Engine, Rule
from denpex_site.matcher.hang import HangTable

CHUNK = 32 * 1024 * 1024


MAX_CARRY = 4 * MAX_LINE
"""Bytes of an unfinished line kept while reading; a longer line is cut there and skipped."""


MAX_TEXT = 2000


EVIDENCE_CAP = 20


BINARY_SAMPLE = 8192


WRAP_SAMPLE = 1 << 20


WRAP_START = 5
"""Characters that tell a new record's start (``[rank``, ``2024-``) from a wrapped line's rest."""


BOX_EDGES = "│┃║╮╯╗╝┐┘┓┛|"
"""Right edges of a drawn box (a Rich traceback): lines of one width that end in one are a box, not wrapping."""


WRAP_LINES = 4000
"""Wrapping is detected on the first lines (at most this many) of the first MiB of a file."""


TRACEBACK_BYTES = TRACEBACK.encode()


SMALL = 1 << 20
"""Chunks up to this size are scanned line by line with the signature set."""


TRACEBACK_REACH = 400
"""A hit at most this many lines after a traceback start is attributed to that traceback."""


MAX_CONTINUATION = 4
"""Lines below an exception line that may carry on its message (a conda conflict, a state_dict diff)."""


MAX_ENDS = 100_000
"""Tracebacks whose ending exception is remembered (a log of millions of tracebacks keeps the first)."""


ROLE_ORDER = {"root-cause": 0, "warning": 1, "collateral": 2}


Key = tuple[dict[str, Any], int]
"""An evidence line with the index of its file: what the ordering compares."""


@dataclass
class Finding:
    id: str
    rules: dict[int, Rule] = field(default_factory=dict)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    count: int = 0
    first: Key | None = None
    first_root: Key | None = None
    roots: list[Key] = field(default_factory=list)


_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def looks_binary(sample: bytes) -> bool:
    """More than 1% NUL bytes, or more than 5% other control bytes (tab, CR, LF, FF and ESC aside)."""
    if not sample:
        return False
    nul = sample.count(0)
    control = len(sample) - len(sample.translate(None, _CONTROL))
    return nul * 100 > len(sample) or control * 20 > len(sample)


@dataclass
class FileState:
    """What reading one file has to remember between chunks."""

    index: int
    name: str
    tracebacks: dict[int | None, int] = field(default_factory=dict)
    frames: dict[int | None, tuple[int, str]] = field(default_factory=dict)
    context: dict[tuple[int | None, int], int] = field(default_factory=dict)
    """The last line, per rank and context, that matched a signature's ``traceback_has``."""
    continued: tuple[dict[str, Any], int | None, int, int] | None = None
    """The exception line whose message may go on below: its evidence, its rank, how many more
    lines it may take, and the last line it took (a line is offered once, however it is reached)."""
    wrap: Wrap | None = None
    pending: str | None = None
    pending_line: int = 0


WINDOW_BEFORE = 200
"""Characters kept before the matched part when a long line is cut to MAX_TEXT for its evidence."""


def window(line: str, start: int) -> str:
    """MAX_TEXT characters of a long line around a match that begins at ``start``: the match is
    never cut off at its start, and some of what precedes it stays."""
    lo = max(0, min(start - WINDOW_BEFORE, len(line) - MAX_TEXT))
    return line[lo : lo + MAX_TEXT]


class Wrap(NamedTuple):
    """How a log was wrapped: the width, and how its records start (to tell a wrapped line from a
    record that just fills the width)."""

    width: int
    starts: frozenset[str]


def detect_wrap(sample: bytes, complete: bool, ansi: re.Pattern[bytes]) -> Wrap | None:
    """How a terminal or a paste wrapped this log, or None.

    Wrapped output has many different lines of exactly the same, greatest length (ANSI codes
    aside): at least three, and at least 30% of the lines longer than three quarters of it; and
    some shorter lines, where wrapped lines end. Lines of one width that end in a box edge are a
    drawn box (a Rich traceback), not wrapping. The starts of records (the first line, and each
    line after a shorter one) are kept: a line at the width followed by a line that starts like a
    record was a whole record, and is not joined with it.
    """
    lines = ansi.sub(b"", sample).decode("utf-8", "replace").split("\n")
    lines = lines[:-1] if not complete or lines[-1] == "" else lines
    lengths = [len(x) - 1 if x.endswith("\r") else len(x) for x in lines[:WRAP_LINES]]
    if not lengths:
        return None
    widest = max(lengths)
    at_width = [x for x, n in zip(lines, lengths, strict=False) if n == widest]
    near = sum(1 for n in lengths if n * 4 >= widest * 3)
    ends = sum(1 for n in lengths if 0 < n < widest)
    if (
        widest >= 60
        and len(at_width) >= 3
        and len(at_width) * 10 >= near * 3
        and ends
        and len(set(at_width)) >= 3
        and sum(1 for x in at_width if x.rstrip("\r")[-1:] in BOX_EDGES) * 2 <= len(at_width)
    ):
        starts = frozenset(
            lines[i][:WRAP_START]
            for i in range(len(lengths))
            if (i == 0 or lengths[i - 1] < widest) and lengths[i] >= WRAP_START
        )
        return Wrap(widest, starts)
    return None
    widest = max(lengths)
    at_width = [x for x, n in zip(lines, lengths, strict=False) if n == widest]
    near = sum(1 for n in lengths if n * 4 >= widest * 3)
    ends = sum(1 for n in lengths if 0 < n < widest)
    # Separate records that happen to have one length (the same message from each rank) are each
    # followed by a line that starts like a record (like the first line, or a line after a short
    # one); a wrapped line is followed by its rest.
    starts = {
        x[:WRAP_START] for i, x in enumerate(lines[: len(lengths)]) if i == 0 or lengths[i - 1] < widest
    }
    records = sum(
        1
        for i, n in enumerate(lengths[:-1])
        if n == widest and len(lines[i + 1]) >= WRAP_START and lines[i + 1][:WRAP_START] in starts
    )
    if (
        widest >= 60
        and len(at_width) >= 3
        and len(at_width) * 10 >= near * 3
        and ends
        and len(set(at_width)) >= 3
        and records * 2 <= len(at_width)
        and sum(1 for x in at_width if x.rstrip("\r")[-1:] in BOX_EDGES) * 2 <= len(at_width)
    ):
        return widest
    return None


class Diagnosis:
    """Accumulates evidence over any number of logs; :meth:`result` ranks the findings."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.findings: dict[str, Finding] = {}
        self.files: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.lines = 0
        self.hang = HangTable.compile(engine.hang_rules, engine.entries)
        self.decisive: tuple[int, Key] | None = None
        self.raised: dict[tuple[int, int], dict[str, str]] = {}
        self.ends: dict[tuple[int, int | None, int], dict[str, Any]] = {}
        """The exception line that ended each traceback (file, rank, line it began at)."""

    # -- reading --------------------------------------------------------------------------------

    def add_text(self, text: str, name: str = "pasted log") -> None:
        data = text.encode("utf-8")
        self.add_stream(_BytesReader(data), name, len(data))

    def add_file(self, path: Path, name: str | None = None) -> None:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            self.add_stream(fh, name or path.name, size if size > 0 else None)

    def open_file(self, name: str) -> FileState:
        """Register a file; feed its text with :meth:`scan_lines`."""
        self.files.append({"name": name, "rank": rank_from_file_name(name), "lines": 0, "skipped": None})
        return FileState(len(self.files) - 1, name)

    def add_stream(self, stream: Readable, name: str, size: int | None = None) -> None:
        """Read a binary stream in blocks into one reused buffer; only candidate lines are decoded.

        ``size``, when known, keeps the buffer no larger than the stream needs.
        """
        source = _Decoded(stream)
        state = self.open_file(name)
        info = self.files[state.index]
        block = CHUNK if size is None else max(min(CHUNK, size + 1), 1 << 16)
        buf = bytearray(block + MAX_CARRY)
        view = memoryview(buf)
        filled = 0
        line_no = 0
        skipping = False
        n = source.readinto(view[:block])
        if n and not self._sniff(bytes(view[: min(n, WRAP_SAMPLE)]), n <= WRAP_SAMPLE, state, name):
            view.release()
            return
        while n:
            line_no, filled, skipping = self._scan_block(buf, filled + n, state, line_no, skipping, name)
            n = source.readinto(view[filled : filled + block])
        view.release()
        if skipping:
            line_no += 1
        elif filled:
            last = bytes(buf[:filled]) + b"\n"
            line_no = self.scan_lines(last, 0, len(last), state, line_no)
        self.finish_file(state)
        info["lines"] = line_no
        self.lines += line_no

    def _sniff(self, sample: bytes, complete: bool, state: FileState, name: str) -> bool:
        """Look at a file's first MiB (``complete`` when that is the whole file): False (with a
        note) for a binary file; else guess how it was wrapped."""
        if looks_binary(sample[:BINARY_SAMPLE]):
            self.files[state.index]["skipped"] = "binary"
            self.notes.append(f"{name}: looks like a binary file, not a text log; it was skipped.")
            return False
        state.wrap = detect_wrap(sample, complete, self.engine.ansi_bytes)
        return True

    def _scan_block(
        self, buf: bytearray, end: int, state: FileState, line_no: int, skipping: bool, name: str
    ) -> tuple[int, int, bool]:
        """Scan the whole lines in ``buf[:end]`` and move the unfinished last line to the front.

        Returns the line count so far, the length of the carried tail, and whether the reader is
        skipping the rest of an endless line."""
        start = 0
        if skipping:
            nl = buf.find(b"\n", 0, end)
            if nl < 0:
                return line_no, 0, True
            start = nl + 1
            line_no += 1
            skipping = False
        cut = buf.rfind(b"\n", start, end) + 1
        if cut > start:
            line_no = self.scan_lines(buf, start, cut, state, line_no)
        else:
            cut = start
        tail = end - cut
        if tail > MAX_CARRY:
            # An endless line: look at its head once, then skip to the next newline.
            head = bytes(buf[cut : cut + MAX_CARRY]) + b"\n"
            self.scan_lines(head, 0, len(head), state, line_no)
            self.notes.append(
                f"{name}: line {line_no + 1} is longer than {MAX_CARRY // 1024} KiB; only its start was read."
            )
            return line_no, 0, True
        buf[:tail] = buf[cut : cut + tail]
        return line_no, tail, skipping

    def finish_file(self, state: FileState) -> None:
        if state.pending is not None:
            self._finish_pending(state)
        state.continued = None

    def scan_lines(self, buf: bytes | bytearray, start: int, end: int, state: FileState, base: int) -> int:
        """Scan ``buf[start:end]``, whole lines ending with a newline, that follow line ``base``.

        Returns the number of the last line.
        """
        engine = self.engine
        if buf.find(b"\x1b", start, end) >= 0:
            buf = engine.ansi_bytes.sub(b"", bytes(buf[start:end]))
            start, end = 0, len(buf)
        if state.wrap is not None:
            return self._scan_wrapped(bytes(buf[start:end]), state, base)
        if engine.rule_set is not None and end - start <= SMALL:
            return self._scan_small(bytes(buf[start:end]), state, base)
        search = engine.scan_re.search
        line_no = base
        counted_to = start
        pos = start
        self._continue_in(buf, start, end, state, base + 1)
        while pos < end:
            m = search(buf, pos, end)
            if m is None:
                break
            first = buf.rfind(b"\n", start, m.start()) + 1 or start
            stop = buf.find(b"\n", m.start(), end)
            line_no += buf.count(b"\n", counted_to, first) + 1
            self._check_line(bytes(buf[first:stop]).decode("utf-8", "replace"), state, line_no)
            counted_to = pos = stop + 1
            self._continue_in(buf, pos, end, state, line_no + 1)
        return line_no + buf.count(b"\n", counted_to, end)

    def _continue_in(
        self, buf: bytes | bytearray, pos: int, end: int, state: FileState, line_no: int
    ) -> None:
        """Give the lines from ``pos`` (line ``line_no`` on) to an exception line's message while it may go on."""
        while state.continued is not None and pos < end:
            stop = buf.find(b"\n", pos, end)
            self._continue(bytes(buf[pos:stop]).decode("utf-8", "replace"), state, line_no)
            pos, line_no = stop + 1, line_no + 1

    def _continue(self, raw: str, state: FileState, line_no: int) -> None:
        """Add ``raw`` to the message of the exception line above it, or end that message: a blank
        line, another rank's line, a frame, a timestamped record or another candidate line ends it."""
        assert state.continued is not None
        at, rank, left, last = state.continued
        if line_no <= last:
            return
        engine = self.engine
        line = engine.clean(raw)
        own, body = engine.prefix(line)
        if own is None:
            own = self.files[state.index]["rank"]
        text = body.strip()
        if (
            not text
            or own != rank
            or TRACEBACK in line
            or engine.decisive.frame.match(body)
            or engine.decisive.kind(body) is not None
            or engine.stamp(body) is not None
        ):
            state.continued = None
            return
        at["text"] = (at["text"] + "\n" + body.rstrip())[:MAX_TEXT]
        state.continued = (at, rank, left - 1, line_no) if left > 1 else None

    def _scan_small(self, chunk: bytes, state: FileState, base: int) -> int:
        """A short chunk: ask the signature set about each line (cheaper than one big scan)."""
        match = self.engine.rule_set.Match  # type: ignore[union-attr]
        anchors = self.engine.line_anchor_bytes.search
        line_no = base
        for raw in chunk.split(b"\n")[:-1]:
            line_no += 1
            if state.continued is not None:
                self._continue(raw.decode("utf-8", "replace"), state, line_no)
            if TRACEBACK_BYTES in raw or match(raw) or anchors(raw):
                self._check_line(raw.decode("utf-8", "replace"), state, line_no)
        return line_no

    def _scan_wrapped(self, chunk: bytes, state: FileState, base: int) -> int:
        """The slow path for a terminal-wrapped log: rejoin lines cut at the wrap width, check each."""
        line_no = base
        wrap = state.wrap
        assert wrap is not None
        for raw in chunk.decode("utf-8", "replace").split("\n")[:-1]:
            line_no += 1
            bare = raw[:-1] if raw.endswith("\r") else raw
            if state.pending is not None and len(bare) >= WRAP_START and bare[:WRAP_START] in wrap.starts:
                self._finish_pending(state)  # the line above filled the width but was a whole record
            wrapped = len(bare) == wrap.width
            piece = bare if wrapped else raw
            if state.pending is None:
                state.pending, state.pending_line = piece, line_no
            elif len(state.pending) < MAX_LINE:
                state.pending += piece
            if not wrapped:
                self._finish_pending(state)
        return line_no

    def _finish_pending(self, state: FileState) -> None:
        """Check the line the wrapped pieces so far make up."""
        assert state.pending is not None
        if state.continued is not None:
            self._continue(state.pending, state, state.pending_line)
        self._check_line(state.pending, state, state.pending_line)
        state.pending = None

    def _check_line(self, raw: str, state: FileState, line_no: int) -> None:
        engine = self.engine
        line = engine.clean(raw)
        file_index, tracebacks = state.index, state.tracebacks
        rank, body = engine.prefix(line)
        if rank is None:
            rank = self.files[file_index]["rank"]
        if TRACEBACK in line:
            tracebacks[rank] = line_no
            state.frames.pop(rank, None)
        if any(a in line for a in engine.hang_anchors):
            self.hang.add(line, rank, state.name, line_no)
        kind = None
        if any(a in line for a in engine.decisive.anchors):
            frame = engine.decisive.frame.match(body)
            if frame is not None:
                state.frames[rank] = (line_no, frame.group(1) or frame.group(2))
                opened = tracebacks.get(rank)
                if opened is None or line_no - opened > TRACEBACK_REACH:
                    tracebacks[rank] = line_no  # a paste that starts inside a traceback
            else:
                kind = engine.decisive.kind(body)
        began = tracebacks.get(rank)
        if began is not None and line_no - began > TRACEBACK_REACH:
            began = None
        at = {"file": state.name, "line": line_no, "rank": rank, "time": None, "text": line[:MAX_TEXT]}
        timed = root = False
        rules, contexts = engine.candidates(line)
        for k in contexts:
            context = engine.contexts[k]
            if context.anchor in line and context.regex.search(line):
                state.context[(rank, k)] = line_no
        for rule in rules:
            if rule.anchor not in line:
                continue
            m = rule.regex.search(line)
            if m is None:
                continue
            if (rule.raised_in or rule.context is not None) and not self._in_context(
                rule, state, rank, began, line
            ):
                continue
            if not timed:
                at["time"], timed = engine.stamp(body), True
            evidence = {
                "file": at["file"],
                "line": line_no,
                "began": began,
                "rank": rank,
                "time": at["time"],
                "role": rule.role,
                "signature": rule.index,
                "text": at["text"] if len(line) <= MAX_TEXT else window(line, m.start()),
                "matched": m.group(0)[:MAX_TEXT],
            }
            self._record(rule, evidence, file_index)
            if rule.role in ("collateral", "warning") and kind is None:
                kind = rule.role
            elif rule.role == "root-cause":
                root = True
        if kind is None:
            return
        if not timed:
            at["time"] = engine.stamp(body)
        raised = self._raised_in(state, rank, began, line)
        if raised is not None and root:
            self.raised[(file_index, line_no)] = raised
        tier = engine.decisive.tiers[kind]
        if kind == "exception" and (raised is not None or TRACEBACK in line):
            tier = 0  # it ends a traceback (or a whole traceback flattened onto one line)
        at["kind"] = kind
        at["raised_in"] = raised if kind == "exception" else None
        if kind == "exception":  # its message may go on below (other lines end it in _continue)
            state.continued = (at, rank, MAX_CONTINUATION, line_no)
        if tier == 0 and kind == "exception" and began is not None and len(self.ends) < MAX_ENDS:
            self.ends.setdefault((file_index, rank, began), at)
        key = (at, file_index)
        best = self.decisive
        if best is None or tier < best[0] or (tier == best[0] and _compare(key, best[1]) < 0):
            self.decisive = (tier, key)

    def _raised_in(
        self, state: FileState, rank: int | None, began: int | None, line: str
    ) -> dict[str, str] | None:
        """The last frame of the traceback open on ``rank`` (or flattened onto ``line``), if any."""
        frame = state.frames.get(rank)
        if began is None:
            return None
        if frame is None or frame[0] < began:
            return self.engine.decisive.inline_raised_in(line) if TRACEBACK in line else None
        return self.engine.decisive.raised_in(frame[1])

    def _in_context(
        self, rule: Rule, state: FileState, rank: int | None, began: int | None, line: str
    ) -> bool:
        """Whether a hit of a signature that requires context is inside a traceback that has it: the
        line its ``traceback_has`` names, above it in the same traceback; the library or module
        path of ``raised_in`` in the traceback's last frame."""
        if began is None:
            return False
        if rule.context is not None and state.context.get((rank, rule.context), -1) < began:
            return False
        if rule.raised_in:
            raised = self._raised_in(state, rank, began, line)
            return raised is not None and raised_by(raised, rule.raised_in)
        return True

    def _record(self, rule: Rule, evidence: dict[str, Any], file_index: int) -> None:
        finding = self.findings.get(rule.entry)
        if finding is None:
            finding = self.findings[rule.entry] = Finding(rule.entry)
        key = (evidence, file_index)
        finding.count += 1
        finding.rules[rule.index] = rule
        if len(finding.evidence) < EVIDENCE_CAP:
            finding.evidence.append(evidence)
        if finding.first is None or _compare(key, finding.first) < 0:
            finding.first = key
        if rule.role == "root-cause":
            if len(finding.roots) < EVIDENCE_CAP:
                finding.roots.append(key)
            if finding.first_root is None or _compare(key, finding.first_root) < 0:
                finding.first_root = key

    # -- result ---------------------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        rows = []
        for f in self.findings.values():
            meta = self.engine.entries[f.id]
            roles = {r.role for r in f.rules.values()}
            role = min(roles, key=ROLE_ORDER.__getitem__)
            lead_key = f.first_root or f.first
            assert lead_key is not None
            rows.append(
                (
                    lead_key,
                    {
                        "id": f.id,
                        "title": meta["title"],
                        "category": meta["category"],
                        "severity": meta["severity"],
                        "role": role,
                        "score": round(sum(r.weight for r in f.rules.values()), 2),
                        "count": f.count,
                        "signatures": sorted(f.rules),
                        "first": lead_key[0],
                        "evidence": f.evidence,
                        "cause": meta["cause"],
                        "fix": meta["fix"],
                        "confirm": meta["confirm"],
                    },
                )
            )
        rows.sort(key=lambda kv: (ROLE_ORDER[kv[1]["role"]], _SortKey(kv[0]), -kv[1]["score"], kv[1]["id"]))
        findings = [row for _, row in rows]
        lead = next((f for f in findings if f["role"] == "root-cause"), None)
        initiating = None
        if lead is not None:
            ev = lead["first"]
            initiating = {
                "id": lead["id"],
                "file": ev["file"],
                "line": ev["line"],
                "began": ev["began"],
                "rank": ev["rank"],
                "time": ev["time"],
                "reason": None,
            }
        hang = self.hang.result()
        culprit = next((h for h in hang if h["rank"] is not None), None)
        if culprit is not None:
            # The rank that never reached the collective the others wait on started the failure.
            empty = {"id": None, "file": None, "line": None, "began": None, "time": None}
            initiating = {**(initiating or empty), "rank": culprit["rank"], "reason": culprit["reason"]}
        return {
            "schema_version": BUNDLE_VERSION,
            "files": self.files,
            "lines": self.lines,
            "findings": findings,
            "initiating": initiating,
            "hang": hang,
            "first_error": self._first_error(self.findings[lead["id"]] if lead is not None else None),
            "notes": self.notes,
        }

    def _first_error(self, lead: Finding | None) -> dict[str, Any] | None:
        """The decisive line (see :mod:`denpex_site.matcher.decisive`).

        When an entry matched, it agrees with the lead finding: the earliest exception that ends a
        traceback holding one of its root-cause lines (the entry may match a frame or code line
        there), else its first root-cause line. Otherwise the most decisive candidate line."""
        if lead is None:
            return dict(self.decisive[1][0]) if self.decisive is not None else None
        ends = []
        for ev, index in lead.roots:
            end = self.ends.get((index, ev["rank"], ev["began"])) if ev["began"] is not None else None
            if end is not None and end["line"] >= ev["line"]:
                ends.append((end, index))
        if ends:
            return dict(min(ends, key=_SortKey)[0])
        assert lead.first_root is not None
        ev, index = lead.first_root
        raised = self.raised.get((index, ev["line"]))
        keys = ("file", "line", "rank", "time", "text")
        return {**{k: ev[k] for k in keys}, "kind": "signature", "raised_in": raised}


def _compare(a: Key, b: Key) -> int:
    """Order two evidence lines: by time when both have one, else by file order, then line."""
    ta, tb = a[0]["time"], b[0]["time"]
    if ta and tb and ta != tb:
        return -1 if ta < tb else 1
    if a[1] != b[1]:
        return -1 if a[1] < b[1] else 1
    return (a[0]["line"] > b[0]["line"]) - (a[0]["line"] < b[0]["line"])


class _SortKey:
    __slots__ = ("key",)

    def __init__(self, key: Key) -> None:
        self.key = key

    def __lt__(self, other: _SortKey) -> bool:
        return _compare(self.key, other.key) < 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SortKey) and _compare(self.key, other.key) == 0


class Readable(Protocol):
    """What the matcher reads: a binary stream with ``readinto`` (files, stdin, in-memory bytes)."""

    def readinto(self, target: memoryview, /) -> int: ...


class _Decoded:
    """The bytes of a log as the matcher reads them: NUL bytes that open the file are dropped (a
    file preallocated before a crash), a UTF-8 byte-order mark is dropped, and a file that starts
    with a UTF-16 byte-order mark (PowerShell's ``>``) is decoded and read as UTF-8. Any other
    file is passed through untouched. static/js/matcher.js (``FileScan.push``) does the same."""

    def __init__(self, stream: Readable) -> None:
        self.stream = stream
        self.pending = b""
        self.started = False
        self.decoder: codecs.IncrementalDecoder | None = None
        self.done = False

    def _start(self, size: int) -> None:
        head = b""
        while True:  # the leading NUL bytes, however many blocks they fill
            block = self._read(size)
            head = block.lstrip(b"\0") if not head else head + block
            if head or not block:
                break
        while len(head) < 3 and head and (block := self._read(size)):
            head += block  # a BOM split across reads
        if head.startswith(codecs.BOM_UTF8):
            head = head[3:]
        elif head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            name = "utf-16-le" if head.startswith(codecs.BOM_UTF16_LE) else "utf-16-be"
            self.decoder = codecs.getincrementaldecoder(name)("replace")
            head = self.decoder.decode(head[2:]).encode("utf-8")
        self.pending = head
        self.started = True

    def _read(self, size: int) -> bytes:
        buf = bytearray(size)
        n = self.stream.readinto(memoryview(buf))
        return bytes(buf[:n])

    def readinto(self, target: memoryview) -> int:
        """Fill ``target`` as a file would (whole unless the log ends), so the first block the
        matcher inspects is as large as without this layer."""
        if not self.started:
            self._start(min(len(target), 1 << 16))
        n = min(len(self.pending), len(target))
        target[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        while n < len(target) and not self.done:
            if self.decoder is None:
                got = self.stream.readinto(target[n:])
                self.done = not got
                n += got
                continue
            raw = self._read(min(len(target) - n, 1 << 20))
            self.done = not raw
            text = self.decoder.decode(raw, final=self.done).encode("utf-8")
            take = min(len(text), len(target) - n)
            target[n : n + take] = text[:take]
            self.pending = text[take:]
            n += take
            if self.pending:
                break
        return n


class _BytesReader:
    """``readinto`` over bytes already in memory (pasted text)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def readinto(self, target: memoryview) -> int:
        out = self.data[self.pos : self.pos + len(target)]
        target[: len(out)] = out
        self.pos += len(out)
        return len(out)
