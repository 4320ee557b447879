// Search, shared by the header box and the /search/ page. Loaded only once the user types.
// A query that looks like a log line is first matched against the error signatures (the same
// regular expressions and line cleaning as the log matcher); then the words of the query rank
// the entries (search-rank.js, BM25F over /api/search.json), and Pagefind's full-text index
// gives the excerpts, with the words found marked. Identifiers are also searched by their parts
// (ncclSystemError -> nccl system error).

import { cleanLine, compileBundle } from "./matcher.js";
import { IDENTIFIER, prepareIndex, rank, splitIdentifier, terms } from "./search-rank.js";

let ready = null;
let loaded = null;

const loose = (s) =>
  s.toLowerCase().replace(/\{[a-z]+\}/g, "0").replace(/[0-9]+(?:\.[0-9]+)?/g, "0").replace(/\s+/g, " ").trim();

/** The JSON document at ``url``; a failed request is an error that names it. */
async function getJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} could not be loaded (HTTP ${response.status})`);
  return response.json();
}

/** Load the signature bundle, the word index and Pagefind (once; again after a failure). */
export function load() {
  ready ??= Promise.all([
    getJson("/api/signatures.json")
      .then(compileBundle)
      .then((compiled) => {
        for (const rule of compiled.rules) rule.loose = loose(rule.pattern);
        return compiled;
      }),
    getJson("/api/search.json").then(prepareIndex),
    // Without Pagefind (a build with --no-index) results come without excerpts.
    import("/pagefind/pagefind.js")
      .then(async (pf) => {
        await pf.options({ excerptLength: 24 });
        return pf;
      })
      .catch(() => null),
  ]).then(
    ([compiled, index, pagefind]) => (loaded = { compiled, index, pagefind }),
    (error) => {
      ready = null;
      throw error;
    },
  );
  return ready;
}


/** Mask what varies between runs, as the matcher sees it: ranks, times, numbers, hex, paths, quoted names. */
export function mask(text) {
  return text
    .replace(/^\[(?:rank|default)?[0-9]+\]:\s*/i, "")
    .replace(/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9:.,]+Z?/g, " ")
    .replace(/^[IWEF][0-9]{4} [0-9:.]+ +[0-9]+ [^ \]]+\]/, " ")
    .replace(/0x[0-9a-fA-F]+/g, " ")
    .replace(/(?:\/[\w.@+-]+){2,}/g, " ")
    .replace(/'[^']{1,120}'|"[^"]{1,120}"/g, " ")
    .replace(/[0-9]+(?:\.[0-9]+)?/g, " ");
}


/** Does the query look like a pasted log or error line rather than a few words? */
export function looksLikeLogLine(q) {
  return q.length >= 24 && /[:=(){}[\]<>]|Error|Exception|\.py\b|[0-9]{3,}/.test(q);
}

/** Signature hits for a query: [{id, exact, matched, score}]. */
export function signatureHits(compiled, query) {
  const line = cleanLine(compiled, query.trim());
  // Part of a message counts too, also without the "RuntimeError: " or "[rank0]: ... " before it.
  const fragment = loose(line);
  const fragments = [fragment];
  for (let at = fragment.indexOf(": "); at >= 0; at = fragment.indexOf(": ", at + 2)) fragments.push(fragment.slice(at + 2));
  const parts = fragments.filter((f) => f.length >= 24);
  const hits = new Map();
  for (const rule of compiled.rules) {
    const m = line.includes(rule.anchor) ? rule.re.exec(line) : null;
    const partial = !m && parts.some((f) => rule.loose.includes(f));
    if (!m && !partial) continue;
    const score = (m ? 1000 : 900) + rule.weight + (rule.role === "root-cause" ? 50 : 0);
    if ((hits.get(rule.entry)?.score ?? 0) < score) {
      hits.set(rule.entry, { id: rule.entry, exact: Boolean(m), matched: m ? m[0] : line, score, role: rule.role });
    }
  }
  return [...hits.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

/** Words for the full-text index: masked values removed, identifiers added in parts. */
export function fullTextQuery(query) {
  const masked = looksLikeLogLine(query) ? mask(query) : query;
  const extra = (query.match(IDENTIFIER) ?? []).map((id) => splitIdentifier(id).join(" "));
  return [masked, ...extra].join(" ").replace(/[^\p{L}\p{N}_.\s-]/gu, " ").replace(/\s+/g, " ").trim();
}

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/** ``text`` as HTML with the words that carry one of the query's terms marked. */
function markTerms(text, wanted, stop) {
  return text
    .split(/([A-Za-z0-9_]+)/)
    .map((part, i) => {
      const hit = i % 2 === 1 && terms(part, stop).some((t) => wanted.has(t));
      return hit ? `<mark>${escapeHtml(part)}</mark>` : escapeHtml(part);
    })
    .join("");
}

/** One result: an entry, what to show under its title (HTML), and the signature hit if any. */
const result = (compiled, id, excerpt = "", signature = null) => ({
  id,
  title: compiled.entries[id]?.title ?? id,
  url: `/failures/${id}/`,
  excerpt,
  signature,
});

/** The signature results, one per entry, that ``keep`` lets through. */
const signatureResults = (compiled, query, keep = () => true) =>
  signatureHits(compiled, query).filter((hit) => keep(hit.id)).map((hit) => result(compiled, hit.id, "", hit));

/** Signature results at once, without waiting for anything (null until the bundle is loaded). */
export function quickHits(query) {
  if (!loaded || !query.trim()) return null;
  return signatureResults(loaded.compiled, query.trim());
}

const idOf = (url) => url.match(/\/failures\/([a-z0-9-]+)\//)?.[1] ?? null;

/**
 * Search: signature hits first (marked as such), then the entries ranked by the query's words.
 * Returns [{id, title, url, excerpt (HTML, may be ""), signature: hit|null}]. ``onSignatures``
 * (optional) is called with early results: the signature hits, then the ranked entries with their
 * symptoms, before Pagefind's excerpts are in. ``stale`` (optional) says when the caller no longer
 * wants this query's results.
 */
export async function search(query, { filters = {}, limit = 10, onSignatures = null, stale = () => false } = {}) {
  const q = query.trim();
  if (!q) return [];
  const { compiled, index, pagefind } = await load();
  const keep = (id) => {
    const meta = compiled.entries[id];
    return Boolean(meta) && Object.entries(filters).every(([k, v]) => !v || (k === "system" ? meta.systems.includes(v) : meta[k] === v));
  };
  const out = signatureResults(compiled, q, keep);
  const seen = new Set(out.map((r) => r.id));
  if (onSignatures && out.length) onSignatures(out.slice());
  // A pasted log line that hit a signature needs no word-by-word search: its entry is known.
  const logLike = looksLikeLogLine(q);
  if (out.length && logLike) return out;
  // The word index cuts the query as it cut the entries; Pagefind gets identifiers in parts too.
  const text = logLike ? mask(q) : q;
  const ranked = rank(index, text, (doc) => !seen.has(doc.id) && keep(doc.id)).slice(0, limit);
  const wanted = new Set(terms(text, index.stop));
  const symptom = (id) => markTerms(index.docs[index.number.get(id)].symptom, wanted, index.stop);
  const row = (id, excerpt) => result(compiled, id, excerpt || symptom(id));
  if (onSignatures && ranked.length) onSignatures([...out, ...ranked.map((r) => row(r.doc.id))]);
  // Pagefind's excerpts for the pages that hold every word. The index carries no filters (Pagefind
  // writes filter values in a different order on every run, so the build would not be
  // reproducible): with filters chosen, more pages are read and those the filters drop are left out.
  const filtered = Object.values(filters).some(Boolean);
  const words = fullTextQuery(q);
  const found = pagefind && words ? await pagefind.search(words) : { results: [] };
  if (stale()) return out;
  const read = await Promise.all(found.results.slice(0, filtered ? limit * 4 : limit).map((r) => r.data()));
  const pages = read.filter((d) => keep(idOf(d.url))).slice(0, limit);
  const excerpts = new Map(pages.map((d) => [idOf(d.url), d.excerpt]));
  for (const r of ranked) out.push(row(r.doc.id, excerpts.get(r.doc.id)));
  // Pages Pagefind finds that hold no ranked word (a word in no ranked field) come last.
  for (const d of pages) {
    const id = idOf(d.url);
    if (!id || out.some((r) => r.id === id) || !keep(id)) continue;
    out.push(row(id, d.excerpt));
  }
  return out.slice(0, Math.max(limit, out.filter((r) => r.signature).length));
}

/** Append Pagefind's excerpt (text with <mark> tags) to ``node`` without using innerHTML. */
export function appendExcerpt(node, html) {
  const doc = new DOMParser().parseFromString(`<p>${html}</p>`, "text/html");
  for (const child of doc.body.firstChild?.childNodes ?? []) {
    if (child.nodeName === "MARK") {
      const mark = document.createElement("mark");
      mark.textContent = child.textContent;
      node.append(mark);
    } else node.append(child.textContent);
  }
}

/** The query with the part a signature matched wrapped in <mark>. */
export function appendHighlighted(node, query, matched) {
  const at = matched ? query.indexOf(matched) : -1;
  if (at < 0) {
    node.append(query);
    return;
  }
  const mark = document.createElement("mark");
  mark.textContent = matched;
  node.append(query.slice(0, at), mark, query.slice(at + matched.length));
}
