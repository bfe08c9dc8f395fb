"""Stage 4, render: tokens -> HTML fragment (Pygments code, MathML math, figures, galleries)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from site_builder.errors import SiteWarning
from site_builder.fastlex import speed_up
from site_builder.fences import block_is_doctest, fence_info
from site_builder.images import ImageError, clean_svg, probe, resolves_inside, variant_outputs
from site_builder.mathtex import render_math
from site_builder.models import ImageUse, ParsedPost, Post, Rendered
from site_builder.parse import make_parser, parse_post
from site_builder.util.cjk import cjk
from site_builder.util.files import file_stamp

if TYPE_CHECKING:
    from site_builder.execute.results import BlockResult, PostRun

RENDER_VERSION = "16"  # bump when output of this module changes, to drop cached fragments
_FORMATTER = HtmlFormatter(nowrap=True)
_WORD = re.compile(r"[A-Za-z0-9_'’-]+")
_LANG_ALIASES = {"output": "text", "plaintext": "text", "console": "console", "": "text"}


@lru_cache(maxsize=256)
def _lexer(lang: str) -> Any:
    name = _LANG_ALIASES.get(lang.lower(), lang.lower())
    try:
        return speed_up(get_lexer_by_name(name, stripnl=False, ensurenl=False))
    except ClassNotFound:
        return None


def highlight_code(code: str, lang: str) -> str:
    """Pygments-highlighted code inside `<pre><code>`; unknown languages are escaped text."""
    lexer = _lexer(lang)
    body = highlight(code, lexer, _FORMATTER) if lexer else escape(code)
    if lexer and not code.endswith("\n") and body.endswith("\n"):
        body = body[:-1]
    cls = f' class="language-{escape(lang)}"' if lang else ""
    return f'<div class="highlight"><pre tabindex="0"><code{cls}>{body}</code></pre></div>\n'


def _line(env: EnvType, token: Token | None) -> int | None:
    if token is None or not token.map:
        line: int | None = env.get("_line")
        return line
    return int(env.get("line_offset", 1)) + token.map[0]


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
        hook = env.get("fence_hook")
        if hook is not None:
            replaced: str | None = hook(tok, lang, opts, env)
            if replaced is not None:
                return replaced
        return highlight_code(tok.content, lang)

    def code_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return highlight_code(tokens[idx].content, "")

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
            url, use, (width, height) = local.url, local.use, local.size
            srcset = ", ".join(f"/{quote(rel)} {w}w" for rel, w in variant_outputs(use.out, use.widths))
            sizes = "(min-width: 46rem) 22rem, 100vw" if in_gallery else "(min-width: 46rem) 46rem, 100vw"
            img = (
                f'<picture><source type="image/webp" srcset="{escape(srcset)}" sizes="{sizes}">'
                f'<img src="{escape(url)}" alt="{escape(alt)}"{title_attr} width="{width}" height="{height}" '
                f'loading="{loading}" decoding="async"></picture>'
            )
            href, data = escape(url), f' data-srcset="{escape(srcset)}"'
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


def _photo_label(alt: str, env: EnvType) -> str:
    """The name of a gallery photo's link when the photo has no alt text: its place in the post ("Photo 2")."""
    n = env["gallery_photo"] = env.get("gallery_photo", 0) + 1
    post: Post | None = env.get("post")
    word = "照片" if post is not None and post.lang.startswith("zh") else "Photo"
    return "" if alt else f' aria-label="{word} {n}"'


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
        SiteWarning(f"{bad.message}, shown as its alt text", env.get("rel"), _line(env, tok))
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
        raise BadImage(f"image {src!r} is a link to a file outside content/, not published", path)
    try:
        info = probe(path)
    except ImageError as exc:
        where = os.path.relpath(path, content.parent)
        raise BadImage(f"image {src!r}: {exc} ({where})", path) from None
    if inside_post is not None:
        base = post.permalink if post.permalink.endswith("/") else post.permalink.rsplit("/", 1)[0] + "/"
        out = base.lstrip("/") + inside_post.as_posix()
    else:
        out = below_content.as_posix() if below_content is not None else path.name
    use = ImageUse(path, info.stamp, out, info.widths, post.rel, line)
    env.setdefault("images", []).append(use)
    return LocalImage("/" + quote(out), use, (info.width, info.height))


