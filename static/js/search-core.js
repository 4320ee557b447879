// Search, shared by the header box and the /search/ page. Loaded only once the user types.
// A query that looks like a log line is first matched against the error signatures (the same
// regular expressions and line cleaning as the log matcher); then Pagefind's full-text index
// answers. Identifiers are also searched by their parts (ncclSystemError -> nccl system error).

import { cleanLine, compileBundle } from "./matcher.js";

let ready = null;
let loaded = null;

const loose = (s) =>
  s.toLowerCase().replace(/\{[a-z]+\}/g, "0").replace(/[0-9]+(?:\.[0-9]+)?/g, "0").replace(/\s+/g, " ").trim();

/** Load the signature bundle and Pagefind (once). */
export function load() {
  ready ??= Promise.all([
    fetch("/api/signatures.json")
      .then((r) => r.json())
      .then(compileBundle)
      .then((compiled) => {
        for (const rule of compiled.rules) rule.loose = loose(rule.pattern);
        return compiled;
      }),
    import("/pagefind/pagefind.js").then(async (pf) => {
      await pf.options({ excerptLength: 24 });
      return pf;
    }),
  ]).then(([compiled, pagefind]) => (loaded = { compiled, pagefind }));
  return ready;
}

const PART = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*(?:[.:_/][A-Za-z0-9_]+)+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Za-z]*[a-z][A-Z][A-Za-z0-9]*/g;

/** ``ncclSystemError`` -> "nccl system error" (see denpex_site.render.split_identifier). */
export function splitIdentifier(identifier) {
  return (identifier.match(PART) ?? []).map((p) => p.toLowerCase());
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
  return q.length >= 24 && (/[:=(){}[\]<>]|Error|Exception|\.py\b|[0-9]{3,}/.test(q) || q.split(/\s+/).length >= 6);
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

const MAX_TERMS = 10;
const STOP = new Set(
  ("a an and are as at be been but by can do does for from get gets got has have how i if in into is it its just " +
    "me my no not of on once one only or our so some than that the then them there these they this to too up was " +
    "we what when where which while why will with without you your after before all also any because every other " +
    "same still very say says said saying seems think thing things within soon anything something happens " +
    "happened suddenly keeps kept").split(" "),
);

/**
 * Rank pages for a query by its words, each weighted by how rare it is (idf), so that a sentence
 * finds the entries that share its telling words even when no page holds every word. Pagefind
 * alone returns only pages that contain all of them.
 */
async function rankPages(pagefind, words, total, filters, onAll = null) {
  const terms = [...new Set(words.toLowerCase().split(/\s+/).filter((w) => w.length > 1 && !STOP.has(w)))]
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_TERMS);
  if (!terms.length) return {};
  const whole = pagefind.search(words, { filters });
  const perTerm = terms.length > 1 ? terms.map((t) => pagefind.search(t, { filters })) : [];
  if (onAll) await onAll(await whole);
  const searches = await Promise.all([whole, ...perTerm]);
  const pages = new Map();
  const add = (result, weight) => {
    const row = pages.get(result.id) ?? { result, score: 0 };
    row.score += weight;
    pages.set(result.id, row);
  };
  const [all, ...each] = searches;
  const best = Math.max(...all.results.map((r) => r.score), 1e-9);
  for (const r of all.results) add(r, 2 + r.score / best);
  for (const found of each) {
    if (!found.results.length) continue;
    const idf = Math.log(1 + total / found.results.length);
    const top = Math.max(...found.results.map((r) => r.score), 1e-9);
    for (const r of found.results) add(r, (idf * (0.5 + (0.5 * r.score) / top)) / terms.length);
  }
  return { terms, rows: [...pages.values()].sort((a, b) => b.score - a.score || (a.result.id < b.result.id ? -1 : 1)) };
}

