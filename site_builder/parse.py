"""Stage 2, parse: Markdown -> markdown-it tokens (syntax rules only, no HTML)."""

from __future__ import annotations

import difflib
import re
from functools import cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.anchors.index import unique_slug
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from site_builder.admonitions import KNOWN, admonitions_plugin
from site_builder.callouts import callouts_plugin
from site_builder.cjk_emphasis import cjk_emphasis_plugin
from site_builder.conventions import declared, read_conventions
from site_builder.crossrefs import crossrefs
from site_builder.fastparse import speed_up
from site_builder.fences import EXEC_LANGS, fence_info, hl_lines, warn
from site_builder.heading_attrs import heading_attributes
from site_builder.mathsyntax import math_syntax_plugin
from site_builder.models import ParsedPost, Post
from site_builder.myst_directives import CODE_DIRECTIVES, myst_directives
from site_builder.myst_roles import myst_roles_plugin
from site_builder.quarto_cells import quarto_cells
from site_builder.tabs import tab_sets, tabs_plugin
from site_builder.templatecode import template_code
from site_builder.traps import other_tools
from site_builder.util.cjk import han_kana

GALLERY_LAYOUTS = ("masonry", "grid", "row")


def heading_slug(text: str) -> str:
    """A heading's id as GitHub, Hugo and kramdown (Jekyll's GFM) make it, so links to a section of a moved post
    keep working: lower-cased, every character but letters, digits, `_`, `-` and spaces dropped, each space a `-`
    (`Worker killed` is `worker-killed`, `pi_0 Flow Model` is `pi_0-flow-model`, `a -- b` is `a----b`)."""
    return re.sub(r"[^\w\- \t]", "", text.lower()).replace(" ", "-").replace("\t", "-") or "section"


def _heading_ids(state: StateCore) -> None:
    """Every heading's id (`heading_slug`), from its text, its code and its formulas' TeX, as kramdown makes it from
    the heading's source (`### $\\pi_0$ Flow Model` is `pi_0-flow-model`; the anchors plugin reads text and code
    alone, `flow-model`): made here, before that plugin, which keeps a heading's id and adds its permalink. An id
    written in the source is kept and no other heading takes it."""
    headings = [i for i, tok in enumerate(state.tokens) if tok.type == "heading_open"]
    taken = {str(state.tokens[i].attrGet("id")) for i in headings if state.tokens[i].attrGet("id")}
    for i in headings:
        if state.tokens[i].attrGet("id"):
            continue
        kids = state.tokens[i + 1].children or []
        title = "".join(k.content for k in kids if k.type in ("text", "code_inline") or k.type.startswith("math"))
        slug = unique_slug(heading_slug(title), taken)
        state.tokens[i].attrSet("id", slug)
        taken.add(slug)


def _gallery_rules(state: StateCore) -> None:
    """Mark images in galleries and lone captioned images as figures; attach gallery captions."""
    if "![" not in state.src and "gallery" not in state.src:  # no image, no gallery: nothing to do (fast path)
        return
    tokens = state.tokens
    depth = 0
    opened: list[tuple[Token, int]] = []  # open galleries and how many images they held when opened
    images_seen = 0
    for i, tok in enumerate(tokens):
        if tok.type == "container_gallery_open":
            depth += 1
            layout = ([*tok.info.split(), "", ""])[1] or "masonry"
            if layout not in GALLERY_LAYOUTS:
                hint = f"use one of: {', '.join(GALLERY_LAYOUTS)}"
                warn(state, tok, f"unknown gallery layout {layout!r}", "shown as masonry", hint)
                layout = "masonry"
            tok.meta["layout"] = layout
            opened.append((tok, images_seen))
        elif tok.type == "container_gallery_close":
            depth -= 1
            start, before = opened.pop()
            if images_seen == before:
                warn(
                    state,
                    start,
                    "gallery has no image (put Markdown images, one per line, between '::: gallery' and ':::')",
                )
            # a paragraph right after the block starting with ": " is the gallery's caption
            if (
                i + 3 < len(tokens)
                and tokens[i + 1].type == "paragraph_open"
                and tokens[i + 2].content.startswith(": ")
            ):
                inline = tokens[i + 2]
                inline.content = inline.content[2:]
                if inline.children and inline.children[0].type == "text":
                    inline.children[0].content = inline.children[0].content[2:].lstrip()
                tok.meta["has_caption"] = True
                tokens[i + 1].meta["gallery_caption"] = True
                tokens[i + 3].meta["gallery_caption"] = True
        elif tok.type == "paragraph_open" and i + 2 < len(tokens) and tokens[i + 1].type == "inline":
            images_seen += _mark_figures(tokens, i, depth > 0)


