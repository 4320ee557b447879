// The log matcher core, the same algorithm as denpex_site/matcher/diagnosis.py: both read the signature
// bundle and give the same JSON. Pure ES module without DOM access: it runs in a Web Worker in the
// browser and under Node. Bytes arrive in blocks; an Aho-Corasick automaton over the signatures'
// anchors (literal words every match contains) finds the few candidate lines in the raw bytes, and
// only those are decoded, cleaned and checked against each signature.

export const BUNDLE_VERSION = 2;
const MAX_LINE = 65536;
const MAX_CARRY = 4 * MAX_LINE;
const MAX_TEXT = 2000;
const EVIDENCE_CAP = 20;
const BINARY_SAMPLE = 8192;
const WRAP_SAMPLE = 1 << 20;
const WRAP_START = 5;
const BOX_EDGES = "│┃║╮╯╗╝┐┘┓┛|";
const WRAP_LINES = 4000;
const BLOCK = 8 << 20;
const NEWLINE = 10;
const ESC = 27;
const TRACEBACK = "Traceback (most recent call last)";
const TRACEBACK_REACH = 400;
const MAX_ENDS = 100000;
const MAX_CONTINUATION = 4;
const ROLE_ORDER = { "root-cause": 0, warning: 1, collateral: 2 };

/** A copy of a short string that does not keep the block it was cut from alive. */
const own = (s) => JSON.parse(JSON.stringify(s));

/**
 * A deterministic Aho-Corasick automaton over UTF-8 bytes. ``step[state + byteClass[b]]`` is the
 * next state, pre-multiplied by the number of classes; it is negative (``-next - 1``) when an
 * anchor ends at that byte or the byte is a newline or an escape, the events the scan stops for.
 */
function automaton(words) {
  const encoded = words.map((w) => encoder.encode(w));
  const byteClass = new Uint16Array(256);
  let classes = 1;
  byteClass[NEWLINE] = classes++;
  byteClass[ESC] = classes++;
  for (const w of encoded) for (const b of w) if (!byteClass[b]) byteClass[b] = classes++;
  const children = [new Map()];
  const accepts = [false];
  for (const w of encoded) {
    let state = 0;
    for (const b of w) {
      let next = children[state].get(byteClass[b]);
      if (next === undefined) {
        next = children.length;
        children.push(new Map());
        accepts.push(false);
        children[state].set(byteClass[b], next);
      }
      state = next;
    }
    accepts[state] = true;
  }
  const goto = new Int32Array(children.length * classes);
  const fail = new Int32Array(children.length);
  const queue = [];
  for (const [k, next] of children[0]) {
    goto[k] = next;
    queue.push(next);
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head];
    accepts[state] ||= accepts[fail[state]];
    for (let k = 1; k < classes; k++) {
      const next = children[state].get(k);
      if (next === undefined) goto[state * classes + k] = goto[fail[state] * classes + k];
      else {
        fail[next] = goto[fail[state] * classes + k];
        goto[state * classes + k] = next;
        queue.push(next);
      }
    }
  }
  const step = new Int32Array(goto.length);
  for (let i = 0; i < goto.length; i++) {
    const next = goto[i] * classes;
    const k = i % classes;
    step[i] = accepts[goto[i]] || k === byteClass[NEWLINE] || k === byteClass[ESC] ? -next - 1 : next;
  }
  return { byteClass, step, lines: lineScanner(byteClass, step) };
}

/**
 * The scan loop, made once per automaton: V8 compiles the tables it closes over as constants,
 * which makes the loop markedly faster than reading them from an object. ``lines(data, found)``
 * counts the lines of ``data`` (whole lines, ending with a newline) and calls
 * ``found(start, end, index, escaped)`` for each line in which an anchor ends, or which holds an
 * escape byte (its ANSI codes may split an anchor).
 */
function lineScanner(byteClass, step) {
  return (data, found) => {
    let lines = 0;
    let lineStart = 0;
    let state = 0;
    let escaped = false;
    for (let i = 0, end = data.length; i < end; i++) {
      state = step[state + byteClass[data[i]]];
      if (state >= 0) continue;
      state = -state - 1;
      const byte = data[i];
      if (byte === ESC) {
        escaped = true;
        continue;
      }
      if (byte !== NEWLINE) {
        i = data.indexOf(NEWLINE, i);
        found(lineStart, i, lines, false);
        state = 0;
      } else if (escaped) found(lineStart, i, lines, true);
      escaped = false;
      lines += 1;
      lineStart = i + 1;
    }
    return lines;
  };
}

