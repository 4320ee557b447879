// Run the browser's search ranking under Node. Reads JSON from stdin:
//   {"terms": [texts...], "stop": [...]}          -> prints the terms of each text
//   {"index": {...}, "query": "...", "filter": id?} -> prints the ranked entry ids
import { readFileSync } from "node:fs";
import { prepareIndex, rank, terms } from "../../static/js/search-rank.js";

const input = JSON.parse(readFileSync(0, "utf8"));
let out;
if (input.terms) {
  const stop = new Set(input.stop);
  out = input.terms.map((text) => terms(text, stop));
} else {
  const index = prepareIndex(input.index);
  out = rank(index, input.query, (doc) => doc.id !== input.exclude).map((r) => r.doc.id);
}
process.stdout.write(JSON.stringify(out) + "\n");