def _mark_figures(tokens: list[Token], i: int, in_gallery: bool) -> int:
    """The paragraph opening at `i`, if it holds only images (one, or any number in a gallery), as figures: how
    many images it marked."""
    children = tokens[i + 1].children or []
    if "![" not in tokens[i + 1].content:  # fast path: no image
        return 0
    images = [c for c in children if c.type == "image"]
    rest = [
        c
        for c in children
        if c.type not in ("image", "softbreak", "hardbreak") and not (c.type == "text" and not c.content.strip())
    ]
    if not images or rest or not (in_gallery or len(images) == 1):
        return 0
    tokens[i].hidden = tokens[i + 2].hidden = True
    for img in images:
        img.meta["figure"] = True
        img.meta["in_gallery"] = in_gallery
    return len(images)


_LATIN_WORD = re.compile(r"[A-Za-z]+")


def line_lang(text: str) -> str:
    """`zh-Hans` for a line of mostly Chinese characters, else `en` (one CJK character counts as one word)."""
    return "zh-Hans" if len(han_kana().findall(text)) > len(_LATIN_WORD.findall(text)) else "en"


def _bilingual_rules(state: StateCore) -> None:
    """In a `::: bilingual` block, split each paragraph into lines, each with the language it is written in."""
    if "bilingual" not in state.src:  # fast path
        return
    depth = 0
    for i, tok in enumerate(state.tokens):
        if tok.type == "container_bilingual_open":
            depth += 1
        elif tok.type == "container_bilingual_close":
            depth -= 1
        elif depth and tok.type == "paragraph_open":
            tok.meta["bilingual"] = True
            state.tokens[i + 2].meta["bilingual"] = True
            inline = state.tokens[i + 1]
            lines: list[list[Token]] = [[]]
            for child in inline.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    lines.append([])
                else:
                    lines[-1].append(child)
            children: list[Token] = []
            for n, line in enumerate(part for part in lines if part):
                if n:
                    children.append(Token("bilingual_br", "br", 0))
                text = "".join(c.content for c in line if c.type in ("text", "code_inline"))
                opener = Token("bilingual_line_open", "span", 1)
                opener.attrSet("class", "bilingual-line")
                opener.attrSet("lang", line_lang(text))
                children += [opener, *line, Token("bilingual_line_close", "span", -1)]
            inline.children = children


def _inline_lines(state: StateCore) -> None:
    """Give inline math and images the line they are on, so errors can name it."""
    if not any(mark in state.src for mark in ("$", "![", "\\", "{image}", "{figure}")):  # no math, no image (fast path)
        return
    for tok in state.tokens:
        if tok.type == "inline" and tok.map:
            line = tok.map[0]
            for child in tok.children or ():
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type.startswith("math") or child.type == "image":
                    child.map = [line, line + 1]


def _code_before(tokens: list[Token], i: int) -> Token | None:
    """The fence the block at `i` comes right after: the token before it, past the ends of the lists and quotes
    that fence was in (so an ```output after a list whose last item ends with the code still belongs to it)."""
    j = i - 1
    while j >= 0 and tokens[j].nesting == -1:
        j -= 1
    return tokens[j] if j >= 0 and tokens[j].type == "fence" else None


def _pair_outputs(state: StateCore) -> None:
    """Mark a python fence followed directly by an ```output fence (its expected stdout) and that output fence; in an
    `execute: true` post, an ```output fence that follows no python fence is a warning: nothing would check it."""
    if "output" not in state.src:  # no ```output fence (fast path)
        return
    tokens = state.tokens
    executes = getattr(state.env.get("post"), "execute", False)
    for i, tok in enumerate(tokens):
        if tok.type != "fence" or fence_info(tok.info)[0] != "output":
            continue
        code = _code_before(tokens, i)
        code_lang = fence_info(code.info)[0] if code is not None else ""
        if code is not None and code_lang in EXEC_LANGS:
            code.meta["has_output"] = True
            tok.meta["expected_output"] = True
        elif executes:
            warn(state, tok, _unpaired_output(code_lang if code is not None else None))


