// The log matcher core: normalise lines and match them against the signature bundle.
// Pure ES module with no DOM access: it runs in a Web Worker in the browser and under Node.

const EVIDENCE_CAP = 20;
const MAX_LINE = 64 * 1024;

export function compileBundle(bundle) {
  const prefixes = bundle.normalize.rank_prefixes.map((p) => ({ name: p.name, re: new RegExp(p.regex) }));
  const stamps = bundle.normalize.timestamps.map((t) => ({ name: t.name, re: new RegExp(t.regex) }));
  const ansi = new RegExp(bundle.normalize.ansi, "g");
  const rules = bundle.signatures.map((s) => ({ ...s, re: new RegExp(s.regex) }));
  return { entries: bundle.entries, prefixes, stamps, ansi, rules };
}

export function cleanLine(compiled, line) {
  if (line.length > MAX_LINE) line = line.slice(0, MAX_LINE);
  if (line.includes("\x1b")) line = line.replace(compiled.ansi, "");
  if (line.includes("\r")) {
    const parts = line.split("\r").filter((p) => p.length > 0);
    line = parts.length ? parts[parts.length - 1] : "";
  }
  return line;
}

function parsePrefix(compiled, line) {
  for (const p of compiled.prefixes) {
    const m = p.re.exec(line);
    if (m) return { rank: Number(m[1]), rest: line.slice(m[0].length) };
  }
  return { rank: null, rest: line };
}

function parseTime(compiled, text) {
  for (const t of compiled.stamps) {
    const m = t.re.exec(text);
    if (m) return `${m[1]} ${m[2]}`;
  }
  return null;
}

/** Accumulates hits over any number of files, line by line. */
export class Matcher {
  constructor(compiled) {
    this.c = compiled;
    this.hits = new Map(); // entry id -> finding under construction
    this.order = 0;
    this.lines = 0;
  }

  /** Match one raw line; ``fileRank`` is the rank implied by the file name, if any. */
  feed(raw, file, lineNo, fileRank = null) {
    this.lines += 1;
    const line = cleanLine(this.c, raw);
    if (line.length < 8) return;
    let candidates = null;
    for (const rule of this.c.rules) {
      if (!line.includes(rule.anchor)) continue;
      const m = rule.re.exec(line);
      if (!m) continue;
      candidates ??= parsePrefix(this.c, line);
      this.record(rule, m, line, candidates, file, lineNo, fileRank);
    }
  }

  record(rule, m, line, parsed, file, lineNo, fileRank) {
    let f = this.hits.get(rule.entry);
    if (!f) {
      f = { id: rule.entry, signatures: new Map(), evidence: [], count: 0, first: null, firstRoot: null };
      this.hits.set(rule.entry, f);
    }
    const rank = parsed.rank ?? fileRank;
    const ev = {
      file,
      line: lineNo,
      rank,
      time: parseTime(this.c, parsed.rest),
      role: rule.role,
      signature: rule.index,
      text: line,
      match: [m.index, m.index + m[0].length],
      order: this.order++,
    };
    f.count += 1;
    f.signatures.set(rule.index, rule);
    if (f.evidence.length < EVIDENCE_CAP) f.evidence.push(ev);
    f.first ??= ev;
    if (rule.role === "root-cause" && !f.firstRoot) f.firstRoot = ev;
  }

  result() {
    const findings = [];
    for (const f of this.hits.values()) {
      const meta = this.c.entries[f.id];
      const rules = [...f.signatures.values()];
      const roles = new Set(rules.map((r) => r.role));
      const role = roles.has("root-cause") ? "root-cause" : roles.has("warning") ? "warning" : "collateral";
      const score = Math.round(rules.reduce((s, r) => s + r.weight, 0) * 100) / 100;
      const lead = f.firstRoot ?? f.first;
      findings.push({
        id: f.id,
        title: meta.title,
        role,
        score,
        count: f.count,
        first: strip(lead),
        evidence: f.evidence.map(strip),
        signatures: rules.map((r) => r.index).sort((a, b) => a - b),
      });
    }
    const roleRank = { "root-cause": 0, warning: 1, collateral: 2 };
    findings.sort(
      (a, b) =>
        roleRank[a.role] - roleRank[b.role] ||
        compareEvidence(a.first, b.first) ||
        b.score - a.score ||
        (a.id < b.id ? -1 : 1),
    );
    const lead = findings.find((f) => f.role === "root-cause") ?? null;
    return {
      schema_version: 1,
      lines: this.lines,
      findings,
      initiating: lead ? { id: lead.id, file: lead.first.file, line: lead.first.line, rank: lead.first.rank, time: lead.first.time } : null,
    };
  }
}

function strip(ev) {
  const { order, ...rest } = ev;
  return rest;
}

function compareEvidence(a, b) {
  if (a.time && b.time && a.time !== b.time) return a.time < b.time ? -1 : 1;
  if (a.file === b.file) return a.line - b.line;
  return 0;
}

/** The rank named by a file such as ``rank3.log`` or ``worker-3.txt``, else null. */
export function rankFromFileName(name) {
  const m = /(?:rank|worker|proc|process)[-_.]?([0-9]{1,6})(?=[^0-9]|$)/i.exec(name);
  return m ? Number(m[1]) : null;
}
