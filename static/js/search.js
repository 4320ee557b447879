// The /search/ page: ranks entries for ?q= by signature match first, then by words.
// Reads two small JSON files from this site; the query never leaves the browser.

import { cleanLine, compileBundle } from "./matcher.js";

const $ = (id) => document.getElementById(id);
const box = $("search-q");
const list = $("search-results");
const count = $("search-count");

const words = (text) => text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);

async function load() {
  const [entries, bundle] = await Promise.all(
    ["/api/search.json", "/api/signatures.json"].map((u) => fetch(u).then((r) => r.json())),
  );
  return { entries: entries.entries, compiled: compileBundle(bundle) };
}

/** Text reduced for comparing a pasted fragment with a pattern: numbers and placeholders alike. */
const loose = (s) =>
  s.toLowerCase().replace(/\{[a-z]+\}/g, "0").replace(/[0-9]+(?:\.[0-9]+)?/g, "0").replace(/\s+/g, " ").trim();

function rank(data, query) {
  const scores = new Map();
  const line = cleanLine(data.compiled, query.trim());
  const fragment = loose(line);
  for (const rule of data.compiled.rules) {
    const m = line.includes(rule.anchor) ? rule.re.exec(line) : null;
    const partial = !m && fragment.length >= 24 && loose(rule.pattern).includes(fragment);
    if (!m && !partial) continue;
    const score = (m ? 1000 : 900) + rule.weight + (rule.role === "root-cause" ? 50 : 0);
    if ((scores.get(rule.entry)?.score ?? 0) < score) scores.set(rule.entry, { score, exact: true });
  }
  const q = words(query);
  if (q.length) {
    for (const e of data.entries) {
      const title = new Set(words(e.title));
      const body = new Set(words(e.text));
      let s = 0;
      for (const w of q) s += title.has(w) ? 3 : body.has(w) ? 1 : [...body].some((b) => b.startsWith(w)) ? 0.5 : 0;
      if (s > 0 && !scores.has(e.id)) scores.set(e.id, { score: s / q.length, exact: false });
    }
  }
  const byId = new Map(data.entries.map((e) => [e.id, e]));
  return [...scores].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1)).map(([id, s]) => ({ ...byId.get(id), ...s }));
}

function show(hits) {
  list.replaceChildren();
  count.textContent = hits.length ? `${hits.length} result${hits.length === 1 ? "" : "s"}` : "No result. Try fewer words, or paste the first error line.";
  for (const h of hits) {
    const li = document.createElement("li");
    li.className = "entry-row";
    li.dataset.entryId = h.id;
    const a = Object.assign(document.createElement("a"), { href: `/failures/${h.id}/`, className: "entry-title", textContent: h.title });
    const sum = Object.assign(document.createElement("p"), { className: "entry-sum", textContent: h.symptom });
    li.append(a);
    if (h.exact) li.append(Object.assign(document.createElement("span"), { className: "chip", textContent: "signature match" }));
    li.append(sum);
    list.append(li);
  }
}

const data = await load();
const run = () => {
  const q = box.value;
  const url = new URL(location.href);
  if (q) url.searchParams.set("q", q);
  else url.searchParams.delete("q");
  history.replaceState(null, "", url);
  show(q.trim() ? rank(data, q) : []);
};
box.value = new URLSearchParams(location.search).get("q") ?? "";
box.addEventListener("input", run);
$("search-page-form").addEventListener("submit", (e) => { e.preventDefault(); run(); });
document.getElementById("search-js-note").hidden = true;
run();
