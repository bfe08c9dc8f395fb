"""Pelican's template syntax in an article, one rule per construct (rules.py): the liquid_tags plugin's tags and
Pelican's own link syntax. liquid_tags reads the whole text (code blocks too: that is why `{% literal %}`
exists), so these rules do as well; only what is left at the end skips code.

- `{% literal tag args %}`: the text `{% tag args %}`, as written.
- `{% img [class] src [width [height]] [title [alt]] %}`: an image (a `[title]` or quoted title is its alt).
- `{% video src [width height] [poster] %}`: an HTML `<video>` (with its poster); `{% youtube id %}`,
  `{% vimeo id %}`: links; `{% gist id [file] %}`: a link.
- `{% include_code path [lang:x] [title] %}`: the file's text (from CODE_DIR) in a fence titled as Pelican titled
  it, with a link to the file, copied.
- `{% notebook path [cells[i:j]] %}`: a notebook post (pelican.py turns the article into one; why there).
- `{filename}path`, `|filename|path`, `{static}`, `{attach}`: the URL of the article or page, or the file's site
  path (`{attach}`: the file is copied next to the post); `{index}` -> `/`; `{tag}`, `{category}`, `{author}` links
  are kept as text with a warning.
- The summary plugin's `<!-- PELICAN_END_SUMMARY -->` -> `<!--more-->` (the BEGIN marker dropped).
- Any other `{% ... %}` outside code: an HTML comment with a warning.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from site_builder.importer.source.rules import Rule, RuleContext, outside_code

_T = r"\{%-?\s*"
_E = r"\s*-?%\}"
NOTEBOOK = re.compile(_T + r"notebook\s+(\S+)(?:\s+cells\[(-?\d*):(-?\d*)\])?[^%]*?" + _E)
NOTEBOOK_MARK = re.compile(r"\x01NOTEBOOK (\S+) (-?\d*):(-?\d*) (\d+)\x01")  # path, cells i:j, source line


def literal(text: str, ctx: RuleContext) -> str:
    return re.sub(_T + r"literal\s+(.*?)" + _E, lambda m: ctx.keep("{% " + m.group(1) + " %}", m.group(0)), text)


def notebook(text: str, ctx: RuleContext) -> str:
    """Each `{% notebook %}` as a marker that pelican.py replaces with the notebook's cells."""

    def one(m: re.Match[str]) -> str:
        mark = f"\x01NOTEBOOK {m.group(1)} {m.group(2) or ''}:{m.group(3) or ''} {ctx.line(text, m.start())}\x01"
        return ctx.keep(f"\n{mark}\n", m.group(0))

    return NOTEBOOK.sub(one, text)


_IMG = re.compile(_T + r"img\s+(.*?)" + _E)
_IMG_ARGS = re.compile(
    r"""^(?:(?P<cls>[\w-]+(?:\s+[\w-]+)*?)\s+)?(?P<src>(?:https?://|/)\S+|\S+\.\w{2,4})(?:\s+(?P<w>\d+%?))?"""
    r"""(?:\s+(?P<h>\d+%?))?\s*(?P<title>.*)$"""
)


def img(text: str, ctx: RuleContext) -> str:
    def one(m: re.Match[str]) -> str:
        a = _IMG_ARGS.match(m.group(1).strip())
        if a is None:
            return ctx.unconverted(text, m.start(), m.group(0))
        quoted = re.findall(r"""["']([^"']*)["']|\[([^\]]*)\]""", a.group("title"))
        titles = [q[0] or q[1] for q in quoted]
        title = titles[0] if titles else a.group("title").strip()
        alt = (titles[1] if len(titles) > 1 else title).replace("[", "\\[").replace("]", "\\]")
        return f"![{alt}](<{a.group('src')}>)"

    return _IMG.sub(one, text)


_VIDEO = re.compile(_T + r"video\s+(\S+)(?:\s+(\d+))?(?:\s+(\d+))?(?:\s+(\S+))?" + _E)
_LINKED = re.compile(_T + r"(youtube|vimeo)\s+(?:https?://\S*?[=/])?([\w-]+)[^%]*?" + _E)
_GIST = re.compile(_T + r"gist\s+([\w./-]+)(?:\s+([\w.-]+))?[^%]*?" + _E)
_SITES = {"youtube": "https://www.youtube.com/watch?v={}", "vimeo": "https://vimeo.com/{}"}


