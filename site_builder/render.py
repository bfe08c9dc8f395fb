"""Stage 4, render: tokens -> HTML fragment (Pygments code, MathML math, figures, galleries)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from html import escape
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from site_builder.codeblocks import FenceHook, exec_fence_hook, fence_html, highlight_code
from site_builder.errors import SiteWarning
from site_builder.excerpt import excerpt_parts
from site_builder.fences import fence_info
from site_builder.images import ImageError, resolves_inside, variant_outputs
from site_builder.mathtex import render_math
from site_builder.models import DIAGRAM, RENDER_VERSION, ImageUse, ParsedPost, Post, Rendered
from site_builder.parse import make_parser, parse_post
from site_builder.rawlinks import raw_links
from site_builder.svgimage import probe_image
from site_builder.toc import toc_entries
from site_builder.util.cjk import cjk
from site_builder.util.files import file_stamp
from site_builder.util.langs import in_language
from site_builder.util.urls import folder_of

# RENDER_VERSION (bump it when this module's output changes) is declared in models.py: light to import
# a word is a run of A-Z a-z 0-9 _ ' ’ -; in UTF-8 (’ made ') every other character is bytes the table makes spaces
_IN_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_'-")
_WORDS_ONLY = bytes(c if c in _IN_WORD else 32 for c in range(256))

__all__ = ["RENDER_VERSION", "FenceHook", "exec_fence_hook", "highlight_code", "render_parsed"]


def _line(env: EnvType, token: Token | None) -> int | None:
    if token is None or not token.map:
        line: int | None = env.get("_line")
        return line
    return int(env.get("line_offset", 1)) + token.map[0]


FOLD_SUMMARY = {"en": "Code", "zh": "代码", "zh-TW": "程式碼", "ko": "코드"}  # a folded block's line


def folded(html: str, env: EnvType, opened: bool = False) -> str:
    """A block's code (its first `<div class="highlight...">`) folded in a `<details>` (`{fold}`; `{fold=open}`: open
    at first), its outputs under it as they were."""
    start = html.find('<div class="highlight')
    end = html.find("</pre></div>\n", start)
    if start < 0 or end < 0:
        return html
    end += len("</pre></div>\n")
    post = env.get("post")
    words = in_language(post.lang if post is not None else "en", FOLD_SUMMARY)
    box = f'<details class="code-fold"{" open" if opened else ""}><summary>{words}</summary>'
    return f"{html[:start]}{box}{html[start:end]}</details>\n{html[end:]}"


class PostRenderer(RendererHTML):
    """markdown-it's HTML renderer with the site's rules for code, math, images and galleries."""

    def _math(self, token: Token, env: EnvType) -> str:
        html: str = env["math"][id(token)]
        return html

    def _math_box(self, token: Token, env: EnvType) -> tuple[str, str]:
        """A display formula and ` tabindex="0"` for its box, where it scrolls (its TeX, when not rendered, wraps)."""
        html = self._math(token, env)
        return html, ' tabindex="0"' if html.startswith("<math") else ""

    def math_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return self._math(tokens[idx], env)

    def math_inline_double(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return '<span class="math display"{1}>{0}</span>'.format(*self._math_box(tokens[idx], env))

    def math_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return '<div class="math"{1}>{0}</div>\n'.format(*self._math_box(tokens[idx], env))

    def math_block_label(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        tok = tokens[idx]
        html, focus = self._math_box(tok, env)
        return (
            f'<div class="math" id="{escape(tok.info)}"{focus}>{html}'
            f'<span class="eqno">({escape(tok.info)})</span></div>\n'
        )

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        tok = tokens[idx]
        lang, opts = fence_info(tok.info)
        if lang == "mermaid":  # a diagram: its source, drawn by Mermaid in the browser (the theme's loader)
            return f'{DIAGRAM} tabindex="0">{escape(tok.content)}</pre>\n'
        hook = env.get("fence_hook")
        replaced: str | None = hook(tok, lang, opts, env) if hook is not None else None
        html = fence_html(tok, lang, opts) if replaced is None else replaced
        return folded(html, env, opts["fold"] == "open") if "fold" in opts else html

    def code_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return highlight_code(tokens[idx].content, "")

    def table_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        """A wide table scrolls in its own box, a shadow at the edge with more (site.css), as code does: tabindex=0
        lets keys scroll it (axe: scrollable-region-focusable)."""
        return '<table tabindex="0">\n'

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        tok = tokens[idx]
        alt = self.renderInlineAsText(tok.children or [], options, env)
        src = str(tok.attrGet("src") or "")
        title = str(tok.attrGet("title") or "")
        title_attr = f' title="{escape(title)}"' if title else ""
        n = env["image_count"] = env.get("image_count", 0) + 1
        loading = "eager" if n <= 2 else "lazy"
        in_gallery = tok.meta.get("in_gallery")
        try:
            local = local_image(src, env, _line(env, tok))
        except BadImage as bad:
            return _missing_image(tok, alt, bad, env)
        if local is None:
            img = f'<img src="{escape(src)}" alt="{escape(alt)}"{title_attr} loading="{loading}" decoding="async">'
            href, data = escape(src), ""
        else:
            url, (width, height) = local.url, local.size
            if not local.use.widths:  # an SVG: the file itself, no variants; its size when it says one
                size = f' width="{width}" height="{height}"' if width and height else ""
                img = f'<img src="{escape(url)}" alt="{escape(alt)}"{title_attr}{size} loading="{loading}" '
                img += 'decoding="async">'
                href, data = escape(url), ""
            else:
                img, href, data = _picture(local, alt, title_attr, loading, bool(in_gallery))
        if not tok.meta.get("figure"):
            return img
        caption = f"<figcaption>{escape(alt)}</figcaption>" if alt else ""
        if in_gallery:
            link = f'<a class="gallery-link" href="{href}"{data}{_photo_label(alt, env)}>{img}</a>'
            return f'<figure class="gallery-item">{link}{caption}</figure>\n'
        return f"<figure>{img}{caption}</figure>\n"

    def container_gallery_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        layout = tokens[idx].meta.get("layout", "masonry")
        return f'<figure class="gallery gallery-{escape(layout)}"><div class="gallery-grid">\n'

    def figure_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return "<figure>"  # a MyST {figure} with a caption (myst_directives._image)

    def figure_image_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return ""

    def figure_caption_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return "<figcaption>"

    def figure_caption_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return "</figcaption></figure>\n"

    def container_gallery_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return "</div>\n" if tokens[idx].meta.get("has_caption") else "</div></figure>\n"

    def container_bilingual_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return '<div class="bilingual">\n'

    def container_bilingual_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return "</div>\n"

    def bilingual_line_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return self.renderToken(tokens, idx, options, env)

    def bilingual_line_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return "</span>"

    def bilingual_br(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return '<br class="bilingual-br">'

    def paragraph_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        if tokens[idx].meta.get("gallery_caption"):
            return '<figcaption class="gallery-caption">'
        if tokens[idx].meta.get("bilingual"):
            return '<p class="bilingual-stanza">'
        return super().renderToken(tokens, idx, options, env)

    def paragraph_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        if tokens[idx].meta.get("gallery_caption"):
            return "</figcaption></figure>\n"
        if tokens[idx].meta.get("bilingual"):
            return "</p>\n"
        return super().renderToken(tokens, idx, options, env)


_PHOTO = {"en": "Photo", "zh": "照片", "zh-TW": "照片", "ko": "사진"}


def _photo_label(alt: str, env: EnvType) -> str:
    """The name of a gallery photo's link when the photo has no alt text: its place in the post ("Photo 2")."""
    n = env["gallery_photo"] = env.get("gallery_photo", 0) + 1
    post: Post | None = env.get("post")
    word = in_language(post.lang, _PHOTO) if post is not None else _PHOTO["en"]
    return "" if alt else f' aria-label="{word} {n}"'


