// Progressive enhancements for every page: copy buttons, index filters, table-of-contents
// highlighting and the "/" shortcut to the search box. Every page works without this file.

const copyText = async (text) => {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
};

function addCopyButtons() {
  for (const pre of document.querySelectorAll("pre.code")) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy code to clipboard");
    button.addEventListener("click", async () => {
      const ok = await copyText(pre.querySelector("code")?.innerText ?? pre.innerText);
      button.textContent = ok ? "Copied" : "Copy failed";
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
    pre.append(button);
  }
}

function setUpFilters() {
  const form = document.getElementById("filters");
  const list = document.getElementById("failure-list");
  if (!form || !list) return;
  const rows = [...list.querySelectorAll(".entry-row")];
  const count = document.getElementById("filter-count");
  const empty = document.getElementById("filter-empty");
  const params = new URLSearchParams(location.search);
  for (const select of form.querySelectorAll("select")) {
    const wanted = params.get(select.name);
    if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
  }
  const apply = () => {
    const { category, severity, system } = Object.fromEntries(new FormData(form));
    let shown = 0;
    for (const row of rows) {
      const ok =
        (!category || row.dataset.category === category) &&
        (!severity || row.dataset.severity === severity) &&
        (!system || row.dataset.systems.split(" ").includes(system));
      row.hidden = !ok;
      if (ok) shown += 1;
    }
    count.textContent = `${shown} of ${rows.length} shown`;
    empty.hidden = shown > 0;
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries({ category, severity, system })) if (v) next.set(k, v);
    const query = next.toString();
    history.replaceState(null, "", query ? `?${query}` : location.pathname);
  };
  form.addEventListener("change", apply);
  form.hidden = false;
  apply();
}

function highlightToc() {
  const links = new Map(
    [...document.querySelectorAll(".toc a[href^='#']")].map((a) => [a.getAttribute("href").slice(1), a]),
  );
  if (!links.size || !("IntersectionObserver" in window)) return;
  const observer = new IntersectionObserver(
    (seen) => {
      for (const item of seen) {
        if (!item.isIntersecting) continue;
        for (const a of links.values()) a.classList.remove("active");
        links.get(item.target.id)?.classList.add("active");
      }
    },
    { rootMargin: "-20% 0px -70% 0px" },
  );
  for (const id of links.keys()) {
    const section = document.getElementById(id);
    if (section) observer.observe(section);
  }
}

const DEBOUNCE_MS = 40;

/** The listbox under the header search box: its options, the one the keyboard is on, a live count. */
class SearchPopup {
  constructor(box) {
    this.box = box;
    this.active = -1;
    this.list = Object.assign(document.createElement("ul"), { id: "search-popup", className: "search-popup", hidden: true });
    this.list.setAttribute("role", "listbox");
    this.list.setAttribute("aria-label", "Search results");
    this.status = Object.assign(document.createElement("p"), { className: "visually-hidden" });
    this.status.setAttribute("aria-live", "polite");
    box.form.append(this.list, this.status);
    const attributes = { role: "combobox", "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": this.list.id };
    Object.entries(attributes).forEach(([k, v]) => box.setAttribute(k, v));
  }

  get options() { return [...this.list.querySelectorAll("[role=option]")]; }

  set state(value) { this.list.dataset.state = value; }

  show() {
    this.list.hidden = false;
    this.box.setAttribute("aria-expanded", "true");
  }

  close() {
    this.list.hidden = true;
    this.box.setAttribute("aria-expanded", "false");
    this.box.removeAttribute("aria-activedescendant");
    this.active = -1;
  }

  highlight(i) {
    const all = this.options;
    if (!all.length) return;
    this.active = (i + all.length) % all.length;
    all.forEach((o, n) => o.setAttribute("aria-selected", String(n === this.active)));
    this.box.setAttribute("aria-activedescendant", all[this.active].id);
    all[this.active].scrollIntoView({ block: "nearest" });
  }

  /** Results arrive in steps (signatures, then full text): the option the user moved to stays chosen. */
  render(q, results, core) {
    const keep = this.active >= 0 ? this.options[this.active]?.dataset.entryId : null;
    const more = Object.assign(document.createElement("li"), { className: "search-more" });
    const label = results.length ? "All results" : "No match yet: open the search page";
    more.append(Object.assign(document.createElement("a"), { href: `/search/?q=${encodeURIComponent(q)}`, textContent: label }));
    this.list.replaceChildren(...results.map((r, i) => resultOption(r, i, q, core)), more);
    this.status.textContent = `${results.length} result${results.length === 1 ? "" : "s"}`;
    this.show();
    this.active = -1;
    const again = keep ? this.options.findIndex((o) => o.dataset.entryId === keep) : -1;
    if (again >= 0) this.highlight(again);
  }