def media(text: str, ctx: RuleContext) -> str:
    def video(m: re.Match[str]) -> str:
        size = "".join(f' {k}="{v}"' for k, v in (("width", m.group(2)), ("height", m.group(3))) if v)
        poster = f' poster="{m.group(4)}"' if m.group(4) else ""
        return ctx.keep(f'\n\n<video src="{m.group(1)}" controls{size}{poster}></video>\n\n', m.group(0))

    def linked(m: re.Match[str]) -> str:
        return f"[{m.group(1).capitalize()} video: {m.group(2)}]({_SITES[m.group(1)].format(m.group(2))})"

    def gist(m: re.Match[str]) -> str:
        ident, file = m.group(1), m.group(2)
        url = f"https://gist.github.com/{ident}" + (f"#file-{file.replace('.', '-')}" if file else "")
        return f"[Gist {ident}{' ' + file if file else ''}]({url})"

    text = _VIDEO.sub(video, text)
    text = _LINKED.sub(linked, text)
    return _GIST.sub(gist, text)


_INCLUDE_CODE = re.compile(_T + r"include_code\s+(\S+)(.*?)" + _E)


def include_code(code_dir: Path, site_path: str) -> Rule:
    """`{% include_code %}` reading files from `code_dir` (published at `site_path`)."""

    def rule(text: str, ctx: RuleContext) -> str:
        def one(m: re.Match[str]) -> str:
            name, rest = m.group(1), m.group(2)
            lang = re.search(r"lang:(\S+)", rest)
            title = re.sub(r"lang:\S+", "", rest).strip().strip("\"'") or posixpath.basename(name)
            try:
                code = (code_dir / name).read_text(encoding="utf-8").rstrip()
            except (OSError, UnicodeDecodeError):
                return ctx.unconverted(text, m.start(), m.group(0), f"{name} is not in {site_path}")
            ticks = "`" * max(3, max((len(t) + 1 for t in re.findall(r"`{3,}", code)), default=3))
            info = (lang.group(1) if lang else "") + (f' {{title="{title}"}}' if '"' not in title else "")
            link = f"[download {posixpath.basename(name)}](</{site_path}/{name}>)"
            return ctx.keep(f"\n\n{link}\n\n{ticks}{info}\n{code}\n{ticks}\n\n", m.group(0))

        return _INCLUDE_CODE.sub(one, text)

    return rule


_LINK = re.compile(
    r"(?:\{(filename|static|attach|index|tag|category|author)\}|\|(filename|static|attach)\|)([^\s)\"'>]*)"
)


def links(text: str, ctx: RuleContext) -> str:
    """Pelican's intra-site links; `ctx.urls` knows each article and page by its path below the content folder."""
    folder = posixpath.dirname(ctx.doc.source_meta.get("_content_rel", ""))

    def one(m: re.Match[str]) -> str:
        kind, path = m.group(1) or m.group(2), m.group(3)
        target, _, anchor = path.partition("#")
        anchor = f"#{anchor}" if anchor else ""
        if kind == "index":
            return "/" + anchor
        if kind in ("tag", "category", "author"):
            ctx.problem(text, m.start(), f"{m.group(0)}: a link to the old site's {kind} page, kept as text")
            return target + anchor
        full = posixpath.normpath(target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target))
        if kind == "attach":
            return posixpath.relpath(full, folder or ".") + anchor
        found = ctx.urls.find(full) if kind == "filename" else None
        return (found or "/" + full) + anchor

    return _LINK.sub(one, text)


def summary_marks(text: str, ctx: RuleContext) -> str:
    text = re.sub(r"<!--\s*PELICAN_BEGIN_SUMMARY\s*-->[ \t]*\n?", "", text)
    return re.sub(r"<!--\s*PELICAN_END_SUMMARY\s*-->", "<!--more-->", text)


_ANY_TAG = re.compile(r"\{%.*?%\}", re.S)
_INDENTED = re.compile(r"(?:^(?:[ ]{4}|\t).*\n?)+", re.M)


def leftovers(text: str, ctx: RuleContext) -> str:
    """Any other `{% tag %}` outside code (fenced or indented: Python-Markdown shows those as written)."""

    def part(chunk: str, start: int) -> str:
        out, pos = [], 0
        for block in _INDENTED.finditer(chunk):
            out.append(_comment(chunk[pos : block.start()], start + pos, text, ctx))
            out.append(block.group(0))
            pos = block.end()
        out.append(_comment(chunk[pos:], start + pos, text, ctx))
        return "".join(out)

    return outside_code(text, part)


def _comment(chunk: str, offset: int, text: str, ctx: RuleContext) -> str:
    return _ANY_TAG.sub(lambda m: ctx.unconverted(text, offset + m.start(), m.group(0), "a liquid_tags tag"), chunk)