def _unpaired_output(after: str | None) -> str:
    """Why an ```output fence checks nothing, and what to do: `after` is the language of the fence it follows."""
    if after is None:
        return "this output block follows no python block, so nothing checks it (put it right after the code it shows)"
    if after == "output":
        return "this output block follows another output block, so nothing checks it (a python block has one)"
    return (
        f"this output block follows a {after or 'plain'} block, which does not run, so nothing checks it (put it "
        "right after the python code it shows, or write it as ```text)"
    )


FENCE_OPTIONS = {
    "skip": "shown, not run",
    "hide": "run, not shown (`hide=code`: its outputs shown, not its code; `hide=output`: its code, not its outputs)",
    "raises": "must raise this exception",
    "linenos": "line numbers beside the code",
    "hl_lines": 'lines marked: `hl_lines="2 4-6"`',
    "title": "a name above the code: `title=file.py`",
    "caption": 'a caption under the figures the block draws: `caption="Loss by epoch"`',
    "alt": 'the text of the figures the block draws, for who cannot see them: `alt="A falling curve"`',
    "fold": 'the code folded under a line "Code", opened by a click (`fold=open`: open at first); outputs shown',
}
# options other generators write (Hugo's highlight options, Pandoc classes): accepted quietly, not used
_FOREIGN_FENCE_OPTIONS = frozenset(["linenostart", "anchorlinenos", "lineanchors", "style", "noclasses", "hl_inline"])


# MyST's code directives and `{doctest}`, and `{eval-rst}` (ReST, which Sybil's MyST parsers leave to its ReST ones):
# under a declared `sybil` convention, names of the block (shown as code of its language), not unknown options
_SYBIL_DIRECTIVES = CODE_DIRECTIVES - {"code-cell"}  # a code cell's name leaves its info string in traps


def _check_fence_options(state: StateCore) -> None:
    """A warning at its line for each fence option nobody reads (`{skpi}`): the block would silently run."""
    if "{" not in state.src:  # no options (fast path)
        return
    read = "sybil" in declared(state)  # Sybil's MyST {code-block}, {doctest}
    for tok in state.tokens:
        if tok.type != "fence" or "{" not in tok.info:
            continue
        lang, options = fence_info(tok.info)
        for name in options:
            if name in FENCE_OPTIONS or name.lower() in _FOREIGN_FENCE_OPTIONS or name == lang:
                continue
            if read and name in _SYBIL_DIRECTIVES:
                continue
            close = difflib.get_close_matches(name, list(FENCE_OPTIONS), n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(FENCE_OPTIONS)}"
            warn(state, tok, f"unknown code block option {name!r}", "ignored", hint)
        if options.get("hide", "") not in ("", "code", "output"):
            warn(state, tok, f"hide={options['hide']!r} is none of hide, hide=code, hide=output", "hidden whole")
        if "hl_lines" in options:
            for problem in hl_lines(options["hl_lines"], len(tok.content.splitlines()))[1]:
                warn(state, tok, f"hl_lines: {problem}", "not marked")


def _heading_levels(state: StateCore) -> None:
    """A post whose headings all sit below h2 (`###` first, as some blogs write them) has them moved up to start at
    h2, under the page's h1 title, so that no level is skipped (axe: heading-order) and the table of contents
    takes them; a post with h1 or h2 headings is left as written."""
    levels = [int(t.tag[1]) for t in state.tokens if t.type == "heading_open"]
    shift = min(levels, default=2) - 2
    if shift <= 0:
        return
    for tok in state.tokens:
        if tok.type in ("heading_open", "heading_close"):
            tok.tag = f"h{int(tok.tag[1]) - shift}"


def _task_list_role(state: StateCore) -> None:
    """A list of task items says it is a list (`role="list"`): the theme shows its task items without a bullet, and
    Safari's VoiceOver stops announcing a list whose items show no marker unless it says so."""
    if "[" not in state.src:
        return
    for tok in state.tokens:
        if tok.type in ("bullet_list_open", "ordered_list_open") and tok.attrGet("class") == "contains-task-list":
            tok.attrSet("role", "list")


