// The /search/ page: reads and writes ?q= (and filters) so that results can be linked.
import { appendExcerpt, appendHighlighted, search } from "./search-core.js";

const $ = (id) => document.getElementById(id);
const box = $("search-q");
const list = $("search-results");
const count = $("search-count");
const filters = $("search-filters");
let ticket = 0;

function show(q, results) {
  list.replaceChildren();
  count.textContent = results.length
    ? `${results.length} result${results.length === 1 ? "" : "s"}`
    : q.trim() ? "No result. Try fewer words, or paste the first error line of your log." : "";
  for (const r of results) {
    const li = document.createElement("li");
    li.className = "entry-row";
    li.dataset.entryId = r.id;
    li.append(Object.assign(document.createElement("a"), { href: r.url, className: "entry-title", textContent: r.title }));
    const detail = document.createElement("p");
    detail.className = "entry-sum";
    if (r.signature) {
      li.classList.add("signature-hit");
      li.append(Object.assign(document.createElement("span"), { className: "chip", textContent: r.signature.exact ? "signature match" : "matches part of a signature" }));
      appendHighlighted(detail, q.slice(0, 500), r.signature.matched);
    } else appendExcerpt(detail, r.excerpt);
    li.append(detail);
    list.append(li);
  }
}

let running = false;
let again = false;

/** One search at a time; a change made meanwhile runs once the current search ends. */
async function run() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  const q = box.value;
  const chosen = Object.fromEntries([...new FormData(filters)].filter(([, v]) => v));
  const url = new URL(location.href);
  url.search = new URLSearchParams({ ...(q ? { q } : {}), ...chosen }).toString();
  history.replaceState(null, "", url);
  const mine = ++ticket;
  try {
    const onSignatures = (first) => mine === ticket && show(q, first);
    const results = q.trim() ? await search(q, { filters: chosen, limit: 20, onSignatures }) : [];
    if (mine === ticket) show(q, results);
  } catch (error) {
    if (mine === ticket) {
      list.replaceChildren();
      count.textContent = `Search is unavailable: ${error.message}. Reload the page to try again.`;
    }
  } finally {
    running = false;
    if (again) {
      again = false;
      run();
    }
  }
}

const params = new URLSearchParams(location.search);
box.value = params.get("q") ?? "";
for (const select of filters.querySelectorAll("select")) {
  const wanted = params.get(select.name);
  if (wanted) select.value = wanted;
}
filters.hidden = false;
$("search-js-note").hidden = true;
box.addEventListener("input", run);
filters.addEventListener("change", run);
$("search-page-form").addEventListener("submit", (e) => { e.preventDefault(); run(); });
run();