export function compileBundle(bundle) {
  if (bundle.schema_version !== BUNDLE_VERSION) throw new Error(`unsupported signature bundle version ${bundle.schema_version}`);
  const norm = bundle.normalize;
  // Lines that signatures require in the same traceback (``traceback_has``), each compiled once.
  const contexts = [];
  const contextIndex = new Map();
  const rules = bundle.signatures.map((s) => {
    let context = null;
    if (s.traceback_has) {
      const ctx = s.traceback_has;
      if (!contextIndex.has(ctx.regex)) {
        contextIndex.set(ctx.regex, contexts.length);
        contexts.push({ anchor: ctx.anchor, re: new RegExp(ctx.regex, "u") });
      }
      context = contextIndex.get(ctx.regex);
    }
    return { ...s, re: new RegExp(s.regex, "u"), raised_in: s.raised_in ?? null, context };
  });
  const d = norm.decisive;
  const decisive = {
    anchors: d.anchors,
    frame: new RegExp(d.frame, "u"),
    inlineFrame: new RegExp(d.inline_frame, "gu"),
    library: new RegExp(d.library, "u"),
    lines: d.lines.map(([kind, rx]) => [kind, new RegExp(rx, "u")]),
    tiers: d.tiers,
  };
  const hangAnchors = norm.hang.anchors;
  const anchors = [...new Set([...bundle.signatures.map((s) => s.anchor), ...contexts.map((x) => x.anchor), TRACEBACK, ...d.anchors, ...hangAnchors])];
  return {
    decisive,
    contexts,
    hang: norm.hang,
    hangAnchors,
    entries: bundle.entries,
    ansi: new RegExp(norm.ansi, "g"),
    progress: new RegExp(norm.progress),
    prefixes: norm.rank_prefixes.map((p) => new RegExp(p.regex, "u")),
    stamps: norm.timestamps.map((t) => new RegExp(t.regex, "u")),
    rules,
    scan: automaton(anchors),
  };
}

/** The bundle's masking table, compiled: what is hidden before a report leaves the machine. */
export function compileMasks(masks) {
  return masks.map((m) => ({ re: new RegExp(m.regex, "gm"), replacement: m.replacement }));
}

/** ``text`` with private details replaced by <kind> markers, as denpex_site.matcher.normalise.mask does. */
export function mask(text, masks) {
  for (const m of masks) text = text.replace(m.re, m.replacement);
  return text;
}

/** Strip ANSI codes, cap the length and keep what a terminal shows after carriage returns. */
export function cleanLine(compiled, line) {
  if (line.includes("\x1b")) line = line.replace(compiled.ansi, "");
  if (line.length > MAX_LINE) line = line.slice(0, MAX_LINE);
  if (line.includes("\r")) {
    // The last part a terminal shows, unless it is a progress bar written over a message.
    const parts = line.split("\r").filter((p) => p.length > 0);
    const text = parts.filter((p) => !compiled.progress.test(p));
    const kept = text.length ? text : parts;
    line = kept.length ? kept[kept.length - 1] : "";
  }
  return line;
}

function prefix(c, line) {
  for (const re of c.prefixes) {
    const m = re.exec(line);
    if (m && m.index === 0) return [Number(m[1]), line.slice(m[0].length)];
  }
  return [null, line];
}

const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";

export function normaliseTime(date, clock) {
  const mmdd = date.includes("-")
    ? date.slice(5, 7) + date.slice(8, 10)
    : /^[A-Za-z]/.test(date)
      ? String(MONTHS.indexOf(date.slice(0, 3)) / 3 + 1).padStart(2, "0") + date.slice(3).trim().padStart(2, "0")
      : date.padStart(4, "0");
  const [hms, frac = ""] = clock.replace(",", ".").split(".");
  return `${mmdd} ${hms}.${(frac + "000000").slice(0, 6)}`;
}

function stamp(c, rest) {
  for (const re of c.stamps) {
    const m = re.exec(rest);
    if (m && m.index === 0) return normaliseTime(m[1], m[2]);
  }
  return null;
}

/** The rank named by a file such as ``rank3.log`` or ``worker-3.txt``, else null. */
export function rankFromFileName(name) {
  const base = name.split(/[\\/]/).pop();
  const m = /(?:^|[^A-Za-z])(?:rank|worker|proc|process)[-_.]?([0-9]{1,6})(?:\.[A-Za-z0-9]+)*$/i.exec(base);
  return m ? Number(m[1]) : null;
}