FenceHook = Callable[[Token, str, dict[str, str], EnvType], "str | None"]  # a fence's HTML instead, or None


def exec_fence_hook(run: PostRun, keep_going: bool = False) -> FenceHook:
    """A fence hook that shows what each block of an executed post printed, drew, raised, ended with (its value)
    or failed with."""
    from site_builder.outputs import value_html  # nh3: only for posts that execute

    by_line = {b.line: b for b in run.blocks}
    post_error = run.error
    state: dict[str, BlockResult | None] = {"last": None}
    after_output = [""]  # the value of a block whose ```output block shows its stdout: under that, as in a notebook

    def hook(tok: Token, lang: str, opts: dict[str, str], env: EnvType) -> str | None:
        line = int(env.get("line_offset", 1)) + (tok.map[0] if tok.map else 0) + 1
        if lang == "output":  # an expected output, verified against what the block printed
            block = state["last"] if tok.meta.get("expected_output") else None  # else nothing checked it
            state["last"], value, after_output[0] = None, after_output[0], ""
            return None if block is None else _expected_output(block, tok.content) + value
        block = by_line.get(line)
        state["last"] = block
        if block is None:
            return None
        doctest = block_is_doctest(tok, lang)
        parts = [] if "hide" in opts else [highlight_code(tok.content, "pycon" if doctest else lang)]
        if parts and doctest and block.status == "passed":  # every >>> example's output was checked
            parts[0] = parts[0].replace(
                '<div class="highlight">', '<div class="highlight checked" title="checked at build time">', 1
            )
        if "hide" not in opts:
            parts += _printed(block, shows_stdout=not tok.meta.get("has_output"))
            if tok.meta.get("has_output"):
                after_output[0] = value_html(block.value)
            else:
                parts.append(value_html(block.value))
            for svg in block.figures:
                parts.append(f'<figure class="exec-figure">{clean_svg(svg)}</figure>\n')
        error = block.error if block.status == "failed" else None
        if error is None and post_error is not None and post_error.get("line") == block.line:
            error = post_error
        if error is not None and keep_going:
            detail = escape(error.get("traceback") or "")
            parts.append(
                f'<div class="exec-error"><strong>{escape(error["type"])}</strong> at line {error["line"]}: '
                f"{escape(error['message'])}" + (f"<pre>{detail}</pre>" if detail else "") + "</div>\n"
            )
        return "".join(parts)

    return hook


def _expected_output(block: BlockResult, content: str) -> str:
    """An ```output block, marked verified or not."""
    ok = block.status == "passed"
    badge = (
        '<span class="output-badge ok" title="checked at build time">✓ verified</span>'
        if ok
        else '<span class="output-badge bad">✗ not verified</span>'
    )
    return (
        f'<div class="output{" verified" if ok else " mismatch"}">{badge}'
        f"<pre><code>{escape(content)}</code></pre></div>\n"
    )


def _printed(block: BlockResult, shows_stdout: bool) -> list[str]:
    """What a block printed (its stdout unless an ```output block shows it) and the exception it had to raise."""
    parts = []
    if block.stdout and shows_stdout:
        parts.append(f'<div class="output"><pre><code>{escape(block.stdout)}</code></pre></div>\n')
    if block.stderr.strip():
        parts.append(f'<div class="output stderr"><pre><code>{escape(block.stderr)}</code></pre></div>\n')
    if block.raised:
        parts.append(f'<div class="output raised"><pre><code>{escape(block.raised)}</code></pre></div>\n')
    return parts


def _count_text(tokens: list[Token]) -> tuple[int, int]:
    chars = words = 0
    pattern = cjk()
    for tok in tokens:
        for child in tok.children or ():
            if child.type in ("text", "code_inline"):
                chars += len(pattern.findall(child.content))
                words += len(_WORD.findall(child.content))
        if tok.type in ("fence", "code_block"):
            words += len(tok.content.split()) // 3
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
    """Parse and render a post's body to an HTML fragment; bad math, markup or images raise SiteError."""
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
    toc = [
        (t.attrGet("id"), tokens[i + 1].content, int(t.tag[1]))
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.tag in ("h2", "h3")
    ]
    return Rendered(
        html=html,
        text_chars=chars,
        words=words,
        math_count=env.get("math_count", 0),
        toc=toc,
        images=env.get("images", []),
        warnings=env.get("warnings", []),
        unshown=env.get("unshown", []),
    )
