"""A WordPress export's post text as WordPress itself would have shown it, before the HTML import reads it.

A WXR export holds what the editor saved, not the page: shortcodes (`[code]`, `[caption]`, `[gallery]`), Jetpack's
`$latex ...$`, and, for posts of the classic editor, paragraphs written as blank lines that WordPress's `wpautop`
turned into `<p>` when it showed them. Each shortcode is read by a small rule (one per construct, `RULES`) into the
HTML the rest of the import already converts: code into `<pre><code class="language-x">` (its text kept as
written, indentation and `<` included), a caption into a `<figure>`, a gallery into `<div class="gallery">` of the
export's attachments, `[latex]` and `$latex` into `$...$` (a formula alone in its paragraph: `$$...$$`), embeds
into links. A shortcode no rule reads (a plugin's) is kept as an HTML comment, with a warning. Then `wpautop`'s
paragraphs, for text that is not the block editor's (which marks its blocks `<!-- wp:... -->` and has its `<p>`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape, unescape

Warn = Callable[[str], None]


@dataclass
class Media:
    """The export's attachments: each one's file URL and caption by id, and the images attached to each post."""

    urls: dict[str, str] = field(default_factory=dict)  # attachment id -> its file's URL
    captions: dict[str, str] = field(default_factory=dict)  # attachment id -> its caption
    children: dict[str, list[str]] = field(default_factory=dict)  # post id -> its attachments' ids, in order

    def add(self, ident: str, url: str, parent: str, caption: str) -> None:
        self.urls[ident] = url
        if caption.strip():
            self.captions[ident] = caption.strip()
        if parent and parent != "0":
            self.children.setdefault(parent, []).append(ident)


@dataclass
class Call:
    """One shortcode as written: `[name attrs]body[/name]` (body None when it has no closing tag)."""

    name: str
    attrs: dict[str, str]
    positional: list[str]
    body: str | None
    text: str  # the whole call, as written


@dataclass
class Post:
    """What a rule may need of the post: its id (a gallery without ids shows its attached images) and the media."""

    ident: str
    media: Media
    warn: Warn


_ATTR = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s'"\]]+))|"([^"]*)"|'([^']*)'|(\S+)""")
_OPEN = re.compile(r"\[(?!/)([A-Za-z][\w-]*)((?:\s[^\]]*)?)\]")

# SyntaxHighlighter Evolved's and WordPress.com's code shortcodes: `[code lang="x"]`, and one per language
CODE = frozenset(["code", "sourcecode", "source", "sourcecode_block"])
# fmt: off
LANGUAGES = frozenset([
    "python", "py", "php", "js", "javascript", "jscript", "bash", "shell", "sh", "cpp", "c", "csharp", "java", "ruby",
    "rb", "sql", "xml", "html", "css", "text", "plain", "r", "matlab", "go", "golang", "rust", "scala", "perl", "pl",
    "haskell", "hs", "powershell", "ps", "swift", "kotlin", "lua", "objc", "diff", "erlang", "fsharp", "groovy",
    "delphi", "pascal", "vb", "vbnet", "yaml", "json",
])
# fmt: on
EMBEDS = {"embed": "", "youtube": "YouTube video", "vimeo": "Vimeo video", "tweet": "Tweet", "gist": "Gist"}


def _attrs(text: str) -> tuple[dict[str, str], list[str]]:
    attrs: dict[str, str] = {}
    positional: list[str] = []
    for m in _ATTR.finditer(text):
        if m.group(1):
            attrs[m.group(1).lower()] = next(g for g in m.group(2, 3, 4) if g is not None)
        else:
            positional.append(next(g for g in m.group(5, 6, 7) if g is not None))
    return attrs, positional


def _calls(text: str, names: Callable[[str], bool]) -> list[tuple[int, int, Call]]:
    """The shortcodes of `text` whose name `names` accepts, outermost first, as (start, end, call)."""
    found = []
    pos = 0
    while (m := _OPEN.search(text, pos)) is not None:
        name = m.group(1).lower()
        if not names(name) or text[m.start() - 1 : m.start()] == "[":  # `[[code]]`: WordPress's escaped form
            pos = m.end()
            continue
        attrs, positional = _attrs(m.group(2))
        close = re.compile(rf"\[/{re.escape(m.group(1))}\]", re.I).search(text, m.end())
        body = text[m.end() : close.start()] if close else None
        end = close.end() if close else m.end()
        found.append((m.start(), end, Call(name, attrs, positional, body, text[m.start() : end])))
        pos = end
    return found


def _replace(text: str, names: Callable[[str], bool], rule: Callable[[Call, Post], str | None], post: Post) -> str:
    out = []
    last = 0
    for start, end, call in _calls(text, names):
        made = rule(call, post)
        out += [text[last:start], call.text if made is None else made]
        last = end
    return "".join(out) + text[last:]


# --- the rules, one per construct ---------------------------------------------------------------------------------