def _picture(local: LocalImage, alt: str, title_attr: str, loading: str, in_gallery: bool) -> tuple[str, str, str]:
    """A raster image as a `<picture>` of its WebP variants, with the original as the `<img>`: (HTML, link, data)."""
    url, use, (width, height) = local.url, local.use, local.size
    srcset = ", ".join(f"/{quote(rel)} {w}w" for rel, w in variant_outputs(use.out, use.widths))
    sizes = "(min-width: 46rem) 22rem, 100vw" if in_gallery else "(min-width: 46rem) 46rem, 100vw"
    img = (
        f'<picture><source type="image/webp" srcset="{escape(srcset)}" sizes="{sizes}">'
        f'<img src="{escape(url)}" alt="{escape(alt)}"{title_attr} width="{width}" height="{height}" '
        f'loading="{loading}" decoding="async"></picture>'
    )
    href, data = escape(url), f' data-srcset="{escape(srcset)}"'
    return img, href, data


@dataclass
class LocalImage:
    """An image of the site's content as a page shows it: its URL, what to publish, its displayed size."""

    url: str
    use: ImageUse
    size: tuple[int, int]


class BadImage(Exception):
    """A local image the page cannot show: the message, and the file (when inside content/: fixing it renders the
    post again)."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.message, self.path = message, path


def _missing_image(tok: Token, alt: str, bad: BadImage, env: EnvType) -> str:
    """An image that cannot be shown: its alt text with a note, and a warning at its line."""
    env.setdefault("warnings", []).append(
        SiteWarning(bad.message, env.get("rel"), _line(env, tok), "shown as its alt text")
    )
    if bad.path is not None:
        env.setdefault("unshown", []).append((bad.path, file_stamp(bad.path)))
    note = (
        f'<span class="image-missing" role="note"><span class="image-missing-alt">{escape(alt) or "(no alt text)"}'
        f'</span><span class="image-missing-reason">not shown: {escape(bad.message)}</span></span>'
    )
    if not tok.meta.get("figure"):
        return note
    return (
        f'<figure class="gallery-item">{note}</figure>\n'
        if tok.meta.get("in_gallery")
        else f"<figure>{note}</figure>\n"
    )


def local_image(src: str, env: EnvType, line: int | None) -> LocalImage | None:
    """For an image in the site's content: its LocalImage; None for remote URLs.

    `photo.jpg` is looked up next to the post and published in the post's folder; `/images/x.jpg` and
    anything else under content/ keep their path below content/. A missing or unreadable file, or one outside
    content/, raises BadImage.
    """
    parts = urlsplit(src)
    post: Post | None = env.get("post")
    if post is None or parts.scheme or parts.netloc or not parts.path or src.startswith(("#", "data:")):
        return None
    content = Path(env["content_dir"])
    rel_path = unquote(parts.path)
    post_dir = post.source.parent
    path = Path(os.path.normpath(content / rel_path.lstrip("/") if rel_path.startswith("/") else post_dir / rel_path))
    inside_post = below_content = None
    if not rel_path.startswith("/") and path.is_relative_to(post_dir):
        inside_post = path.relative_to(post_dir)
    elif path.is_relative_to(content):
        below_content = path.relative_to(content)
    else:
        raise BadImage(f"image {src!r} is outside content/ (put it next to the post or in content/images/)")
    if not resolves_inside(path, content):
        raise BadImage(f"image {src!r} is a link to a file outside content/", path)
    try:
        info = probe_image(path)
    except ImageError as exc:
        where = os.path.relpath(path, content.parent)
        raise BadImage(f"image {src!r}: {exc} ({where})", path) from None
    if inside_post is not None:
        base = folder_of(post.permalink)
        out = base.lstrip("/") + inside_post.as_posix()
    else:
        out = below_content.as_posix() if below_content is not None else path.name
    use = ImageUse(path, info.stamp, out, info.widths, post.rel, line)
    env.setdefault("images", []).append(use)
    return LocalImage("/" + quote(out), use, (info.width, info.height))


def _count_text(tokens: list[Token]) -> tuple[int, int]:
    """CJK characters and other words of a post's text (inline text and code), for its reading time; a code block
    counts a third of its words."""
    texts = [c.content for tok in tokens for c in tok.children or () if c.type in ("text", "code_inline")]
    text = "\n".join(texts)  # one search over the whole text: a newline is in neither pattern, so nothing joins
    chars = 0 if text.isascii() else len(cjk().findall(text))
    words = len(text.replace("’", "'").encode("utf-8", "surrogatepass").translate(_WORDS_ONLY).split())  # 3x a regex
    words += sum(len(tok.content.split()) // 3 for tok in tokens if tok.type in ("fence", "code_block"))
    return chars, words


@cache
def _renderer() -> PostRenderer:
    """One renderer: the site's rules, plus the plugins' rules (footnotes) it does not override."""
    md = make_parser()
    renderer = PostRenderer(md)
    for name, rule in md.renderer.rules.items():  # type: ignore[attr-defined]
        if not hasattr(PostRenderer, name):
            renderer.rules[name] = rule
    return renderer


def render_post(post: Post, fence_hook: FenceHook | None = None, content_dir: Path | None = None) -> Rendered:
    """Parse and render a post's body to an HTML fragment; bad math and images are warnings in `Rendered.warnings`."""
    return render_parsed(parse_post(post, content_dir), fence_hook)


def render_parsed(parsed: ParsedPost, fence_hook: FenceHook | None = None) -> Rendered:
    """Stage 4: a parsed post's tokens to an HTML fragment (`fence_hook` shows executed blocks' results)."""
    tokens, env = parsed.tokens, parsed.env
    if fence_hook is not None:
        env["fence_hook"] = fence_hook
    render_math(tokens, env)
    md = make_parser()
    html = _renderer().render(tokens, md.options, env)
    chars, words = _count_text(tokens)
    toc = toc_entries(tokens, lambda children: _renderer().renderInline(children, md.options, env))
    # made for a post with a summary too: a fragment is keyed by the text alone, and outlives a summary removed
    excerpt_text, excerpt_html = excerpt_parts(html)
    return Rendered(
        html=html,
        text_chars=chars,
        words=words,
        math_count=env.get("math_count", 0),
        toc=toc,
        images=env.get("images", []),
        warnings=parsed.warnings(),
        unshown=env.get("unshown", []),
        raw_links=raw_links(tokens, env),
        excerpt=excerpt_text,
        excerpt_html=excerpt_html,
    )
