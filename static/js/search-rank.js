// Ranks entries for the words of a query with BM25F over /api/search.json, which
// denpex_site/searchindex.py builds; the query is cut into terms exactly as the entries were.

/** Dotted, underscored or camel-case names, starting at the beginning of a word. */
export const IDENTIFIER =
  /(?<![A-Za-z0-9_])(?:[A-Za-z_][A-Za-z0-9_]*(?:[.:_/][A-Za-z0-9_]+)+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Za-z]*[a-z][A-Z][A-Za-z0-9]*)/g;
const PART = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;
const WORD = /[a-z0-9]+(?:_[a-z0-9]+)*/g;
const LINK_TARGET = /\]\([^)\s]*\)/g;
const APOSTROPHE = /(?<=[A-Za-z])['\u2019](?=[A-Za-z])/g;
const SUFFIXES = [["ies", "y"], ["sses", "ss"], ["ing", ""], ["ed", ""], ["es", ""], ["s", ""]];
const ALPHA = /^[a-z]+$/;

/** The light stemmer of denpex_site.render.searchindex.stem. */
export function stem(word) {
  if (word.length <= 3 || !ALPHA.test(word)) return word;
  const base = word;
  for (const [suffix, replacement] of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      if (suffix === "s" && (word.endsWith("ss") || word.endsWith("us") || word.endsWith("is"))) return word;
      word = word.slice(0, -suffix.length) + replacement;
      break;
    }
  }
  if (word.length >= 4 && word.at(-1) === word.at(-2) && !"lsz".includes(word.at(-1))) word = word.slice(0, -1);
  if (word.length > 4 && word.endsWith("e")) word = word.slice(0, -1);
  if (word !== base && word.endsWith("is")) word = `${word.slice(0, -1)}z`;
  return word;
}

/** ``ncclSystemError`` -> ["nccl", "system", "error"]. */
export const splitIdentifier = (identifier) => (identifier.match(PART) ?? []).map((p) => p.toLowerCase());

/** The terms of a text, as denpex_site.render.searchindex.terms cuts them. */
export function terms(text, stop) {
  text = text.replace(LINK_TARGET, "]").replace(APOSTROPHE, "");
  const term = (w) => (w.length < 2 || stop.has(w) ? null : stem(w));
  const out = [];
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    if (word.includes("_")) out.push(word);
    for (const t of word.split("_").map(term)) if (t) out.push(t);
  }
  for (const identifier of text.match(IDENTIFIER) ?? []) {
    const parts = splitIdentifier(identifier);
    if (parts.filter((p) => !/^[0-9]+$/.test(p)).length > 1) {
      for (const t of parts.map(term)) if (t && !/^[0-9]+$/.test(t)) out.push(t);
    }
  }
  return out;
}

/** Prepare the index document for ranking (average field lengths, stop words as a set). */
export function prepareIndex(index) {
  const n = index.docs.length || 1;
  const average = index.fields.map((_, f) => Math.max(1, index.docs.reduce((sum, d) => sum + d.lengths[f], 0) / n));
  return { ...index, average, stop: new Set(index.stop_words), number: new Map(index.docs.map((d, i) => [d.id, i])) };
}

/**
 * Entries ranked for the words of ``query``: [{doc, score}], best first. ``keep(doc)`` filters.
 * A term's weighted frequency sums its fields (weight x frequency, normalised by the field's length);
 * each term adds idf x tf / (k1 + tf). Of two entries that fit about as well, the one more
 * entries link to (the more central failure) comes first.
 */
export function rank(index, query, keep = () => true) {
  const { docs, postings, weights, average, k1, b } = index;
  const scores = new Map();
  for (const term of new Set(terms(query, index.stop))) {
    const rows = postings[term];
    if (!rows) continue;
    const tf = new Map();
    for (const packed of rows) {
      // entry * 256 + field * 16 + frequency (denpex_site.render.searchindex.posting)
      const doc = packed >>> 8;
      const field = (packed >>> 4) & 15;
      const count = packed & 15;
      const norm = 1 - b + (b * docs[doc].lengths[field]) / average[field];
      tf.set(doc, (tf.get(doc) ?? 0) + (weights[field] * count) / norm);
    }
    const idf = Math.log(1 + (docs.length - tf.size + 0.5) / (tf.size + 0.5));
    for (const [doc, weighted] of tf) scores.set(doc, (scores.get(doc) ?? 0) + (idf * weighted) / (k1 + weighted));
  }
  return [...scores]
    .filter(([doc]) => keep(docs[doc]))
    .map(([doc, score]) => ({ doc: docs[doc], score: score * (1 + index.link_prior * Math.log1p(docs[doc].links)) }))
    .sort((x, y) => y.score - x.score || (x.doc.id < y.doc.id ? -1 : 1));
}