/** More than 1% NUL bytes, or more than 5% other control bytes (tab, CR, LF, FF and ESC aside). */
export function looksBinary(sample) {
  let nul = 0;
  let control = 0;
  for (const b of sample) {
    if (b === 0) nul++;
    else if (b < 32 && b !== 9 && b !== 10 && b !== 12 && b !== 13 && b !== 27) control++;
  }
  return sample.length > 0 && (nul * 100 > sample.length || (nul + control) * 20 > sample.length);
}

/** The width a terminal or a paste wrapped this log at, or null (see diagnose.detect_wrap). */
export function detectWrap(c, sample, complete) {
  let lines = decoder.decode(sample).replace(c.ansi, "").split("\n");
  if (!complete || lines[lines.length - 1] === "") lines = lines.slice(0, -1);
  const lengths = lines.slice(0, WRAP_LINES).map((x) => (x.endsWith("\r") ? x.length - 1 : x.length));
  if (!lengths.length) return null;
  const widest = lengths.reduce((a, b) => Math.max(a, b), 0);
  const atWidth = lines.slice(0, WRAP_LINES).filter((_, i) => lengths[i] === widest);
  const near = lengths.filter((n) => n * 4 >= widest * 3).length;
  const ends = lengths.filter((n) => n > 0 && n < widest).length;
  const ok = widest >= 60 && atWidth.length >= 3 && atWidth.length * 10 >= near * 3 && ends > 0 && new Set(atWidth).size >= 3 && atWidth.filter((x) => BOX_EDGES.includes(x.replace(/\r$/, "").slice(-1) || "\0")).length * 2 <= atWidth.length;
  if (!ok) return null;
  // How records start (the first line, each line after a shorter one): a line at the width followed
  // by a line that starts like a record was a whole record.
  const starts = new Set();
  for (let i = 0; i < lengths.length; i++) if ((i === 0 || lengths[i - 1] < widest) && lengths[i] >= WRAP_START) starts.add(lines[i].slice(0, WRAP_START));
  return { width: widest, starts };
}

const WINDOW_BEFORE = 200;

/** MAX_TEXT characters of a long line around a match at ``start`` (see diagnosis.window). */
function window(line, start) {
  const lo = Math.max(0, Math.min(start - WINDOW_BEFORE, line.length - MAX_TEXT));
  return line.slice(lo, lo + MAX_TEXT);
}

/** The first decisive-line kind whose rule matches a line's text after its rank prefix. */
function lineKind(c, body) {
  for (const [kind, re] of c.decisive.lines) if (re.test(body)) return kind;
  return null;
}

/** Where a frame's file is: its path (under site-packages when it is there) and library. */
function frameAt(c, path) {
  const m = c.decisive.library.exec(path);
  if (!m) return { path: path.replaceAll("\\", "/"), library: "" };
  const inner = m[1].replaceAll("\\", "/");
  let library = inner.split("/", 1)[0];
  if (library.endsWith(".py")) library = library.slice(0, -3);
  return { path: inner, library };
}

/** The last frame of the traceback open on a rank (or flattened onto ``line``), if any. */
function raisedIn(c, frame, began, line) {
  if (began === null) return null;
  if (!frame || frame[0] < began) {
    if (!line.includes(TRACEBACK)) return null;
    const frames = [...line.matchAll(c.decisive.inlineFrame)];
    return frames.length ? frameAt(c, frames[frames.length - 1][1]) : null;
  }
  return frameAt(c, frame[1]);
}

/** Whether a frame is in ``wanted``: a module path (with a slash or ending in .py), else a library. */
function raisedBy(raised, wanted) {
  if (wanted.includes("/") || wanted.endsWith(".py")) return raised.path.includes(wanted);
  return raised.library === wanted || `/${raised.path}`.includes(`/${wanted}/`);
}

function compare(a, b) {
  const ta = a.ev.time, tb = b.ev.time;
  if (ta && tb && ta !== tb) return ta < tb ? -1 : 1;
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.ev.line === b.ev.line ? 0 : a.ev.line < b.ev.line ? -1 : 1;
}

const MAX_RANKS = 4096;

/**
 * Watchdog and progress lines per process group and rank: which rank never reached the collective
 * the others wait on (denpex_site/matcher/hang.py, the same rules from the bundle).
 */
class HangTable {
  constructor(rules, entries) {
    this.rankRe = new RegExp(rules.rank, "u");
    this.timeoutRe = new RegExp(rules.timeout, "u");
    this.progressRe = new RegExp(rules.progress, "u");
    this.causes = rules.causes.filter((c) => c in entries);
    this.groups = new Map();
  }

