"""What each known Hugo shortcode becomes (the handlers `shortcodes.expand` calls), and the Hugo rule list.

See shortcodes.py for the list of what is converted and how a shortcode is read.
"""

from __future__ import annotations

import re
from html import escape

from site_builder.admonitions import ALIASES, KINDS
from site_builder.importer.source import hugo_templates
from site_builder.importer.source.rules import Rule, RuleContext
from site_builder.importer.source.shortcodes import Handler, Shortcode, escapes, expand, leftovers

# other themes' admonition kinds (Material for MkDocs' and the even theme's names) -> ours
KIND_NAMES = {
    **{k: k for k in KINDS},
    **ALIASES,
    **dict.fromkeys(("abstract", "summary", "tldr", "question", "help", "faq", "example", "quote", "cite"), "note"),
    **dict.fromkeys(("success", "check", "done"), "tip"),
    **dict.fromkeys(("failure", "fail", "missing", "bug"), "danger"),
    "primary": "important",
}
_ADMONITION_SHORTCODES = ("admonition", "notice", "alert", "callout", "hint", "admonish")
_DETAILS = ("details", "fold", "spoiler", "expand", "collapse", "collapsible")
_MATH = ("katex", "math", "mathjax", "latex", "tex")


def _own_line(text: str, start: int) -> str:
    """ "\n" when the text before `start` does not end a line (a block must start one)."""
    return "" if start == 0 or text[start - 1] == "\n" else "\n"


def _block(ctx: RuleContext, call: Shortcode, text: str, markdown: str) -> str:
    """`markdown` as a block of its own, standing for the call's lines (later lines keep their numbers)."""
    return ctx.keep(f"{_own_line(text, call.start)}\n{markdown}\n\n", call.source)


def _wrap(ctx: RuleContext, call: Shortcode, text: str, head: str, tail: str) -> str:
    """A paired call's inner text (left to later rules) between `head` and `tail` lines, which stand for its tags."""
    inner = call.inner or ""
    before = _own_line(text, call.start) + f"\n{head}" + ("" if inner.startswith("\n") else "\n")
    after = ("" if inner.endswith("\n") else "\n") + f"{tail}\n"
    return ctx.keep(before, call.opener) + inner + ctx.keep(after, call.closer)


def highlight(call: Shortcode, ctx: RuleContext, text: str) -> str:
    if call.inner is None:
        return ctx.unconverted(text, call.start, call.source, "a highlight with no {{< /highlight >}}")
    lang = call.get("lang", 0).lower()
    opts = dict(re.findall(r"(\w+)\s*=\s*([^,]*)", call.get("options", 1)))
    options = []
    if opts.get("linenos", "").strip().lower() in ("table", "inline", "true"):
        options.append("linenos")
    lines = re.sub(r"[\[\]\"',]", " ", opts.get("hl_lines", "")).split()
    if lines:
        options.append(f'hl_lines="{" ".join(lines)}"')
    code = re.sub(r"\A[ \t]*\n", "", call.inner).rstrip()
    ticks = "`" * max(3, max((len(t) + 1 for t in re.findall(r"`{3,}", code)), default=3))
    info = (lang or "text") + (" {" + " ".join(options) + "}" if options else "")
    fence = f"{ticks}{info}\n{code}\n{ticks}"
    return ctx.keep(f"{_own_line(text, call.start)}{fence}\n", call.source)


def figure(call: Shortcode, ctx: RuleContext, text: str) -> str:
    src = call.get("src", 0)
    if not src:
        return ctx.unconverted(text, call.start, call.source, "a figure without src")
    caption = re.sub(r"<[^>]+>", "", call.get("caption") or call.get("title") or call.get("alt"))
    caption = " ".join(caption.replace("[", "\\[").replace("]", "\\]").split())
    image = f"![{caption}](<{src}>)"
    link = call.get("link")
    return _block(ctx, call, text, f"[{image}](<{link}>)" if link else image)


def ref(call: Shortcode, ctx: RuleContext, text: str) -> str:
    target = call.get("path", 0)
    path, _, anchor = target.partition("#")
    key = path.strip().strip("/")
    stem = re.sub(r"\.(md|markdown|mdown|html)$", "", key)
    names = [n for n in (key, stem, stem.rsplit("/", 1)[-1]) if n]
    lang = ctx.doc.meta.get("lang")
    found = next((u for n in [f"{lang}|{n}" for n in names] + names if (u := ctx.urls.find(n))), None)
    if not path:
        found = ctx.doc.meta.get("permalink")
    if found is None:
        ctx.problem(text, call.start, f"{call.source}: no such page in the site, kept as the link /{stem}/")
        found = f"/{stem}/"
    return str(found) + (f"#{anchor}" if anchor else "")


_EMBEDS = {
    "youtube": ("YouTube video", "https://www.youtube.com/watch?v={0}"),
    "vimeo": ("Vimeo video", "https://vimeo.com/{0}"),
    "instagram": ("Instagram post", "https://www.instagram.com/p/{0}/"),
    "bilibili": ("Bilibili video", "https://www.bilibili.com/video/{0}"),
}


def embed(call: Shortcode, ctx: RuleContext, text: str) -> str:
    name = call.name
    if name == "gist":
        user, ident, file = call.get("user", 0), call.get("id", 1), call.get("file", 2)
        url = f"https://gist.github.com/{user}/{ident}" + (f"#file-{file.replace('.', '-')}" if file else "")
        return _block(ctx, call, text, f"[Gist {ident}{' ' + file if file else ''}]({url})")
    if name in ("tweet", "x"):
        user, ident = call.get("user"), call.get("id", 0)
        return _block(ctx, call, text, f"[Tweet {ident}](https://twitter.com/{user or 'i'}/status/{ident})")
    label, pattern = _EMBEDS[name]
    ident = call.get("id", 0)
    title = call.get("title")
    return _block(ctx, call, text, f"[{title or label + ': ' + ident}]({pattern.format(ident)})")


