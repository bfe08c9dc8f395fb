// Injected by `site-builder serve` only (never in built pages): reloads on rebuilds, swaps CSS, shows errors
// and the page's warnings.
(function () {
  "use strict";
  var KEY = "site-builder-scroll:" + location.pathname;
  var saved = sessionStorage.getItem(KEY);
  if (saved !== null) {
    sessionStorage.removeItem(KEY);
    var y = parseFloat(saved);
    var restore = function () { window.scrollTo(0, y); };
    if (document.readyState === "complete") restore(); else window.addEventListener("load", restore);
  }

  function here(path) {
    var p = location.pathname;
    if (p.endsWith("/")) p += "index.html";
    return path === p || path === decodeURIComponent(p);
  }

  // The overlay's words in the page's language (<html lang>), as the theme's words of the running note and badges
  // (its site.css, by :lang); the message itself is what the terminal printed.
  var WORDS = {
    en: { code: "Code failed", build: "Build error", at: " in ", warnings: "Warnings", close: "Close" },
    zh: { code: "代码运行失败", build: "构建出错", at: "：", warnings: "警告", close: "关闭" },
    "zh-hant": { code: "程式碼執行失敗", build: "建置出錯", at: "：", warnings: "警告", close: "關閉" },
    ko: { code: "코드 실행 실패", build: "빌드 오류", at: ": ", warnings: "경고", close: "닫기" }
  };
  function words() {
    var lang = (document.documentElement.lang || "en").toLowerCase();
    if (/^zh-(tw|hk|mo|hant)/.test(lang)) return WORDS["zh-hant"];
    return WORDS[lang.split("-")[0]] || WORDS.en;
  }

  // A box of its own over the page (`id`), emptied; made the first time with its tag, role and style. None when
  // `shown` is false: the box, if any, is removed.
  function panel(id, tag, role, css, shown) {
    var box = document.getElementById(id);
    if (!shown) { if (box) box.remove(); return null; }
    if (!box) {
      box = document.createElement(tag);
      box.id = id;
      box.setAttribute("role", role);
      box.style.cssText = css;
      document.body.appendChild(box);
    }
    box.textContent = "";
    return box;
  }

  function overlay(event) {
    var box = panel("site-builder-error", "div", "alert",
      "position:fixed;inset:auto 1rem 1rem 1rem;z-index:2147483647;max-height:60vh;overflow:auto;" +
      "background:#1b1d21;color:#f0f0f0;border-left:6px solid #f85149;border-radius:8px;padding:1rem 1.2rem;" +
      "font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;box-shadow:0 8px 30px rgba(0,0,0,.35);white-space:pre-wrap",
      !!event);
    if (!box) return;
    var head = document.createElement("strong");
    var w = words();
    head.textContent = (event.kind === "code" ? w.code : w.build) + (event.file ? w.at + event.file + (event.line ? ":" + event.line : "") : "");
    head.style.color = "#ff7b72";
    var msg = document.createElement("div");
    msg.className = "message";
    msg.textContent = event.message;
    box.appendChild(head);
    box.appendChild(msg);
  }

  // This page's post's warnings, as the terminal printed them (a note, not an alert: the page is built), until
  // the post has none; closed by its button until the next build that changes them.
  function notes(lines) {
    var box = panel("site-builder-warnings", "aside", "status",
      "position:fixed;left:1rem;bottom:1rem;z-index:2147483646;max-width:min(48rem,calc(100vw - 2rem));" +
      "max-height:35vh;overflow:auto;background:#1b1d21;color:#f0f0f0;border-left:6px solid #d29922;border-radius:8px;" +
      "padding:.7rem 2.8rem .7rem 1rem;font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;" +
      "box-shadow:0 8px 30px rgba(0,0,0,.35);white-space:pre-wrap;overflow-wrap:anywhere;text-align:left",
      !!(lines && lines.length));
    if (!box) return;
    var w = words();
    box.setAttribute("aria-label", w.warnings);
    var head = document.createElement("strong");
    head.textContent = w.warnings + " (" + lines.length + ")";
    head.style.color = "#e3b341";
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "\u00d7";
    close.setAttribute("aria-label", w.close);
    close.style.cssText = "position:absolute;top:.35rem;right:.4rem;background:none;border:0;color:#f0f0f0;" +
      "font:22px/1 sans-serif;cursor:pointer;padding:.2rem .45rem";
    close.onclick = function () { box.remove(); };
    box.appendChild(head);
    box.appendChild(close);
    lines.forEach(function (line) {  // one warning a row, its wrapped lines indented under its start
      var row = document.createElement("div");
      row.textContent = line;
      row.style.cssText = "padding-left:1.5em;text-indent:-1.5em;margin-top:.3rem";
      box.appendChild(row);
    });
  }

  function swapCss(paths) {
    var links = document.querySelectorAll('link[rel="stylesheet"]');
    links.forEach(function (link) {
      var href = new URL(link.getAttribute("href"), location.href);
      if (paths.indexOf(href.pathname) >= 0) {
        var fresh = link.cloneNode();
        href.searchParams.set("v", Date.now());
        fresh.href = href.pathname + href.search;
        fresh.onload = function () { link.remove(); };
        link.after(fresh);
      }
    });
  }

  // seen: the reload events the server had sent when it read this page (one that named it since reloads it)
  var seen = document.currentScript ? document.currentScript.getAttribute("data-seen") : null;
  var source = new EventSource("/__livereload?page=" + encodeURIComponent(location.pathname) +
    (seen ? "&seen=" + encodeURIComponent(seen) : ""));
  source.onmessage = function (message) {
    var event = JSON.parse(message.data);
    if (event.type === "error") { overlay(event); return; }
    if (event.type === "ok") { overlay(null); return; }
    if (event.type === "warnings") { notes(event.lines); return; }
    if (event.type === "css") { overlay(null); swapCss(event.paths); return; }
    if (event.type === "reload") {
      overlay(null);
      if (event.all || event.paths.some(here)) {
        sessionStorage.setItem(KEY, String(window.scrollY));
        location.reload();
      }
    }
  };
  window.addEventListener("beforeunload", function () { source.close(); });
})();