  add(line, rank, file, lineNo) {
    const timeout = this.timeoutRe.exec(line);
    const progress = timeout ? null : this.progressRe.exec(line);
    if (!timeout && !progress) return;
    const named = this.rankRe.exec(line);
    const group = named && named[1] ? pgName(named[1]) : "";
    if (named) rank = Number(named[2]);
    if (rank === null) return;
    if (!this.groups.has(group)) this.groups.set(group, new Map());
    const rows = this.groups.get(group);
    let row = rows.get(rank);
    if (!row) {
      if (rows.size >= MAX_RANKS) return;
      row = { rank, file, line: lineNo, seq: null, op: null, numel_in: null, numel_out: null, enqueued: null, completed: null };
      rows.set(rank, row);
    }
    if (timeout) {
      const seq = Number(timeout[1]);
      if (row.seq === null || seq > row.seq) {
        Object.assign(row, { seq, op: timeout[2], file, line: lineNo });
        row.numel_in = timeout[3] ? Number(timeout[3]) : null;
        row.numel_out = timeout[4] ? Number(timeout[4]) : null;
      }
    } else {
      row.enqueued = newer(row.enqueued, Number(progress[1]));
      row.completed = newer(row.completed, Number(progress[2]));
    }
  }

  result() {
    const names = [...this.groups.keys()].sort((a, b) => {
      const da = a === "" || a === "default_pg" ? 0 : 1;
      const db = b === "" || b === "default_pg" ? 0 : 1;
      return da - db || (a < b ? -1 : a > b ? 1 : 0);
    });
    const out = [];
    for (const name of names) {
      const rows = this.groups.get(name);
      const waited = [...rows.values()].filter((r) => r.seq !== null);
      if (waited.length) out.push(this.analyse(name, rows, waited));
    }
    return out;
  }

  analyse(name, rows, waited) {
    const all = [...rows.values()];
    const target = Math.max(...all.map(reached));
    const op = waited.find((r) => r.seq === target)?.op ?? null;
    const behind = all.filter((r) => reached(r) < target).map((r) => r.rank).sort((a, b) => a - b);
    const top = Math.max(...rows.keys());
    const silent = [];
    if (rows.size >= 2 && top < MAX_RANKS) for (let k = 0; k <= top; k++) if (!rows.has(k)) silent.push(k);
    const sizes = [...new Set(waited.filter((r) => r.seq === target && r.numel_in !== null).map((r) => r.numel_in))].sort((a, b) => a - b);
    const what = `SeqNum ${target}` + (op ? ` (${op})` : "");
    let culprit = null;
    let reason;
    if (behind.length) {
      culprit = behind[0];
      reason = `rank ${culprit} never reached ${what}: its last collective is SeqNum ${reached(rows.get(culprit))}`;
      if (behind.length > 1) reason += ` (ranks behind: ${behind.join(", ")})`;
    } else if (silent.length === 1) {
      culprit = silent[0];
      reason = `rank ${culprit} printed no watchdog line while the other ranks waited on ${what}: it most likely never reached it (or its log is not in the input)`;
    } else if (silent.length) {
      reason = `ranks ${silent.join(", ")} printed no watchdog line while the others waited on ${what}`;
    } else if (sizes.length > 1) {
      reason = `every rank reached ${what}, but with different sizes (NumelIn [${sizes.join(", ")}]): the ranks disagree on the collective`;
    } else {
      reason = `every rank in the log waited on ${what}: no rank is behind here; the slow rank's log may be missing`;
    }
    const ranks = [...rows.keys()].sort((a, b) => a - b).map((k) => ({ ...rows.get(k) }));
    return { pg: name || null, seq: target, op, ranks, behind, silent, rank: culprit, reason, causes: this.causes };
  }
}

function pgName(text) {
  const m = /\(([^()]{1,80})\)/.exec(text);
  return m ? m[1] : text.trim();
}

const newer = (old, value) => (old === null || value > old ? value : old);
const reached = (r) => Math.max(...[r.seq, r.enqueued, -1].filter((x) => x !== null));

/** Accumulates evidence over any number of logs; ``result()`` ranks the findings. */
export class Diagnosis {
  constructor(compiled) {
    this.c = compiled;
    this.findings = new Map();
    this.files = [];
    this.notes = [];
    this.lines = 0;
    this.decisive = null;
    this.hang = new HangTable(compiled.hang, compiled.entries);
    this.raised = new Map();
    /** The exception line that ended each traceback, by "file:rank:line it began at". */
    this.ends = new Map();
  }

