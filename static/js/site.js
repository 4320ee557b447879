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

/** The header search box: results appear below it as the user types (a combobox with a listbox). */
function headerSearch() {
  const box = document.getElementById("site-search");
  if (!box) return;
  const form = box.form;
  const popup = document.createElement("ul");
  popup.id = "search-popup";
  popup.className = "search-popup";
  popup.setAttribute("role", "listbox");
  popup.setAttribute("aria-label", "Search results");
  popup.hidden = true;
  const status = document.createElement("p");
  status.className = "visually-hidden";
  status.setAttribute("aria-live", "polite");
  form.append(popup, status);
  Object.entries({ role: "combobox", "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": popup.id })
    .forEach(([k, v]) => box.setAttribute(k, v));
  let core = null;
  let active = -1;
  let ticket = 0;

  const options = () => [...popup.querySelectorAll("[role=option]")];
  const close = () => {
    popup.hidden = true;
    box.setAttribute("aria-expanded", "false");
    box.removeAttribute("aria-activedescendant");
    active = -1;
  };
  const highlight = (i) => {
    const all = options();
    if (!all.length) return;
    active = (i + all.length) % all.length;
    all.forEach((o, n) => o.setAttribute("aria-selected", String(n === active)));
    box.setAttribute("aria-activedescendant", all[active].id);
    all[active].scrollIntoView({ block: "nearest" });
  };
  const render = (q, results) => {
    // Results arrive in steps (signatures, then full text): keep the option the user moved to.
    const keep = active >= 0 ? options()[active]?.dataset.entryId : null;
    popup.replaceChildren();
    results.forEach((r, i) => {
      const li = document.createElement("li");
      li.id = `search-option-${i}`;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
      li.dataset.entryId = r.id;
      const a = Object.assign(document.createElement("a"), { href: r.url, textContent: r.title, tabIndex: -1 });
      li.append(a);
      const detail = document.createElement("span");
      detail.className = "search-detail";
      if (r.signature) {
        li.classList.add("signature-hit");
        const chip = Object.assign(document.createElement("span"), { className: "chip", textContent: "signature match" });
        detail.append(chip, " ");
        core.appendHighlighted(detail, q.slice(0, 300), r.signature.matched);
      } else core.appendExcerpt(detail, r.excerpt);
      li.append(detail);
      li.addEventListener("mousedown", (e) => { e.preventDefault(); location.href = r.url; });
      popup.append(li);
    });
    const more = document.createElement("li");
    more.className = "search-more";
    more.append(Object.assign(document.createElement("a"), { href: `/search/?q=${encodeURIComponent(q)}`, textContent: results.length ? "All results" : "No match yet: open the search page" }));
    popup.append(more);
    status.textContent = `${results.length} result${results.length === 1 ? "" : "s"}`;
    popup.hidden = false;
    box.setAttribute("aria-expanded", "true");
    active = -1;
    const again = keep ? options().findIndex((o) => o.dataset.entryId === keep) : -1;
    if (again >= 0) highlight(again);
  };
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
      const onSignatures = (first) => mine === ticket && render(q, first);
      const results = await core.search(q, { limit: 8, onSignatures, stale: () => mine !== ticket });
      if (mine === ticket) {
        render(q, results);
        popup.dataset.state = "done";
      }
    } catch (error) {
      if (mine === ticket) {
        const note = Object.assign(document.createElement("li"), { className: "search-more", textContent: `Search is unavailable: ${error.message}` });
        popup.replaceChildren(note);
        popup.hidden = false;
        popup.dataset.state = "error";
        status.textContent = note.textContent;
      }
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
      return close();
    }
    wanted = { q, mine };
    popup.dataset.state = "searching";
    // A pasted error line is answered from the signatures at once, even while Pagefind is busy.
    const quick = core?.quickHits(q);
    if (quick?.length) render(q, quick);
    timer = setTimeout(run, DEBOUNCE_MS);
  });
  box.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (popup.hidden) return;
      e.preventDefault();
      highlight(active + (e.key === "ArrowDown" ? 1 : -1));
    } else if (e.key === "Escape") {
      close();
    } else if (e.key === "Enter" && active >= 0) {
      e.preventDefault();
      location.href = options()[active].querySelector("a").href;
    }
  });
  box.addEventListener("blur", () => setTimeout(close, 150));
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
