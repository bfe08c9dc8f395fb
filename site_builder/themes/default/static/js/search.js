// Site search, loaded by the header's box on its first use (and by the search page): Pagefind's index of each
// language, searched together (a Chinese word finds the Chinese posts from an English page), results under the box.
const form = document.querySelector("form.search");
const input = form && form.querySelector("input[type=search]");
const site = new URL("../", import.meta.url).pathname;  // the site's root, also under a path (/sub/)
const base = site + "pagefind/";
const say = (key, q, n) => (form.dataset[key] || "").replace("{q}", q).replace("{n}", n);
let box = document.getElementById("search-results");
const onPage = !!box;
if (!box) {
  box = document.createElement("section");
  box.id = "search-results";
  box.className = "search-panel wrap";
  box.setAttribute("aria-label", form.dataset.label);
  box.hidden = true;
  form.closest(".site-header").append(box);
}
const status = box.querySelector("[role=status]") || box.appendChild(document.createElement("p"));
status.setAttribute("role", "status");
const list = box.querySelector("ol") || box.appendChild(document.createElement("ol"));

async function load() {
  // The index is in shards (a year of posts each, pagefind/shards.json): each is a Pagefind bundle of its own, with
  // an index per language. The first shard with the page's <html lang> is searched and every other (shard,
  // language) is merged in, so every post can be found (a Chinese word from an English page too).
  const manifest = await (await fetch(base + "shards.json")).json();
  const mine = document.documentElement.lang.toLowerCase();
  const shards = manifest.shards.filter((s) => s.languages.length);
  const first = shards.find((s) => s.languages.includes(mine)) || shards[0];
  if (!first) return { search: async () => null };
  const pagefind = await import(base + first.name + "/pagefind.js");
  await pagefind.options({ baseUrl: site });
  // the first shard's other languages under another spelling of its address: Pagefind skips a merge of its own
  const again = location.origin + base, merged = [];
  for (const s of shards) {
    for (const code of s.languages) {
      if (s !== first || code !== mine) {
        merged.push(pagefind.mergeIndex((s === first ? again : base) + s.name + "/", { language: code, baseUrl: site }));
      }
    }
  }
  await Promise.all(merged);
  return pagefind;
}
const ready = load();

function item(data) {
  const li = document.createElement("li");
  if (data.language) li.lang = data.language;
  const a = li.appendChild(document.createElement("a"));
  a.href = data.url;
  a.textContent = (data.meta && data.meta.title) || data.url;
  const p = li.appendChild(document.createElement("p"));
  p.className = "excerpt";
  p.innerHTML = data.excerpt;  // Pagefind's excerpt: the page's text, escaped, with <mark> around the words
  return li;
}

// one search at a time: Pagefind's WebAssembly can fail ("memory access out of bounds") when asked twice at once
let queue = Promise.resolve();
async function search(q) {
  const r = await (await ready).search(q);
  return r ? exact(r.results, q) : [];
}

// Pagefind searches each shard on its own, and a shard without a query's word takes the longest prefix of it that
// the shard has instead (Pagefind's PR #315): "ray" finds "(Ra)" in a year with no "ray". One index of the whole
// site falls back only when no page has the word. So a result none of whose matched words begins as a query word
// does (all of it, or all but two letters for a stem, three at least) is dropped when another result has them all.
// Pagefind scores such a shorter word lower, so they are at the end: only the end of the list is read.
const split = /[^\p{L}\p{N}]+/u, cjk = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
function shared(a, b) {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}
function full(data, terms) {
  const words = data.content.split(/\s+/);
  const pieces = data.locations.flatMap((i) => (words[i] || "").toLowerCase().split(split));
  const enough = (t) => Math.min(t.length, Math.max(3, t.length - 2));
  return terms.every((t) => cjk.test(t) || pieces.some((p) => shared(p, t) >= enough(t)));
}
async function exact(found, q) {
  const terms = q.toLowerCase().split(split).filter(Boolean);
  let end = found.length;
  while (end > 0 && found.length - end < 50 && !full(await found[end - 1].data(), terms)) end--;
  return end > 0 ? found.slice(0, end) : found;
}

let asked = 0;
async function run() {
  const q = input.value.trim(), mine = ++asked;
  if (onPage) history.replaceState(null, "", q ? "?q=" + encodeURIComponent(q) : location.pathname);
  if (!q) { box.hidden = !onPage; list.replaceChildren(); status.textContent = ""; return; }
  box.hidden = false;
  status.textContent = say("loading", q, 0);
  let found;
  try {
    found = await (queue = queue.catch(() => {}).then(() => search(q)));
  } catch (e) {
    console.error(e);
    status.textContent = say("failed", q, 0);
    return;
  }
  const shown = await Promise.all(found.slice(0, 10).map((r) => r.data()));
  if (mine !== asked) return;
  list.replaceChildren(...shown.map(item));
  status.textContent = say(found.length === 1 ? "one" : found.length ? "count" : "none", q, found.length);
}

let timer;
input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 150); });
input.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !onPage) { box.hidden = true; }
});
document.addEventListener("click", (e) => {
  if (!onPage && !box.hidden && !box.contains(e.target) && !form.contains(e.target)) box.hidden = true;
});
if (onPage) input.value = new URLSearchParams(location.search).get("q") || input.value;
if (input.value.trim()) run();