/** Words of a title or tag list, for the title boost. */
const wordsOf = (text) => (text ?? "").toLowerCase().replace(/[#_-]/g, " ").split(/[^a-z0-9]+/).filter(Boolean);

/** Raise pages whose title or tags carry the query's words, and most of all the query as a phrase. */
function titleBoost(row, data, terms, phrase) {
  const title = wordsOf(data.meta?.title);
  const tags = wordsOf(data.meta?.tags);
  let boost = 0;
  for (const t of terms) {
    const stem = t.slice(0, 5);
    if (title.some((w) => w.startsWith(stem))) boost += 0.4 / terms.length;
    if (tags.some((w) => w.startsWith(stem))) boost += 0.2 / terms.length;
  }
  const joined = ` ${title.join(" ")} ${tags.join(" ")} `;
  if (phrase.split(" ").length > 1 && joined.includes(` ${phrase} `)) boost += 1;
  return row.score + boost;
}

/** Pagefind's excerpt, or the symptom when the excerpt was drawn from the identifier list. */
const excerptOf = (d) => ((d.excerpt ?? "").includes(" · ") ? escapeHtml(d.meta?.symptom ?? "") : d.excerpt ?? "");

/** Signature results at once, without waiting for anything (null until the bundle is loaded). */
export function quickHits(query) {
  if (!loaded || !query.trim()) return null;
  const { compiled } = loaded;
  return signatureHits(compiled, query.trim()).map((hit) => ({
    id: hit.id,
    title: compiled.entries[hit.id]?.title ?? hit.id,
    url: `/failures/${hit.id}/`,
    excerpt: "",
    signature: hit,
  }));
}

const idOf = (url) => url.match(/\/failures\/([a-z0-9-]+)\//)?.[1] ?? null;

/**
 * Search: signature hits first (marked as such), then Pagefind results.
 * Returns [{id, title, url, excerpt (HTML from Pagefind, may be ""), signature: hit|null}].
 */
/**
 * ``onSignatures`` (optional) is called with early results: the signature hits, then the pages
 * that hold every word, before the full ranking is done. ``stale`` (optional) says when the caller
 * no longer wants this query's results.
 */
export async function search(query, { filters = {}, limit = 10, onSignatures = null, stale = () => false } = {}) {
  const q = query.trim();
  if (!q) return [];
  const { compiled, pagefind } = await load();
  // Pagefind filters by category and severity (one value per page); systems are filtered here.
  const { system, ...single } = filters;
  const keep = (id) => !system || (compiled.entries[id]?.systems ?? []).includes(system);
  const out = [];
  const seen = new Set();
  for (const hit of signatureHits(compiled, q)) {
    const meta = compiled.entries[hit.id];
    if (!meta || seen.has(hit.id) || !keep(hit.id)) continue;
    seen.add(hit.id);
    out.push({ id: hit.id, title: meta.title, url: `/failures/${hit.id}/`, excerpt: "", signature: hit });
  }
  if (onSignatures && out.length) onSignatures(out.slice());
  // A pasted log line that hit a signature needs no word-by-word search: its entry is known.
  const words = out.length && looksLikeLogLine(q) ? "" : fullTextQuery(q);
  // Pages holding every word are shown at once; the word-by-word ranking refines them after.
  const early = async (found) => {
    if (!onSignatures || !found.results.length || stale()) return;
    const first = await Promise.all(found.results.slice(0, limit).map((r) => r.data()));
    const rows = first.map((d) => ({ d, id: idOf(d.url) })).filter((r) => r.id && !seen.has(r.id) && keep(r.id));
    onSignatures([...out, ...rows.map(({ d, id }) => ({ id, title: d.meta?.title ?? id, url: d.url, excerpt: excerptOf(d), signature: null }))]);
  };
  const { terms = [], rows = [] } = words
    ? await rankPages(pagefind, words, Object.keys(compiled.entries).length, single, early)
    : {};
  // A query typed since this one started makes its results useless: skip loading their excerpts.
  if (stale()) return out;
  const top = rows.slice(0, Math.max(20, limit + seen.size));
  const data = await Promise.all(top.map((r) => r.result.data()));
  const phrase = wordsOf(words).join(" ");
  const order = top.map((row, i) => ({ d: data[i], score: titleBoost(row, data[i], terms, phrase) }));
  order.sort((a, b) => b.score - a.score);
  for (const { d } of order) {
    const id = idOf(d.url);
    if (!id || seen.has(id) || !keep(id)) continue;
    seen.add(id);
    out.push({ id, title: d.meta?.title ?? id, url: d.url, excerpt: excerptOf(d), signature: null });
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
