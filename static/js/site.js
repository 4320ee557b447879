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

addCopyButtons();
setUpFilters();
highlightToc();
searchShortcut();
