// The /diagnose/ page: hands pasted text or dropped files to the worker and shows the findings.
// Nothing is uploaded: the worker reads the files locally; the only request is for the signature bundle.

import { compileMasks, mask } from "./matcher.js";

const $ = (id) => document.getElementById(id);
const form = $("diagnose-form");
const input = $("log-text");
const files = $("log-files");
const drop = $("drop-zone");
const progress = $("diagnose-progress");
const bar = progress.querySelector("progress");
const status = $("diagnose-status");
const cancel = $("diagnose-cancel");
const results = $("diagnosis-results");
const list = $("findings");
const timeline = $("timeline");
const summary = $("diagnosis-summary");
const empty = $("diagnosis-empty");
const notesBox = $("diagnosis-notes");
const copyButton = $("copy-report");
const decisiveBox = $("decisive-box");
const repoUrl = document.body.dataset.repo ?? results.dataset.repo;

let worker = null;
let lastResult = null;
let masks = [];
let chosen = [];

const fmtBytes = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : n < 1073741824 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1073741824).toFixed(2)} GiB`);


function setState(state) {
  results.dataset.state = state;
}

/** The analysis stopped on an error: say so where the progress was, and allow a new try. */
function fail(message) {
  status.textContent = `The analysis failed: ${message}`;
  setState("error");
  cancel.disabled = true;
}

function newWorker() {
  const w = new Worker(new URL("./diagnose-worker.js", import.meta.url), { type: "module" });
  // A worker whose script cannot load or throws outside a message handler reports here only.
  w.onerror = (event) => {
    event.preventDefault();
    fail(`the matcher could not start (${event.message || "its script did not load"}). Reload the page to try again.`);
    worker = null;
  };
  w.postMessage({ type: "load", bundleUrl: "/api/signatures.json" });
  return w;
}

function start(payload) {
  list.replaceChildren();
  timeline.replaceChildren();
  $("hang-tables").replaceChildren();
  notesBox.replaceChildren();
  empty.hidden = true;
  decisiveBox.hidden = true;
  summary.textContent = "";
  copyButton.hidden = true;
  setState("running");
  progress.hidden = false;
  bar.value = 0;
  status.textContent = "Reading…";
  worker ??= newWorker();
  cancel.disabled = false;
  worker.onmessage = ({ data }) => {
    if (data.type === "progress") {
      bar.max = Math.max(data.total, 1);
      bar.value = data.done;
      status.textContent = `${fmtBytes(data.done)} of ${fmtBytes(data.total)} read`;
    } else if (data.type === "done") {
      masks = compileMasks(data.masks);
      finish(data.result);
    } else if (data.type === "error") {
      fail(data.message);
    }
  };
  worker.postMessage({ type: "run", ...payload });
}

/** Stop a running analysis: the worker is discarded and a fresh one loads the bundle again. */
function stop() {
  if (worker) worker.terminate();
  worker = newWorker();
  cancel.disabled = true;
}

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** "0709 17:05:38.162555" (the sortable form) as "07-09 17:05:38.162". */
const showTime = (t) => `${t.slice(0, 2)}-${t.slice(2, 4)} ${t.slice(5, 17)}`;

function where(ev) {
  const parts = [`${ev.file}:${ev.line}`];
  if (ev.rank !== null && ev.rank !== undefined) parts.push(`rank ${ev.rank}`);
  if (ev.time) parts.push(showTime(ev.time));
  if (ev.began !== null && ev.began !== undefined && ev.began !== ev.line) parts.push(`traceback began at line ${ev.began}`);
  return parts.join(" · ");
}

function highlighted(ev) {
  const a = ev.text.indexOf(ev.matched);
  const b = a + ev.matched.length;
  if (a < 0) return el("code", { className: "evidence", textContent: ev.text });
  return el("code", { className: "evidence" }, ev.text.slice(0, a), el("mark", { textContent: ev.text.slice(a, b) }), ev.text.slice(b));
}

const KINDS = {
  signature: "the root-cause line of the first finding",
  exception: "the exception that ends a traceback",
  kill: "a kill by the shell or the kernel",
  fatal: "a fatal error",
  error: "an error line",
  wrapper: "a launcher's report of another process's failure",
  collateral: "a line that victims of a failure print",
  warning: "a warning that an entry knows",
};

/** The line that most likely tells the cause, with where it was raised. */
function showDecisive(first) {
  decisiveBox.hidden = !first;
  if (!first) return;
  $("decisive-where").textContent = `${where(first)} · ${KINDS[first.kind] ?? first.kind}`;
  $("decisive-text").textContent = first.text;
  const raised = first.raised_in;
  $("decisive-raised").hidden = !raised;
  if (raised) $("decisive-raised").textContent = `Raised in ${raised.path}${raised.library ? ` (${raised.library})` : ""}`;
}

/** Per process group, ranks x the last collective each reached; the rank behind is marked. */
function showHang(hang) {
  const box = $("hang-box");
  box.hidden = !hang.length;
  if (!hang.length) return;
  const named = hang.find((h) => h.rank !== null) ?? hang[0];
  $("hang-reason").textContent = named.reason[0].toUpperCase() + named.reason.slice(1) + ".";
  for (const h of hang) {
    const rows = h.ranks.map((r) => el(
      "tr",
      { className: h.behind.includes(r.rank) ? "behind" : "" },
      el("th", { scope: "row", textContent: String(r.rank) }),
      el("td", { textContent: r.seq !== null ? `SeqNum ${r.seq} ${r.op}` : "" }),
      el("td", { textContent: r.numel_in !== null ? String(r.numel_in) : "" }),
      el("td", { textContent: r.enqueued !== null ? `${r.enqueued} / ${r.completed}` : "" }),
    ));
    for (const k of h.silent) rows.push(el("tr", { className: "behind" }, el("th", { scope: "row", textContent: String(k) }), el("td", { colSpan: 3, textContent: "no watchdog line" })));
    rows.sort((a, b) => Number(a.firstChild.textContent) - Number(b.firstChild.textContent));
    const head = el("tr", {}, ...["Rank", "Waited on", "NumelIn", "Enqueued / completed"].map((t) => el("th", { scope: "col", textContent: t })));
    const caption = el("caption", { textContent: h.pg ? `Process group ${h.pg}` : "Default process group" });
    $("hang-tables").append(el("table", { className: "timeline" }, caption, el("thead", {}, head), el("tbody", {}, ...rows)));
  }
  const causes = $("hang-causes");
  causes.replaceChildren();
  if (named.causes.length) {
    causes.append("Why a rank falls behind: ");
    named.causes.forEach((id, i) => causes.append(i ? ", " : "", el("a", { href: `/failures/${id}/`, textContent: id })));
  }
}

/** The entry's quick answer and its first confirm step (Markdown, shown as written). */
function answer(f) {
  return el(
    "dl",
    { className: "answer" },
    el("dt", { textContent: "Cause" }),
    el("dd", { textContent: f.cause }),
    el("dt", { textContent: "Fix" }),
    el("dd", { textContent: f.fix }),
    el("dt", { textContent: "Confirm" }),
    el("dd", {}, el("pre", { className: "confirm", textContent: f.confirm.trim() })),
  );
}

function finish(result) {
  cancel.disabled = true;
  lastResult = result;
  progress.hidden = true;
  for (const note of result.notes) notesBox.append(el("p", { className: "note", textContent: note }));
  const first = result.first_error;
  showDecisive(first);
  showHang(result.hang);
  if (!result.findings.length) {
    summary.textContent = `No known failure matched in ${result.lines.toLocaleString()} lines.`;
    empty.hidden = false;
    const masked = first ? mask(first.text, masks) : "";
    $("search-link").href = first ? `/search/?q=${encodeURIComponent(masked.slice(0, 200))}` : "/search/";
    const lines = (input.value || "").split("\n").filter((l) => /error|exception|fail|abort|timeout|killed/i.test(l)).slice(0, 15);
    const shown = first ? [first.text, ...lines.filter((l) => l.trim() !== first.text.trim())].slice(0, 15) : lines;
    const body = `An unrecognised failure. Masked lines from the log:\n\n\`\`\`\n${mask(shown.join("\n"), masks)}\n\`\`\`\n`;
    const title = `New failure: ${masked.slice(0, 80) || "unrecognised log"}`;
    $("propose-link").href = `${repoUrl}/issues/new?title=${encodeURIComponent(title)}&body=${encodeURIComponent(body)}`;
    copyButton.hidden = !first;
    setState("done");
    return;
  }
  const init = result.initiating;
  summary.textContent = init && init.id === null
    ? `Initiating rank: ${init.rank}. ${init.reason[0].toUpperCase()}${init.reason.slice(1)}.`
    : init
    ? `First root cause: ${result.findings[0].title}, at ${init.file} line ${init.line}${init.rank !== null ? `, rank ${init.rank}` : ""}${init.time ? `, ${showTime(init.time)}` : ""}.`
    : first && first.kind !== "wrapper" && first.kind !== "collateral"
      ? `Only collateral or warning lines matched an entry in ${result.lines.toLocaleString()} lines; no entry covers the decisive line below.`
      : `Only collateral or warning lines matched in ${result.lines.toLocaleString()} lines: the root cause may be on another rank or in a log not given.`;
  for (const f of result.findings) {
    const item = el(
      "li",
      { className: `finding role-${f.role}` },
      el("h3", {}, el("a", { href: `/failures/${f.id}/`, textContent: f.title })),
      el("p", { className: "finding-meta" }, el("span", { className: "role", textContent: f.role === "collateral" ? "collateral (a consequence, not the cause)" : f.role }), ` · ${f.count} matching line${f.count === 1 ? "" : "s"}`),
      el("p", { className: "where", textContent: where(f.first) }),
      highlighted(f.first),
    );
    if (f.role !== "collateral") item.append(answer(f));
    item.dataset.entryId = f.id;
    item.dataset.role = f.role;
    list.append(item);
  }
  const firstByRank = new Map();
  for (const f of result.findings) for (const ev of f.evidence) {
    if (ev.rank === null || ev.rank === undefined) continue;
    const seen = firstByRank.get(ev.rank);
    if (!seen || (ev.time && seen.ev.time && ev.time < seen.ev.time)) firstByRank.set(ev.rank, { ev, f });
  }
  for (const [rank, { ev, f }] of [...firstByRank].sort((a, b) => a[0] - b[0])) {
    timeline.append(el("tr", {}, el("td", { textContent: String(rank) }), el("td", { textContent: ev.time ? showTime(ev.time) : "" }), el("td", { textContent: `${ev.file}:${ev.line}` }), el("td", {}, el("a", { href: `/failures/${f.id}/`, textContent: f.title }), ` (${ev.role})`)));
  }
  $("timeline-box").hidden = firstByRank.size === 0;
  copyButton.hidden = false;
  setState("done");
}