def code_block(call: Call, post: Post) -> str | None:
    """`[code language="python"]...[/code]`, `[python]...[/python]`: the text as written, in a code block."""
    if call.body is None:
        return None
    lang = call.attrs.get("language") or call.attrs.get("lang") or ("" if call.name in CODE else call.name)
    code = unescape(call.body.strip("\n")).replace("\r\n", "\n")  # the editor may have stored `<` as `&lt;`
    cls = f' class="language-{escape(lang.lower())}"' if re.fullmatch(r"[\w+#.-]+", lang) else ""
    return f"\n\n<pre><code{cls}>{escape(code, quote=False)}</code></pre>\n\n"


def caption(call: Call, post: Post) -> str | None:
    """`[caption id=".." align=".." width=".."]<a><img></a> Its caption[/caption]` (or `caption="..."`): a figure."""
    if call.body is None:
        return None
    m = re.match(r"\s*((?:<a\b[^>]*>\s*)?<img\b[^>]*>(?:\s*</a>)?)(.*)$", call.body, re.S | re.I)
    if m is None:  # no image in it: its text, as the caption it was
        post.warn(f"{_short(call.text)}: a caption with no image; its text kept")
        return f"\n\n<p>{call.body.strip()}</p>\n\n"
    text = m.group(2).strip() or call.attrs.get("caption", "")
    return f"\n\n<figure>{m.group(1)}<figcaption>{text}</figcaption></figure>\n\n"


def gallery(call: Call, post: Post) -> str | None:
    """`[gallery ids="1,2"]` (or without ids: the images attached to the post): a gallery of the export's files."""
    ids = [i.strip() for i in call.attrs.get("ids", call.attrs.get("include", "")).split(",") if i.strip()]
    ids = ids or post.media.children.get(post.ident, [])
    shown = [i for i in ids if i in post.media.urls]
    if not shown:
        post.warn(f"{call.text}: its images are not in the export (no attachment with their ids); left out")
        return ""
    if len(shown) < len(ids):
        post.warn(f"{call.text}: {len(ids) - len(shown)} of its images are not in the export; left out")
    items = "".join(
        f'<figure><img src="{escape(post.media.urls[i])}" alt="{escape(post.media.captions.get(i, ""))}">'
        + (f"<figcaption>{escape(post.media.captions[i])}</figcaption>" if i in post.media.captions else "")
        + "</figure>"
        for i in shown
    )
    return f'\n\n<div class="gallery">{items}</div>\n\n'


def latex(call: Call, post: Post) -> str | None:
    """`[latex]x^2[/latex]` (WP QuickLaTeX, WP LaTeX): a formula."""
    return None if call.body is None else _formula(call.body, display=False)


def embed(call: Call, post: Post) -> str | None:
    """`[embed]URL[/embed]`, `[youtube URL]`, `[vimeo ID]`, `[gist URL]`, `[tweet URL]`: a link to what it showed."""
    url = (call.body or "").strip() or call.attrs.get("url", "") or (call.positional[0] if call.positional else "")
    if not url:
        return None
    if not url.startswith(("http://", "https://")):
        url = {"youtube": "https://www.youtube.com/watch?v=", "vimeo": "https://vimeo.com/"}.get(call.name, "") + url
    if not url.startswith(("http://", "https://")):
        post.warn(f"{_short(call.text)}: not a web address; kept as text")
        return f"\n\n<p>{escape(url)}</p>\n\n"
    label = EMBEDS.get(call.name) or url
    return f'\n\n<p><a href="{escape(url)}">{escape(label)}</a></p>\n\n'


def media(call: Call, post: Post) -> str | None:
    """`[audio src=".."]`, `[video mp4=".."]`: the player the theme had, as an element the import reads."""
    src = next((v for k, v in call.attrs.items() if k in ("src", "mp4", "mp3", "ogg", "webm", "m4a", "wav")), "")
    if not src:
        return None
    return f'\n\n<{call.name} controls src="{escape(src)}"></{call.name}>\n\n'


KEPT = "not converted: "  # a comment of this text is kept by the HTML import (prepare.strip_noise)


def unknown(call: Call, post: Post) -> str:
    """A shortcode no rule reads (a plugin's: a contact form, a table): an HTML comment holding it, and a warning,
    as the Jekyll and Hugo readers keep the template code they do not convert."""
    post.warn(f"WordPress shortcode [{call.name}] has no equivalent here; kept as an HTML comment: {_short(call.text)}")
    safe = re.sub(r"\n\s*\n", "\n", call.text.replace("--", "- -"))
    return f"<!--{KEPT}{safe} -->"


def _plugin(call: Call, post: Post) -> str | None:
    """`[name attr=".."]` or `[name]..[/name]` that no rule reads; not `[1]` or `[sic]`, which are text."""
    return unknown(call, post) if call.body is not None or call.attrs else None


RULES: list[tuple[Callable[[str], bool], Callable[[Call, Post], str | None]]] = [
    (lambda n: n in CODE or n in LANGUAGES, code_block),
    (lambda n: n in ("caption", "wp_caption"), caption),
    (lambda n: n == "gallery", gallery),
    (lambda n: n == "latex", latex),
    (lambda n: n in EMBEDS, embed),
    (lambda n: n in ("audio", "video"), media),
]


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- Jetpack's $latex, and wpautop --------------------------------------------------------------------------------

