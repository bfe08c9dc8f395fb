"""Liquid (Jekyll's template language) in a post's text, one rule per construct (see rules.py for what a rule is).

Converted: `{% raw %}` (its text kept as written), `{% comment %}` (dropped), `{% highlight lang linenos %}` and
Octopress `{% codeblock %}` (fences), `{% include figure.liquid|figure.html path=... caption=... %}` (an image
alone in its paragraph: a figure with that caption), al-folio `video.liquid`/`audio.liquid` (`<video>`/`<audio>`),
Minimal Mistakes `{% include gallery %}` (a `::: gallery` of the front matter's list), Chirpy
`{% include embed/youtube.html %}`, `{% youtube %}` and `{% gist %}` (links), Octopress `{% img %}` (an image),
`{% post_url %}` and `{% link %}` (the target's URL), `{{ site.url }}`, `{{ site.baseurl }}` and
`{{ '...' | relative_url }}` (site paths: the new site's `url` holds the base path), `{% cite key %}` (kept as
`[key]`, with a problem), jekyll-tabs (each tab a `:::: tab Label` block). What is left (`{% if %}` blocks,
`{% assign %}`, unknown includes, `{{ variables }}`) outside code becomes an HTML comment with a problem.
Liquid inside fenced code that is not in `{% raw %}` is left as written (Jekyll would have run it; shown as code).
"""

from __future__ import annotations

import html
import re
from typing import Any

from site_builder.importer.source.rules import Rule, RuleContext, sub_outside_code

_T = r"\{%-?\s*"  # a tag's start
_E = r"\s*-?%\}"  # a tag's end
_ARG = re.compile(r"""([\w-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"']+)""")


def _args(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip("\"'") for m in _ARG.finditer(text)}


def _variable(args: str, name: str) -> bool:
    """Whether the argument `name` is an unquoted Liquid variable (`path=callout_content`), not a literal."""
    m = re.search(r"(?<![\w-])" + name + r"""\s*=\s*([^\s"'%]+)""", args)
    return m is not None and re.fullmatch(r"[A-Za-z_][\w.]*", m.group(1)) is not None and "." not in m.group(1)


def _site_path(path: str) -> str:
    """al-folio's `path="assets/img/x.png"` (made site-relative by `relative_url`) as a site path."""
    path = re.sub(r"\{\{-?\s*site\.(?:base)?url\s*-?\}\}", "", path.strip())
    return path if path.startswith(("/", "http://", "https://", "//", "data:")) else "/" + path


def _fence(code: str, info: str) -> str:
    ticks = "`" * max(3, max((len(m) + 1 for m in re.findall(r"`{3,}", code)), default=3))
    return f"{ticks}{info}\n{code.strip(chr(10))}\n{ticks}"


_RAW = re.compile(_T + r"raw" + _E + r"(.*?)" + _T + r"endraw" + _E, re.S)
_COMMENT = re.compile(_T + r"comment" + _E + r".*?" + _T + r"endcomment" + _E, re.S)


_HIDDEN = {"{%": "\x01%", "{{": "\x01{"}


def raw(text: str, ctx: RuleContext) -> str:
    """`{% raw %}`: its text as written, hidden from the Liquid rules (`unhide`, last, shows it again) but not from
    the kramdown ones (a `{: file=... }` after a fence inside it still titles the fence)."""

    def hide(m: re.Match[str]) -> str:
        inner = m.group(1)
        for tag, hidden in _HIDDEN.items():
            inner = inner.replace(tag, hidden)
        return inner

    text = _RAW.sub(hide, text)
    return _COMMENT.sub(lambda m: ctx.keep("", m.group(0)), text)


def unhide(text: str, ctx: RuleContext) -> str:
    for tag, hidden in _HIDDEN.items():
        text = text.replace(hidden, tag)
    return text


_HIGHLIGHT = re.compile(
    _T + r"highlight\s+([\w+#.-]+)([^%]*?)" + _E + r"[ \t]*\n?(.*?)\n?[ \t]*" + _T + r"endhighlight" + _E + r"([^\n]*)",
    re.S,
)


def _own_lines(text: str, m: re.Match[str], fence: str, after: str) -> str:
    """`fence` on lines of its own: a line break before it when text precedes it on its line, and what followed
    the end tag on its line moved below it (a fence's closing line holds nothing else)."""
    before = "" if m.start() == 0 or text[m.start() - 1] == "\n" else "\n"
    return before + fence + ("\n" + after.strip() if after.strip() else "")