  /** Start a file; feed it with ``push(bytes)`` and close it with ``end()``. */
  openFile(name) {
    const info = { name, rank: rankFromFileName(name), lines: 0, skipped: null };
    this.files.push(info);
    return new FileScan(this, this.files.length - 1, info);
  }

  checkLine(raw, scan, lineNo) {
    const c = this.c;
    const line = cleanLine(c, raw);
    const fileIndex = scan.index;
    const tracebacks = scan.tracebacks;
    const [prefixed, body] = prefix(c, line);
    const rank = prefixed ?? this.files[fileIndex].rank;
    if (line.includes(TRACEBACK)) {
      tracebacks.set(rank, lineNo);
      scan.frames.delete(rank);
    }
    if (c.hangAnchors.some((a) => line.includes(a))) this.hang.add(line, rank, this.files[fileIndex].name, lineNo);
    let kind = null;
    if (c.decisive.anchors.some((a) => line.includes(a))) {
      const frame = c.decisive.frame.exec(body);
      if (frame) {
        scan.frames.set(rank, [lineNo, frame[1] ?? frame[2]]);
        const opened = tracebacks.get(rank);
        // A paste that starts inside a traceback.
        if (opened === undefined || lineNo - opened > TRACEBACK_REACH) tracebacks.set(rank, lineNo);
      } else kind = lineKind(c, body);
    }
    let began = tracebacks.get(rank) ?? null;
    if (began !== null && lineNo - began > TRACEBACK_REACH) began = null;
    const at = { file: this.files[fileIndex].name, line: lineNo, rank, time: null, text: own(line.slice(0, MAX_TEXT)) };
    let timed = false;
    let root = false;
    c.contexts.forEach((ctx, k) => {
      if (line.includes(ctx.anchor) && ctx.re.test(line)) scan.context.set(`${rank}:${k}`, lineNo);
    });
    for (const rule of c.rules) {
      if (!line.includes(rule.anchor)) continue;
      const m = rule.re.exec(line);
      if (!m) continue;
      if ((rule.raised_in || rule.context !== null) && !this.inContext(rule, scan, rank, began, line)) continue;
      if (!timed) {
        at.time = stamp(c, body);
        timed = true;
      }
      const ev = {
        file: at.file,
        line: lineNo,
        began,
        rank,
        time: at.time,
        role: rule.role,
        signature: rule.index,
        text: line.length <= MAX_TEXT ? at.text : own(window(line, m.index)),
        matched: own(m[0].slice(0, MAX_TEXT)),
      };
      this.record(rule, ev, fileIndex);
      if ((rule.role === "collateral" || rule.role === "warning") && kind === null) kind = rule.role;
      else if (rule.role === "root-cause") root = true;
    }
    if (kind === null) return;
    if (!timed) at.time = stamp(c, body);
    const raised = raisedIn(c, scan.frames.get(rank), began, line);
    if (raised && root) this.raised.set(`${fileIndex}:${lineNo}`, raised);
    let tier = c.decisive.tiers[kind];
    // An exception that ends a traceback (or a whole traceback flattened onto one line).
    if (kind === "exception" && (raised || line.includes(TRACEBACK))) tier = 0;
    at.kind = kind;
    at.raised_in = kind === "exception" ? raised : null;
    // Its message may go on below (other lines end it in continueLine).
    if (kind === "exception") scan.continued = { at, rank, left: MAX_CONTINUATION, last: lineNo };
    const end = `${fileIndex}:${rank}:${began}`;
    if (tier === 0 && kind === "exception" && began !== null && this.ends.size < MAX_ENDS && !this.ends.has(end)) this.ends.set(end, at);
    const key = { ev: at, file: fileIndex };
    const best = this.decisive;
    if (!best || tier < best.tier || (tier === best.tier && compare(key, best.key) < 0)) this.decisive = { tier, key };
  }

  /**
   * Add ``raw`` to the message of the exception line above it, or end that message: a blank line,
   * another rank's line, a frame, a timestamped record or another candidate line ends it.
   */
  continueLine(raw, scan, lineNo) {
    const c = this.c;
    const { at, rank, left, last } = scan.continued;
    if (lineNo <= last) return; // offered once, however the line is reached
    const line = cleanLine(c, raw);
    const [prefixed, body] = prefix(c, line);
    const who = prefixed ?? this.files[scan.index].rank;
    if (!body.trim() || who !== rank || line.includes(TRACEBACK) || c.decisive.frame.test(body) || lineKind(c, body) !== null || stamp(c, body) !== null) {
      scan.continued = null;
      return;
    }
    at.text = own((at.text + "\n" + body.trimEnd()).slice(0, MAX_TEXT));
    scan.continued = left > 1 ? { at, rank, left: left - 1, last: lineNo } : null;
  }