_DOLLAR_LATEX = re.compile(r"\$latex[ \t]*(.+?)\$", re.S)
_LATEX_PARAMS = re.compile(r"(?:&(?:amp;|#0?38;)?(?:s|bg|fg)=[-\w]*)+\s*$")


def _formula(tex: str, display: bool) -> str:
    tex = unescape(_LATEX_PARAMS.sub("", tex.strip())).strip()  # `&s=2` sizes it, `&bg=ffffff` colours it
    mark = "$$" if display else "$"
    return f"{mark}{escape(tex, quote=False)}{mark}"


def dollar_latex(text: str) -> str:
    """Jetpack's (and WordPress.com's) `$latex e^{i\\pi}$`: a formula; one alone in its paragraph is displayed."""

    def one(m: re.Match[str]) -> str:
        before = text[: m.start()].rsplit("\n\n", 1)[-1]
        after = text[m.end() :].split("\n\n", 1)[0]
        alone = not re.sub(r"</?(?:p|div|center)\b[^>]*>", "", before + after).strip()
        return _formula(m.group(1), display=alone)

    return _DOLLAR_LATEX.sub(one, text)


_BLOCK = (
    r"(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|"
    r"address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|"
    r"figcaption|details|menu|summary|audio|video|iframe|object|embed)"
)
_PROTECT = re.compile(r"<pre\b.*?</pre>|<script\b.*?</script>|<style\b.*?</style>", re.S | re.I)


def wpautop(text: str) -> str:
    """WordPress's `wpautop` (wp-includes/formatting.php), its steps in its order: text between blank lines a `<p>`
    (not around a block element; inside a `<blockquote>`), a single line break in one a `<br />`; `<pre>`,
    `<script>` and `<style>` as they are."""
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        kept.append(m.group(0))
        return f"<pre>\0{len(kept) - 1}\0</pre>"  # a block element: wpautop leaves it alone

    block = _BLOCK
    text = _PROTECT.sub(keep, text.replace("\r\n", "\n").replace("\r", "\n")) + "\n"
    text = re.sub(r"<br\s*/?>\s*<br\s*/?>", "\n\n", text)
    text = re.sub(rf"(<{block}[\s/>])", r"\n\n\1", text, flags=re.I)
    text = re.sub(rf"(</{block}>)", r"\1\n\n", text, flags=re.I)
    text = re.sub(r"\n\n+", "\n\n", text)
    text = "".join(f"<p>{part.strip(chr(10))}</p>\n" for part in re.split(r"\n\s*\n", text) if part.strip())
    steps = [
        (r"<p>\s*</p>", ""),
        (r"<p>([^<]+)</(div|address|form)>", r"<p>\1</p></\2>"),
        (rf"<p>\s*(</?{block}[^>]*>)\s*</p>", r"\1"),
        (r"<p>(<li.+?)</p>", r"\1"),
        (r"<p><blockquote([^>]*)>", r"<blockquote\1><p>"),
        (r"</blockquote></p>", r"</p></blockquote>"),
        (rf"<p>\s*(</?{block}[^>]*>)", r"\1"),
        (rf"(</?{block}[^>]*>)\s*</p>", r"\1"),
        (r"(?<!<br />)\s*\n", "<br />\n"),
        (rf"(</?{block}[^>]*>)\s*<br />", r"\1"),
        (r"<br />(\s*</?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)", r"\1"),
        (r"\n</p>$", "</p>"),
    ]
    for pattern, made in steps:
        text = re.sub(pattern, made, text, flags=re.I)
    return re.sub(r"<pre>\0(\d+)\0</pre>", lambda m: kept[int(m.group(1))], text)


def expand(html: str, ident: str, found: Media, warn: Warn) -> str:
    """The post's text as WordPress showed it: its shortcodes read, `$latex` formulas, and wpautop's paragraphs
    when the classic editor wrote it."""
    post = Post(ident, found, warn)
    blocks = "<!-- wp:" in html
    code: list[str] = []  # the code blocks, out of the way of the other rules (a `[caption]` in code is code)

    def aside(call: Call, post: Post) -> str | None:
        made = code_block(call, post)
        if made is not None:
            code.append(made)
            return f"\n\n\x01{len(code) - 1}\x01\n\n"
        return None

    for names, rule in [(RULES[0][0], aside), *RULES[1:]]:
        html = _replace(html, names, rule, post)
    html = dollar_latex(html)
    html = _BARE_URL.sub(lambda m: f'<a href="{m.group(1)}">{m.group(1)}</a>', html)  # WordPress embedded these
    html = _replace(html, lambda name: name not in KNOWN, _plugin, post)
    html = re.sub(r"\x01(\d+)\x01", lambda m: code[int(m.group(1))], html)
    return html if blocks else wpautop(html)


_BARE_URL = re.compile(r"(?m)^[ \t]*(https?://[^\s<>\"']+)[ \t]*$")  # a URL alone on its line (oEmbed)
KNOWN = frozenset([*CODE, *LANGUAGES, *EMBEDS, "caption", "wp_caption", "gallery", "latex", "audio", "video"])