def highlight(text: str, ctx: RuleContext) -> str:
    def one(m: re.Match[str]) -> str:
        lang, opts, code = m.group(1), m.group(2), m.group(3)
        options = []
        if re.search(r"\blinenos\b", opts):
            options.append("linenos")
        marked = re.search(r"""(?:hl_lines|mark_lines)\s*=\s*["']([^"']*)["']""", opts)
        if marked:
            options.append(f'hl_lines="{marked.group(1)}"')
        info = lang.lower() + (" {" + " ".join(options) + "}" if options else "")
        return _own_lines(text, m, _fence(code, info), m.group(4))

    return _HIGHLIGHT.sub(one, text)


_CODEBLOCK = re.compile(
    _T + r"codeblock\b([^%]*?)" + _E + r"[ \t]*\n?(.*?)\n?[ \t]*" + _T + r"endcodeblock" + _E + r"([^\n]*)", re.S
)


def codeblock(text: str, ctx: RuleContext) -> str:
    """Octopress `{% codeblock [title] [lang:x] [url [link text]] %}`."""

    def one(m: re.Match[str]) -> str:
        words = m.group(1).split()
        lang = next((w.split(":", 1)[1] for w in words if w.startswith("lang:")), "")
        title = " ".join(w for w in words if not w.startswith(("lang:", "http://", "https://", "/")))
        if not lang and "." in title:
            lang = title.rsplit(".", 1)[1] if len(title.rsplit(".", 1)[1]) <= 5 else ""
        info = lang + (f' {{title="{title}"}}' if title and '"' not in title else "")
        return _own_lines(text, m, _fence(m.group(2), info), m.group(3))

    return _CODEBLOCK.sub(one, text)


_INCLUDE = re.compile(
    r"^[ \t]*" + _T + r"include\s+([\w./-]+)(.*?)" + _E + r"[ \t]*$|" + _T + r"include\s+([\w./-]+)(.*?)" + _E,
    re.M | re.S,
)


def _block(ctx: RuleContext, source: str, markdown: str) -> str:
    """`markdown` as a block of its own (blank lines around it, not indented, so it is read as Markdown even inside
    an HTML block), standing for `source`'s lines."""
    return ctx.keep(f"\n\n{markdown}\n\n", source)


def _figure(args: dict[str, str]) -> str:
    src = _site_path(args.get("path") or args.get("src") or "")
    caption = args.get("caption") or args.get("alt") or args.get("title") or ""
    if src.lower().endswith(".svg"):  # the build publishes photos it can read; an SVG is copied as it is (static/)
        text = html.escape(caption)
        return (
            f'<figure><img src="{html.escape(src)}" alt="{text}">'
            + (f"<figcaption>{text}</figcaption>" if text else "")
            + "</figure>"
        )
    caption = caption.replace("[", "\\[").replace("]", "\\]")
    return f"![{caption}](<{src}>)"


def _gallery(args: dict[str, str], meta: dict[str, Any]) -> str | None:
    items = meta.get(args.get("id") or "gallery")
    if not isinstance(items, list):
        return None
    lines = ["::: gallery"]
    for item in items:
        if isinstance(item, dict) and (item.get("image_path") or item.get("url")):
            alt = str(item.get("alt") or item.get("title") or "").replace("]", "\\]")
            lines.append(f"![{alt}](<{_site_path(str(item.get('image_path') or item.get('url')))}>)")
    lines.append(":::")
    if args.get("caption"):
        lines.append(f": {args['caption']}")
    return "\n".join(lines) if len(lines) > 2 else None


def include(text: str, ctx: RuleContext) -> str:
    def one(m: re.Match[str], offset: int) -> str:
        name, rest = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        args = _args(rest)
        base = name.rsplit("/", 1)[-1].split(".")[0]
        if _variable(rest, "path") or _variable(rest, "src"):  # a Liquid variable: its value is not known here
            return ctx.unconverted(text, offset + m.start(), m.group(0).strip(), "its path is a Liquid variable")
        if base == "figure" and (args.get("path") or args.get("src")):
            return _block(ctx, m.group(0), _figure(args))
        if base == "figure" and args.get("caption"):  # a caption under a grid of figures: its text
            return _block(ctx, m.group(0), args["caption"])
        if base == "video" and args.get("id") and args.get("provider"):  # Minimal Mistakes
            return _embed(args["provider"], args["id"]) or ctx.unconverted(text, offset + m.start(), m.group(0))
        if base in ("video", "audio") and (args.get("path") or args.get("src")):
            src = _site_path(args.get("path") or args["src"])
            return _block(ctx, m.group(0), f'<{base} src="{src}" controls></{base}>')
        if base == "gallery":
            gallery = _gallery(args, ctx.doc.source_meta)
            if gallery:
                return _block(ctx, m.group(0), gallery)
        if name.startswith("embed/") and args.get("id"):
            return _embed(base, args["id"]) or ctx.unconverted(text, offset + m.start(), m.group(0).strip())
        return ctx.unconverted(text, offset + m.start(), m.group(0).strip(), "an include of the old theme")

    return sub_outside_code(_INCLUDE, one, text)