  /**
   * Whether a hit of a signature that requires context is inside a traceback that has it: the line
   * its ``traceback_has`` names above it in the same traceback, the library or module path of
   * ``raised_in`` in the traceback's last frame.
   */
  inContext(rule, scan, rank, began, line) {
    if (began === null) return false;
    if (rule.context !== null && (scan.context.get(`${rank}:${rule.context}`) ?? -1) < began) return false;
    if (rule.raised_in) {
      const raised = raisedIn(this.c, scan.frames.get(rank), began, line);
      return raised !== null && raisedBy(raised, rule.raised_in);
    }
    return true;
  }

  /**
   * The decisive line. When an entry matched, it agrees with the lead finding: the earliest exception
   * that ends a traceback holding one of its root-cause lines, else its first root-cause line.
   * Otherwise the most decisive candidate line.
   */
  firstError(lead) {
    if (!lead) return this.decisive ? { ...this.decisive.key.ev } : null;
    let best = null;
    for (const { ev, file } of lead.roots) {
      const end = ev.began !== null ? this.ends.get(`${file}:${ev.rank}:${ev.began}`) : undefined;
      if (!end || end.line < ev.line) continue;
      const key = { ev: end, file };
      if (!best || compare(key, best) < 0) best = key;
    }
    if (best) return { ...best.ev };
    const { ev, file } = lead.firstRoot;
    const raised = this.raised.get(`${file}:${ev.line}`) ?? null;
    return { file: ev.file, line: ev.line, rank: ev.rank, time: ev.time, text: ev.text, kind: "signature", raised_in: raised };
  }

  record(rule, ev, fileIndex) {
    let f = this.findings.get(rule.entry);
    if (!f) {
      f = { id: rule.entry, rules: new Map(), evidence: [], count: 0, first: null, firstRoot: null, roots: [] };
      this.findings.set(rule.entry, f);
    }
    const key = { ev, file: fileIndex };
    f.count += 1;
    f.rules.set(rule.index, rule);
    if (f.evidence.length < EVIDENCE_CAP) f.evidence.push(ev);
    if (!f.first || compare(key, f.first) < 0) f.first = key;
    if (rule.role === "root-cause") {
      if (f.roots.length < EVIDENCE_CAP) f.roots.push(key);
      if (!f.firstRoot || compare(key, f.firstRoot) < 0) f.firstRoot = key;
    }
  }

  result() {
    const rows = [];
    for (const f of this.findings.values()) {
      const meta = this.c.entries[f.id];
      const rules = [...f.rules.values()];
      const role = rules.map((r) => r.role).sort((a, b) => ROLE_ORDER[a] - ROLE_ORDER[b])[0];
      const lead = f.firstRoot ?? f.first;
      const score = Math.round(rules.reduce((s, r) => s + r.weight, 0) * 100) / 100;
      rows.push({
        key: lead,
        finding: {
          id: f.id,
          title: meta.title,
          category: meta.category,
          severity: meta.severity,
          role,
          score,
          count: f.count,
          signatures: [...f.rules.keys()].sort((a, b) => a - b),
          first: lead.ev,
          evidence: f.evidence,
          cause: meta.cause,
          fix: meta.fix,
          confirm: meta.confirm,
        },
      });
    }
    rows.sort(
      (a, b) =>
        ROLE_ORDER[a.finding.role] - ROLE_ORDER[b.finding.role] ||
        compare(a.key, b.key) ||
        b.finding.score - a.finding.score ||
        (a.finding.id < b.finding.id ? -1 : a.finding.id > b.finding.id ? 1 : 0),
    );
    const findings = rows.map((r) => r.finding);
    const lead = findings.find((f) => f.role === "root-cause");
    let initiating = lead
      ? { id: lead.id, file: lead.first.file, line: lead.first.line, began: lead.first.began, rank: lead.first.rank, time: lead.first.time, reason: null }
      : null;
    const hang = this.hang.result();
    const culprit = hang.find((h) => h.rank !== null);
    if (culprit) {
      // The rank that never reached the collective the others wait on started the failure.
      const empty = { id: null, file: null, line: null, began: null, time: null };
      initiating = { ...(initiating ?? empty), rank: culprit.rank, reason: culprit.reason };
    }
    const first_error = this.firstError(lead ? this.findings.get(lead.id) : null);
    return { schema_version: BUNDLE_VERSION, files: this.files, lines: this.lines, findings, initiating, hang, first_error, notes: this.notes };
  }
}