def admonition(call: Shortcode, ctx: RuleContext, text: str) -> str:
    if call.inner is None:  # not a block: a theme's own `{{< cite >}}`, `{{< summary >}}`...
        return ctx.unconverted(text, call.start, call.source, f"the shortcode {call.name!r} of the old site's theme")
    if call.name in _ADMONITION_SHORTCODES:
        name, title = call.get("type", 0) or call.get("class") or "note", call.get("title", 1)
    else:
        name, title = call.name, call.get("title", 0)
    kind = KIND_NAMES.get(name.lower().strip(), "note")
    inner = call.inner or ""
    colons = ":" * max(3, max((len(c) + 1 for c in re.findall(r"^:{3,}", inner, re.M)), default=3))
    head = f"{colons} {kind}" + (f" {' '.join(title.split())}" if title.strip() else "")
    return _wrap(ctx, call, text, head, colons)


_NAMELESS_TAB = re.compile(r"^(:{4,}) tab[ \t]*$", re.M)  # a `tab` shortcode's block without a label


def tabs(call: Shortcode, ctx: RuleContext, text: str) -> str:
    """A theme's `{{< tabs >}}` (Docsy's `tabpane`): its tabs (converted first, inner shortcodes before outer);
    hextra's `items="A,B"` names its nameless tabs, in order."""
    if call.inner is None:
        return ctx.unconverted(text, call.start, call.source, f"a {call.name!r} shortcode with no tabs in it")
    names = iter(n.strip() for n in call.get("items").split(",") if n.strip())
    ctx.rewrite_kept(
        call.inner, lambda kept: _NAMELESS_TAB.sub(lambda m: f"{m[1]} tab {next(names, '')}".rstrip(), kept)
    )
    return ctx.keep("", call.opener) + call.inner + ctx.keep("", call.closer)


def tab(call: Shortcode, ctx: RuleContext, text: str) -> str:
    """`{{< tab "Label" >}}` (`name=`, `header=`, `title=`): a `:::: tab Label` block (tabs.py), more colons than
    any `:::` block inside it."""
    if call.inner is None:
        return ctx.unconverted(text, call.start, call.source, "a tab with no {{< /tab >}}")
    label = call.get("name", 0) or call.get("header") or call.get("title") or call.get("label")
    colons = ":" * max(4, max((len(c) + 1 for c in re.findall(r"^:{3,}", call.inner, re.M)), default=4))
    return _wrap(ctx, call, text, f"{colons} tab {' '.join(label.split())}".rstrip(), colons)


def details(call: Shortcode, ctx: RuleContext, text: str) -> str:
    if call.inner is None:
        return ctx.unconverted(text, call.start, call.source, f"the shortcode {call.name!r} of the old site's theme")
    title = call.get("title", 0) or call.get("summary") or "Details"
    opened = " open" if call.get("open").lower() in ("true", "open") else ""
    return _wrap(ctx, call, text, f"<details{opened}>\n<summary>{escape(title)}</summary>\n", "\n</details>")


def math(call: Shortcode, ctx: RuleContext, text: str) -> str:
    if call.inner is None:
        return ctx.unconverted(text, call.start, call.source, "a math shortcode with no formula")
    tex = call.inner.strip()
    shown = "display" in call.args or call.get("display") == "true" or call.get("block") == "true"
    if shown or (_own_line(text, call.start) == "" and "\n" in call.inner.strip(" \t")):
        return ctx.keep(f"{_own_line(text, call.start)}$$\n{tex}\n$$\n", call.source)
    return ctx.keep(f"${tex}$", call.source)


def param(call: Shortcode, ctx: RuleContext, text: str) -> str:
    value = ctx.doc.source_meta.get(call.get("name", 0))
    if value is None:
        return ctx.unconverted(text, call.start, call.source, "a site parameter")
    return str(value)


def raw_html(call: Shortcode, ctx: RuleContext, text: str) -> str:
    return ctx.keep(call.inner or "", call.source)


def _builtin(name: str) -> Handler | None:
    if name in _ADMONITION_SHORTCODES or name in KIND_NAMES:
        return admonition
    if name in _DETAILS:
        return details
    if name in _MATH:
        return math
    if name in _EMBEDS or name in ("gist", "tweet", "x"):
        return embed
    return {
        "highlight": highlight,
        "figure": figure,
        "tabs": tabs,
        "tabpane": tabs,
        "tab": tab,
        "ref": ref,
        "relref": ref,
        "param": param,
        "rawhtml": raw_html,
        "html": raw_html,
        "raw": raw_html,
        "unsafe": raw_html,
    }.get(name)


def rules(templates: dict[str, str]) -> tuple[Rule, ...]:
    """The Hugo rules: escapes, then every shortcode by the site's own templates (`templates`: name -> text of
    layouts/shortcodes/NAME.html) when they can be expanded, else the built-in handlers, then what is left."""

    def handler_of(name: str) -> Handler | None:
        own = templates.get(name)
        if own is not None and hugo_templates.simple(own):
            return hugo_templates.handler(own)
        return _builtin(name)

    def shortcodes(text: str, ctx: RuleContext) -> str:
        return expand(text, ctx, handler_of)

    return (escapes, shortcodes, leftovers)