_EMBEDS = {
    "youtube": "https://www.youtube.com/watch?v={}",
    "bilibili": "https://www.bilibili.com/video/{}",
    "twitch": "https://www.twitch.tv/videos/{}",
    "vimeo": "https://vimeo.com/{}",
}


def _embed(kind: str, ident: str) -> str | None:
    url = _EMBEDS.get(kind)
    name = {"youtube": "YouTube"}.get(kind, kind.capitalize())
    return f"[{name} video: {ident}]({url.format(ident)})" if url else None


_IMG = re.compile(_T + r"img\s+(.*?)" + _E)
_IMG_ARGS = re.compile(
    r"""^(?P<cls>(?:[\w-]+\s+)*?)(?P<src>(?:https?://|/|\S+\.\w{3,4}\b)\S*)(?:\s+\d+%?)?(?:\s+\d+%?)?\s*(?P<title>.*)$"""
)


def octopress_img(text: str, ctx: RuleContext) -> str:
    """`{% img [class] /path [width [height]] [title [alt]] %}`; title and alt may be quoted: `"t" "a"`."""

    def one(m: re.Match[str], offset: int) -> str:
        a = _IMG_ARGS.match(m.group(1).strip())
        if a is None:
            return ctx.unconverted(text, offset + m.start(), m.group(0))
        quoted = re.findall(r"""["']([^"']*)["']""", a.group("title"))
        title = quoted[0] if quoted else a.group("title").strip()
        alt = quoted[1] if len(quoted) > 1 else title
        return f"![{alt}](<{_site_path(a.group('src'))}>)"

    return sub_outside_code(_IMG, one, text)


_POST_URL = re.compile(_T + r"(post_url|link)\s+([^%]+?)" + _E)


def post_url(text: str, ctx: RuleContext) -> str:
    def one(m: re.Match[str]) -> str:
        target = m.group(2).strip().strip("\"'")
        found = ctx.urls.find(target) or ctx.urls.find(target.rsplit("/", 1)[-1])
        if found is None:
            return ctx.unconverted(text, m.start(), m.group(0), "no such post in the site")
        return found

    return _POST_URL.sub(one, text)


_SITE_VAR = re.compile(r"\{\{-?\s*site\.(?:url|baseurl)\s*-?\}\}")
_FILTERED = re.compile(
    r"""\{\{-?\s*(?:(["'])(?P<lit>[^"']*)\1|site\.(?:url|baseurl))\s*\|\s*(?:relative_url|absolute_url)\s*-?\}\}"""
    r"""|\{\{-?\s*(["'])(?P<lit2>[^"']*)\3\s*\|\s*prepend:\s*site\.(?:base)?url\s*-?\}\}"""
)


def site_urls(text: str, ctx: RuleContext) -> str:
    text = _FILTERED.sub(lambda m: _site_path(m.group("lit") or m.group("lit2") or "/"), text)
    return _SITE_VAR.sub("", text)


_PAGE_VAR = re.compile(r"\{\{-?\s*(site\.active_lang|page\.lang|page\.url|page\.title)\s*-?\}\}")
_STATIC_HREF = re.compile(_T + r"(?:end)?static_href" + _E)


def page_variables(text: str, ctx: RuleContext) -> str:
    """`{{ page.lang }}` and polyglot's `{{ site.active_lang }}` (the post's language), `{{ page.url }}` (its URL),
    `{{ page.title }}`; polyglot's `{% static_href %}` markers are dropped (their link kept)."""
    meta = ctx.doc.meta
    values = {
        "site.active_lang": str(meta.get("lang") or ctx.doc.source_meta.get("lang") or ""),
        "page.lang": str(meta.get("lang") or ctx.doc.source_meta.get("lang") or ""),
        "page.url": str(meta.get("permalink") or ""),
        "page.title": str(meta.get("title") or ""),
    }
    text = _PAGE_VAR.sub(lambda m: values[m.group(1)] if values[m.group(1)] else m.group(0), text)
    return _STATIC_HREF.sub("", text)