/**
 * Reads one file's bytes, pushed in pieces of any size, through one buffer: each byte is copied
 * once; every BLOCK new bytes, the whole lines held are scanned and only an unfinished last line is
 * carried over to the front (the terminal matcher reads its files in the same blocks).
 */
class FileScan {
  constructor(diagnosis, index, info) {
    this.d = diagnosis;
    this.index = index;
    this.info = info;
    this.buf = new Uint8Array(0);
    this.len = 0;
    this.fresh = 0;
    this.checked = false;
    this.skipping = false;
    this.lineNo = 0;
    this.tracebacks = new Map();
    this.frames = new Map();
    /** The last line, per "rank:context", that matched a signature's ``traceback_has``. */
    this.context = new Map();
    /** The exception line whose message may go on below: { at, rank, left, last line taken }. */
    this.continued = null;
    this.wrap = null;
    this.joined = null;
    this.joinedLine = 0;
    this.started = false;
    this.head = null;
    this.utf16 = null;
  }

  /**
   * The bytes of the log as the matcher reads them, as denpex_site/matcher/diagnosis.py (_Decoded)
   * does: NUL bytes that open the file and a UTF-8 byte-order mark are dropped; a file that starts
   * with a UTF-16 byte-order mark is decoded and read as UTF-8. Returns the bytes to scan.
   */
  decoded(bytes, final = false) {
    if (this.utf16) return encoder.encode(this.utf16.decode(bytes, { stream: !final }));
    if (this.started) return bytes;
    let head = this.head ? concat(this.head, bytes) : bytes;
    let skip = 0;
    while (skip < head.length && head[skip] === 0) skip += 1;
    head = head.subarray(skip);
    if (!head.length && !final) return new Uint8Array(0);
    if (head.length < 3 && !final) {
      this.head = head.slice();
      return new Uint8Array(0);
    }
    this.started = true;
    this.head = null;
    if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return head.subarray(3);
    const le = head[0] === 0xff && head[1] === 0xfe;
    if (le || (head[0] === 0xfe && head[1] === 0xff)) {
      this.utf16 = new TextDecoder(le ? "utf-16le" : "utf-16be", { ignoreBOM: true });
      return encoder.encode(this.utf16.decode(head.subarray(2), { stream: !final }));
    }
    return head;
  }

  /** Feed raw bytes (a Uint8Array the caller may reuse); returns false once the file is known to be binary. */
  push(raw) {
    if (this.info.skipped) return false;
    return this.pushDecoded(this.decoded(raw));
  }

  pushDecoded(bytes) {
    for (let at = 0; at < bytes.length; ) {
      if (this.fresh === BLOCK) {
        if (!this.checked && !this.inspect(false)) return false;
        this.flush();
      }
      if (this.len === this.buf.length) {
        const grown = new Uint8Array(Math.min(BLOCK + MAX_CARRY, Math.max(64 << 10, this.buf.length * 2)));
        grown.set(this.buf.subarray(0, this.len));
        this.buf = grown;
      }
      const n = Math.min(bytes.length - at, this.buf.length - this.len, BLOCK - this.fresh);
      this.buf.set(bytes.subarray(at, at + n), this.len);
      this.len += n;
      this.fresh += n;
      at += n;
    }
    return this.checked || this.len <= WRAP_SAMPLE || this.inspect(false);
  }

  /** Binary and wrap detection on the first bytes of the file. */
  inspect(complete) {
    this.checked = true;
    const head = this.buf.subarray(0, this.len);
    if (looksBinary(head.subarray(0, BINARY_SAMPLE))) {
      this.info.skipped = "binary";
      this.d.notes.push(`${this.info.name}: looks like a binary file, not a text log; it was skipped.`);
      this.buf = new Uint8Array(0);
      this.len = 0;
      return false;
    }
    this.wrap = detectWrap(this.d.c, head.subarray(0, WRAP_SAMPLE), complete);
    return true;
  }

