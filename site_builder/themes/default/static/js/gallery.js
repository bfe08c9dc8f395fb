/* site_builder default theme: an accessible lightbox for `::: gallery` blocks.
 *
 * Progressive enhancement: without this script each .gallery-link is a plain link to the full image.
 * With it, a click (or Enter / Space on the focused link) opens a native <dialog> (modal: focus trap,
 * top layer) showing the photo large, with its caption and an "n / total" counter for its gallery.
 * ArrowLeft / ArrowRight and swipes move through the gallery (wrapping around), Escape or a click on
 * the backdrop closes it, and focus returns to the link that opened it. Each .gallery is its own group.
 * No libraries, no build step.
 */
(function () {
  "use strict";

  if (!document.querySelector(".gallery-link")) return;
  if (typeof HTMLDialogElement !== "function" || !HTMLDialogElement.prototype.showModal) return;

  var zh = /^zh\b/i.test(document.documentElement.lang || "");
  var LABELS = zh
    ? { dialog: "图片浏览", close: "关闭", prev: "上一张", next: "下一张" }
    : { dialog: "Photo viewer", close: "Close", prev: "Previous", next: "Next" };
  var SWIPE_MIN = 40;  // px a swipe must travel horizontally (and more than vertically)

  var dialog = null, img = null, text = null, counter = null, prevBtn = null, nextBtn = null;
  var group = [], index = 0, opener = null;
  var preloaded = new Map();

  function el(tag, className, attrs) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }

  function button(className, label, glyph) {
    var b = el("button", "lightbox-button " + className, { type: "button", "aria-label": label, title: label });
    b.innerHTML = '<svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">' +
      '<path d="' + glyph + '" fill="none" stroke="currentColor" stroke-width="2.4" ' +
      'stroke-linecap="round" stroke-linejoin="round"/></svg>';
    return b;
  }

  function build() {
    dialog = el("dialog", "lightbox", { role: "dialog", "aria-label": LABELS.dialog, "aria-describedby": "lightbox-caption" });
    var stage = el("div", "lightbox-stage");
    img = el("img", "lightbox-img", { alt: "", draggable: "false", decoding: "async" });
    stage.appendChild(img);
    var caption = el("div", "lightbox-caption", { id: "lightbox-caption" });
    text = el("span", "lightbox-text");
    counter = el("span", "lightbox-counter", { "aria-live": "polite", "aria-atomic": "true" });
    caption.append(text, counter);
    var closeBtn = button("lightbox-close", LABELS.close, "M6 6l12 12M18 6L6 18");
    prevBtn = button("lightbox-prev", LABELS.prev, "M15 5l-7 7 7 7");
    nextBtn = button("lightbox-next", LABELS.next, "M9 5l7 7-7 7");
    // the close button comes first, so showModal() gives it the focus
    dialog.append(closeBtn, stage, caption, prevBtn, nextBtn);
    document.body.appendChild(dialog);

    closeBtn.addEventListener("click", close);
    prevBtn.addEventListener("click", function () { go(-1); });
    nextBtn.addEventListener("click", function () { go(1); });
    dialog.addEventListener("keydown", onKey);
    dialog.addEventListener("close", onClosed);
    dialog.addEventListener("click", function (e) {
      if (swiped) { swiped = false; return; }  // the click that ends a swipe does not close
      // a click anywhere but on the photo, the caption text or a button: the backdrop
      if (e.target === dialog || e.target === stage || e.target === caption) close();
    });
    dialog.addEventListener("pointerdown", onPointerDown);
    dialog.addEventListener("pointerup", onPointerUp);
    dialog.addEventListener("pointercancel", function () { start = null; });
    img.addEventListener("load", loaded);
    img.addEventListener("error", loaded);
  }

  function loaded() { img.classList.remove("is-loading"); }

  /* ---- what a link shows ---- */

  function itemOf(link) {
    var fig = link.closest(".gallery-item");
    var thumb = link.querySelector("img");
    var cap = fig && fig.querySelector("figcaption");
    var caption = (cap && cap.textContent.trim()) || (thumb && thumb.getAttribute("alt")) || "";
    return {
      link: link,
      src: link.href,
      srcset: link.getAttribute("data-srcset") || "",
      alt: (thumb && thumb.getAttribute("alt")) || caption,
      caption: caption,
    };
  }

  function setSource(target, item) {
    // srcset before src, so the browser does not start loading the fallback first
    if (item.srcset) { target.sizes = "100vw"; target.srcset = item.srcset; }
    else { target.removeAttribute("srcset"); target.removeAttribute("sizes"); }
    target.src = item.src;
  }

  function preload(item) {
    var key = item.src + " " + item.srcset;
    if (preloaded.has(key)) return;
    var im = new Image();
    im.decoding = "async";
    setSource(im, item);
    preloaded.set(key, im);
  }

  function show(i) {
    var n = group.length;
    index = ((i % n) + n) % n;
    var item = itemOf(group[index]);
    if (img.getAttribute("src") !== item.src) {
      img.classList.add("is-loading");
      img.removeAttribute("src");  // no stale photo under the new caption
      setSource(img, item);
    }
    img.alt = item.alt;
    text.textContent = item.caption;
    text.hidden = !item.caption;
    counter.textContent = (index + 1) + " / " + n;
    counter.hidden = n < 2;
    prevBtn.hidden = nextBtn.hidden = n < 2;
    if (n > 1) {
      preload(itemOf(group[(index + 1) % n]));
      preload(itemOf(group[(index - 1 + n) % n]));
    }
  }

  function go(step) { if (group.length > 1) show(index + step); }

  function open(link) {
    if (!dialog) build();
    var gallery = link.closest(".gallery");
    group = Array.prototype.slice.call((gallery || document).querySelectorAll(".gallery-link"));
    if (gallery) group = group.filter(function (a) { return a.closest(".gallery") === gallery; });  // not nested ones
    opener = link;
    show(Math.max(0, group.indexOf(link)));
    document.documentElement.classList.add("lightbox-open");
    if (!dialog.open) dialog.showModal();
  }

  function close() { if (dialog && dialog.open) dialog.close(); }

  function onClosed() {
    document.documentElement.classList.remove("lightbox-open");
    img.removeAttribute("src");
    img.removeAttribute("srcset");
    var back = opener;
    opener = null;
    if (back && back.isConnected) back.focus({ preventScroll: true });
  }

  /* ---- input ---- */

  function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowRight") { e.preventDefault(); go(1); }
    else if (e.key === "ArrowLeft") { e.preventDefault(); go(-1); }
    else if (e.key === "Escape") { e.preventDefault(); close(); }
  }

  var start = null, swiped = false;

  function onPointerDown(e) {
    if (!e.isPrimary || (e.pointerType === "mouse" && e.button !== 0)) return;
    if (e.target.closest && e.target.closest("button")) return;
    start = { x: e.clientX, y: e.clientY };
    swiped = false;
  }

  function onPointerUp(e) {
    if (!start || !e.isPrimary) return;
    var dx = e.clientX - start.x, dy = e.clientY - start.y;
    start = null;
    if (Math.abs(dx) >= SWIPE_MIN && Math.abs(dx) > Math.abs(dy)) {
      swiped = true;  // the click this pointerup may fire is part of the swipe
      setTimeout(function () { swiped = false; }, 400);
      go(dx < 0 ? 1 : -1);  // finger moves left: the next photo comes in from the right
    }
  }

  document.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var link = e.target.closest && e.target.closest("a.gallery-link");
    if (!link) return;
    e.preventDefault();
    open(link);
  });

  document.addEventListener("keydown", function (e) {
    // Enter on a link fires a click already; Space on a link would only scroll
    if (e.key !== " " && e.key !== "Spacebar") return;
    var link = e.target.closest && e.target.closest("a.gallery-link");
    if (!link || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    open(link);
  });
})();