  error(message) {
    const note = Object.assign(document.createElement("li"), { className: "search-more", textContent: `Search is unavailable: ${message}` });
    this.list.replaceChildren(note);
    this.status.textContent = note.textContent;
    this.state = "error";
    this.show();
  }

  /** Arrow keys move through the options, Escape closes, Enter opens the chosen one. */
  onKey(e) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (this.list.hidden) return;
      e.preventDefault();
      this.highlight(this.active + (e.key === "ArrowDown" ? 1 : -1));
    } else if (e.key === "Escape") {
      this.close();
    } else if (e.key === "Enter" && this.active >= 0) {
      e.preventDefault();
      location.href = this.options[this.active].querySelector("a").href;
    }
  }
}

/** One result as an option: its title, then the matched signature or an excerpt. */
function resultOption(r, i, q, core) {
  const li = document.createElement("li");
  li.id = `search-option-${i}`;
  li.setAttribute("role", "option");
  li.setAttribute("aria-selected", "false");
  li.dataset.entryId = r.id;
  li.append(Object.assign(document.createElement("a"), { href: r.url, textContent: r.title, tabIndex: -1 }));
  const detail = Object.assign(document.createElement("span"), { className: "search-detail" });
  if (r.signature) {
    li.classList.add("signature-hit");
    detail.append(Object.assign(document.createElement("span"), { className: "chip", textContent: "signature match" }), " ");
    core.appendHighlighted(detail, q.slice(0, 300), r.signature.matched);
  } else core.appendExcerpt(detail, r.excerpt);
  li.append(detail);
  li.addEventListener("mousedown", (e) => { e.preventDefault(); location.href = r.url; });
  return li;
}

/** The header search box: results appear below it as the user types (a combobox with a listbox). */
function headerSearch() {
  const box = document.getElementById("site-search");
  if (!box) return;
  const popup = new SearchPopup(box);
  let core = null;
  let ticket = 0;
  // One search at a time: keys typed meanwhile only update the query that runs next.
  let timer = 0;
  let running = false;
  let wanted = null;
  const run = async () => {
    if (running || wanted === null) return;
    running = true;
    const { q, mine } = wanted;
    wanted = null;
    try {
      core ??= await import("./search-core.js");
      const onSignatures = (first) => mine === ticket && popup.render(q, first, core);
      const results = await core.search(q, { limit: 8, onSignatures, stale: () => mine !== ticket });
      if (mine === ticket) {
        popup.render(q, results, core);
        popup.state = "done";
      }
    } catch (error) {
      if (mine === ticket) popup.error(error.message);
    } finally {
      running = false;
      run();
    }
  };
  box.addEventListener("input", () => {
    const q = box.value;
    const mine = ++ticket;
    clearTimeout(timer);
    if (!q.trim()) {
      wanted = null;
      return popup.close();
    }
    wanted = { q, mine };
    popup.state = "searching";
    // A pasted error line is answered from the signatures at once, even while Pagefind is busy.
    const quick = core?.quickHits(q);
    if (quick?.length) popup.render(q, quick, core);
    timer = setTimeout(run, DEBOUNCE_MS);
  });
  box.addEventListener("keydown", (e) => popup.onKey(e));
  box.addEventListener("blur", () => setTimeout(() => popup.close(), 150));
}

function searchShortcut() {
  const box = document.getElementById("site-search");
  if (!box) return;
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      box.focus();
    }
  });
}

/** Example logs open scrolled to the first line that a signature matches. */
function revealLogHits() {
  for (const details of document.querySelectorAll("details.example-log")) {
    const show = () => {
      const pre = details.querySelector("pre");
      const hit = pre?.querySelector("mark.hit");
      if (!details.open || !hit) return;
      pre.scrollTop += hit.getBoundingClientRect().top - pre.getBoundingClientRect().top - 48;
    };
    details.addEventListener("toggle", show);
    show();
  }
}

addCopyButtons();
revealLogHits();
setUpFilters();
highlightToc();
headerSearch();
searchShortcut();