  /** Scan every whole line held; move the unfinished last line to the front of the buffer. */
  flush() {
    const data = this.buf.subarray(0, this.len);
    let start = 0;
    if (this.skipping) {
      const nl = data.indexOf(NEWLINE);
      if (nl < 0) {
        this.len = 0;
        this.fresh = 0;
        return;
      }
      start = nl + 1;
      this.lineNo += 1;
      this.skipping = false;
    }
    const cut = data.lastIndexOf(NEWLINE) + 1;
    if (cut > start) this.lineNo = this.scanBytes(data.subarray(start, cut), this.lineNo);
    let tail = Math.max(cut, start);
    if (this.len - tail > MAX_CARRY) {
      // An endless line: look at its head once, then skip to the next newline.
      this.scanBytes(withNewline(data.subarray(tail, tail + MAX_CARRY)), this.lineNo);
      this.d.notes.push(`${this.info.name}: line ${this.lineNo + 1} is longer than ${MAX_CARRY / 1024} KiB; only its start was read.`);
      this.skipping = true;
      tail = this.len;
    }
    this.buf.copyWithin(0, tail, this.len);
    this.len -= tail;
    this.fresh = 0;
  }

  /** Scan whole lines of bytes (ending with a newline) that follow line ``base``; returns the last line's number. */
  scanBytes(data, base) {
    if (this.wrap !== null) {
      const text = decoder.decode(data);
      return this.scanWrapped(text.includes("\x1b") ? text.replace(this.d.c.ansi, "") : text, base);
    }
    this.continueIn(data, 0, base + 1);
    const lines = this.d.c.scan.lines(data, (start, end, index, escaped) => {
      // An anchor ends in this line, or ANSI codes may hide one: check the whole line.
      const line = data.subarray(start, end);
      if (!escaped || this.hasAnchor(line)) {
        this.d.checkLine(decoder.decode(line), this, base + index + 1);
        this.continueIn(data, end + 1, base + index + 2);
      }
    });
    return base + lines;
  }

  /** Give the lines from ``pos`` (line ``lineNo`` on) to an exception line's message while it may go on. */
  continueIn(data, pos, lineNo) {
    while (this.continued && pos < data.length) {
      const stop = data.indexOf(NEWLINE, pos);
      this.d.continueLine(decoder.decode(data.subarray(pos, stop)), this, lineNo);
      pos = stop + 1;
      lineNo += 1;
    }
  }

  /** Does this line, once its ANSI codes are removed, contain an anchor? */
  hasAnchor(line) {
    let found = false;
    const bare = encoder.encode(decoder.decode(line).replace(this.d.c.ansi, "") + "\n");
    this.d.c.scan.lines(bare, (start, end, index, escaped) => {
      found ||= !escaped;
    });
    return found;
  }

  /** The slow path for a terminal-wrapped log: rejoin lines cut at the wrap width, check each. */
  scanWrapped(chunk, base) {
    let lineNo = base;
    const lines = chunk.split("\n");
    lines.pop();
    for (const raw of lines) {
      lineNo += 1;
      const bare = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      // The line above filled the width but was a whole record.
      if (this.joined !== null && bare.length >= WRAP_START && this.wrap.starts.has(bare.slice(0, WRAP_START))) this.finishJoined();
      const wrapped = bare.length === this.wrap.width;
      const piece = wrapped ? bare : raw;
      if (this.joined === null) {
        this.joined = piece;
        this.joinedLine = lineNo;
      } else if (this.joined.length < MAX_LINE) this.joined += piece;
      if (!wrapped) this.finishJoined();
    }
    return lineNo;
  }

  /** Check the line the wrapped pieces so far make up. */
  finishJoined() {
    if (this.continued) this.d.continueLine(this.joined, this, this.joinedLine);
    this.d.checkLine(this.joined, this, this.joinedLine);
    this.joined = null;
  }

  end() {
    const rest = this.decoded(new Uint8Array(0), true);
    if (rest.length) this.pushDecoded(rest);
    if (!this.checked && !this.info.skipped && !this.inspect(true)) return;
    if (this.info.skipped) return;
    this.flush();
    if (this.skipping) this.lineNo += 1;
    else if (this.len) this.lineNo = this.scanBytes(withNewline(this.buf.subarray(0, this.len)), this.lineNo);
    this.buf = new Uint8Array(0);
    this.len = 0;
    if (this.joined !== null) this.finishJoined();
    this.continued = null;
    this.info.lines = this.lineNo;
    this.d.lines += this.lineNo;
  }
}

/** Keeps a leading byte-order mark, as Python's decoder does. */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function withNewline(bytes) {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  out[bytes.length] = NEWLINE;
  return out;
}