def _headerless_tables(state: StateCore) -> None:
    """A table whose header cells are all empty (how Markdown writes a table without a header: kramdown and
    imported Jekyll posts do) gets no header row: empty column headers say nothing (axe: empty-table-header)."""
    if "|" not in state.src:
        return
    tokens, kept, i = state.tokens, [], 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "thead_open":
            end = next(j for j in range(i, len(tokens)) if tokens[j].type == "thead_close")
            if all(t.content.strip() == "" for t in tokens[i:end] if t.type == "inline"):
                i = end + 1
                continue
        kept.append(tok)
        i += 1
    state.tokens[:] = kept


@cache
def make_parser() -> MarkdownIt:
    """The Markdown dialect of a post: CommonMark (emphasis by its CJK-friendly amendment) + tables, footnotes, task
    lists, math, anchors, containers."""
    md = MarkdownIt("commonmark", {"html": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(cjk_emphasis_plugin)  # `**中文（English）**的` bold, as kramdown has it
    md.use(footnote_plugin)
    md.use(deflist_plugin)
    md.use(tasklists_plugin, label=True)  # GFM's `- [x] done`: a disabled checkbox, its item's text its label
    md.core.ruler.after("github-tasklists", "task_list_role", _task_list_role)
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    md.use(math_syntax_plugin)
    md.use(myst_roles_plugin)  # `` {math}`x^2` ``
    md.use(
        anchors_plugin,
        min_level=1,
        max_level=6,
        slug_func=heading_slug,
        permalink=True,
        permalinkSymbol="#",
        permalinkBefore=False,
    )
    md.core.ruler.before("anchor", "heading_attributes", heading_attributes)  # `## Method {#sec-method}`
    md.core.ruler.before("anchor", "heading_ids", _heading_ids)
    md.core.ruler.before("anchor", "crossrefs", crossrefs)  # `@sec-method`: a link to its heading
    md.use(container_plugin, name="gallery")
    md.use(container_plugin, name="bilingual")
    md.use(tabs_plugin)  # `::: tab Label`: before admonitions_plugin, which takes any other name
    md.use(callouts_plugin, KNOWN)  # MkDocs' `!!! note`, Quarto's `::: {.callout-note}`: before admonitions_plugin
    md.use(admonitions_plugin)  # after the other `:::` blocks: it takes any other name
    md.core.ruler.after("callouts", "quarto_cells", quarto_cells)  # before MyST's directives: `{python}` is a cell
    md.core.ruler.after("quarto_cells", "myst_directives", myst_directives)  # before inline: its tokens parsed inline
    md.core.ruler.after("myst_directives", "tab_sets", tab_sets)  # after the rules that make tabs of other syntaxes
    md.core.ruler.push("heading_levels", _heading_levels)
    md.core.ruler.push("headerless_tables", _headerless_tables)
    md.core.ruler.push("gallery_figures", _gallery_rules)
    md.core.ruler.push("bilingual_lines", _bilingual_rules)
    md.core.ruler.push("inline_lines", _inline_lines)
    md.core.ruler.push("conventions", read_conventions)  # before other_tools: what a convention reads is no trap
    md.core.ruler.push("other_tools", other_tools)
    md.core.ruler.push("pair_outputs", _pair_outputs)
    md.core.ruler.push("fence_options", _check_fence_options)
    md.core.ruler.push("template_code", template_code)
    speed_up(md)  # last: it indexes the rules registered above
    return md


def parse_post(post: Post, content_dir: Path | None = None, macros: tuple[tuple[str, str], ...] = ()) -> ParsedPost:
    """Stage 2: a post's body as tokens; `content_dir` is where its local images are looked up (default: its folder);
    `macros`, site.yml's `math_macros` (name, TeX), for the render stage."""
    env: dict[str, Any] = {
        "math_macros": macros,
        "rel": post.rel,
        "line_offset": post.body_line,
        "post": post,
        "content_dir": content_dir or post.source.parent,
    }
    tokens, env = parse(post.body, env)
    return ParsedPost(post, tokens, env)


def parse(body: str, env: dict[str, Any] | None = None) -> tuple[list[Token], dict[str, Any]]:
    """Tokens of a post body; `env` collects footnotes and references."""
    env = {} if env is None else env
    return make_parser().parse(body, env), env