_SITE_VALUE = re.compile(r"\{\{-?\s*(site\.[A-Za-z_]\w*)\s*-?\}\}(?=(/|" + _T + r"(?:link|post_url)\b)?)")
_BASE_PATH = re.compile(r"/[\w./-]*")


def site_values(text: str, ctx: RuleContext) -> str:
    """`{{ site.x }}` of a value in the old site's config: the value, as Liquid prints it; a path (`/blog`) right
    before a site path (`/x`, `{% link %}`) is a base path, as `{{ site.baseurl }}` is: left out (the new site's
    paths start at its root)."""

    def one(m: re.Match[str]) -> str:
        value = ctx.values.get(m.group(1))
        if value is None:
            return m.group(0)
        return "" if m.group(2) is not None and _BASE_PATH.fullmatch(value.rstrip("/") or "/") else value

    return _SITE_VALUE.sub(one, text)


_GIST = re.compile(_T + r"gist\s+([\w./-]+)(?:\s+([\w.-]+))?" + _E)
_YOUTUBE = re.compile(_T + r"youtube\s+[\"']?(?:https?://\S*?[=/])?([\w-]{6,})[\"']?[^%]*" + _E)
_VIDEO = re.compile(_T + r"video\s+(https?://\S+|/\S+)[^%]*" + _E)  # Octopress: a video file


def embeds(text: str, ctx: RuleContext) -> str:
    def gist(m: re.Match[str]) -> str:
        ident, file = m.group(1), m.group(2)
        url = f"https://gist.github.com/{ident}" + (f"#file-{file.replace('.', '-')}" if file else "")
        return f"[Gist {ident}{' ' + file if file else ''}]({url})"

    text = _GIST.sub(gist, text)
    text = _VIDEO.sub(lambda m: f'<video src="{html.escape(m.group(1))}" controls></video>', text)
    return _YOUTUBE.sub(lambda m: _embed("youtube", m.group(1)) or "", text)


_CITE = re.compile(_T + r"cite\s+([^%]*?)" + _E)


def cite(text: str, ctx: RuleContext) -> str:
    def one(m: re.Match[str], offset: int) -> str:
        keys = [k for k in m.group(1).split() if not k.startswith("--")]
        keys = [k for i, k in enumerate(keys) if i == 0 or not m.group(1).split()[i - 1 if i else 0].startswith("--")]
        ctx.problem(text, offset + m.start(), f"citation {m.group(0)} kept as the text [{', '.join(keys)}]")
        return "[" + ", ".join(keys) + "]"

    return sub_outside_code(_CITE, one, text)


_TAB = re.compile(r"^[ \t]*" + _T + r"tab\s+\S+\s+(.*?)" + _E + r"[ \t]*$", re.M)
_ENDTAB = re.compile(r"^[ \t]*" + _T + r"endtab" + _E + r"[ \t]*$", re.M)
_TABS = re.compile(r"^[ \t]*" + _T + r"(?:tabs\s+\S+|endtabs)" + _E + r"[ \t]*$", re.M)


def tabs(text: str, ctx: RuleContext) -> str:
    """jekyll-tabs: each `{% tab group Label %}` ... `{% endtab %}` a `:::: tab Label` block (tabs.py: consecutive
    ones are one set; four colons, so that a tab may hold `:::` blocks), `{% tabs group %}`/`{% endtabs %}` gone."""
    text = _TAB.sub(lambda m: f":::: tab {m.group(1).strip()}", text)
    return _TABS.sub("", _ENDTAB.sub("::::", text))


_BLOCK_TAG = re.compile(_T + r"(if|unless|for|case|capture|tablerow)\b.*?" + _T + r"end\1" + _E, re.S)
# a tag, or an output of a variable or a literal (`{{ x }}`, `{{site.x}}`, `{{ "a" }}`); not TeX's `{{\\bf x}}`
_ANY_TAG = re.compile(r"\{%-?\s*\w.*?%\}|\{\{-?\s*(?:[A-Za-z_][\w.-]*|[\"'])[^{}]*?\}\}", re.S)


def leftovers(text: str, ctx: RuleContext) -> str:
    """Any Liquid still in the text outside code: a control block as one comment, then each tag or output."""

    def one(m: re.Match[str], offset: int) -> str:
        return ctx.unconverted(text, offset + m.start(), m.group(0), "Liquid logic of the old site")

    text = sub_outside_code(_BLOCK_TAG, one, text)
    return sub_outside_code(_ANY_TAG, one, text)


RULES: tuple[Rule, ...] = (
    raw,
    highlight,
    codeblock,
    site_urls,
    page_variables,
    site_values,
    post_url,
    include,
    octopress_img,
    embeds,
    cite,
    tabs,
)