function report(result) {
  const lines = ["# Training log diagnosis", ""];
  const first = result.first_error;
  if (first) lines.push(`Decisive line (${KINDS[first.kind] ?? first.kind}) at ${mask(where(first), masks)}: \`${mask(first.text, masks).slice(0, 300)}\``, "");
  for (const f of result.findings) {
    lines.push(`- **${f.title}** (${f.role}): ${location.origin}/failures/${f.id}/`);
    if (f.role !== "collateral") lines.push(`  - cause: ${f.cause}`, `  - fix: ${f.fix}`);
    lines.push(`  - first at ${mask(where(f.first), masks)}: \`${mask(f.first.text, masks).slice(0, 300)}\``);
  }
  return lines.join("\n") + "\n";
}

worker = newWorker();
form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (chosen.length) start({ files: chosen });
  else start({ text: input.value });
});
cancel.addEventListener("click", () => {
  stop();
  progress.hidden = true;
  setState("cancelled");
  summary.textContent = "Cancelled.";
});
copyButton.addEventListener("click", async () => {
  if (!lastResult) return;
  try {
    await navigator.clipboard.writeText(report(lastResult));
    copyButton.textContent = "Copied";
  } catch {
    copyButton.textContent = "Copy failed";
  }
  setTimeout(() => { copyButton.textContent = "Copy report (masked)"; }, 1500);
});
function choose(fileList) {
  chosen = [...fileList];
  $("chosen").textContent = chosen.length ? chosen.map((f) => `${f.name} (${fmtBytes(f.size)})`).join(", ") : "";
}
files.addEventListener("change", () => choose(files.files));
for (const type of ["dragenter", "dragover"]) drop.addEventListener(type, (e) => { e.preventDefault(); drop.classList.add("over"); });
for (const type of ["dragleave", "drop"]) drop.addEventListener(type, () => drop.classList.remove("over"));
drop.addEventListener("drop", (event) => {
  event.preventDefault();
  choose(event.dataTransfer.files);
  if (chosen.length) form.requestSubmit();
});
$("clear-files").addEventListener("click", () => { files.value = ""; choose([]); });
results.dataset.state = "idle";
