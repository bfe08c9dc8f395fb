"""MyST directives in backtick fences (```` ```{note} ````), as a MyST page means them, for every post.

An admonition directive (`{note}`, `{warning}`, `{tip}`, ..., `{seealso}`, `{admonition} Title`) becomes this site's
admonition (`admonitions`): its body is Markdown, parsed here (code blocks inside it run and are checked as any other),
its `:class:` option may name its kind, and `:class: dropdown` folds it (a `<details>`, as sphinx-togglebutton
shows it); sphinx-design's `{dropdown} Title` is a folded note (`:open:` unfolded, `:color: warning` its kind). A
MyST colon fence (`:::{note}`) is already a `:::` admonition; its option
lines leave its text here. `{image} url` and `{figure} url` (its body the caption) are the Markdown image. A
directive with no meaning in a blog (`{toctree}`, `{automodule}`, `{currentmodule}`, ..., or any other with no body)
is not shown; any other (`{topic}`, `{sidebar}`, `{py:function} f(x)`: text the author wrote) is shown as a note
titled by its arguments, so no words are lost. One warning a post names them, none under
`exec: {conventions: [sybil]}` (Sybil ignores them too). Code
directives (`{code-block}`, `{code-cell}`, `{doctest}`, `{eval-rst}`) stay fences, for the rules that read them.

A core rule that runs before the inline rule: the tokens it makes are then parsed inline as any others."""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from site_builder.admonitions import ALIASES, KINDS
from site_builder.callouts import CLOSED, OPEN
from site_builder.conventions import cell_options, declared
from site_builder.fences import warn
from site_builder.sybil_convention import SYBIL_DIRECTIVES

_DIRECTIVE = re.compile(r"\{([A-Za-z][\w.:+-]*)\}[ \t]*(.*)")  # `{name} arguments`
CODE_DIRECTIVES = frozenset([*SYBIL_DIRECTIVES, "code-cell", "doctest", "eval-rst"])
OWN_OPTIONS = frozenset(["skip", "hide", "linenos"])  # `{skip}` alone: this site's fence option, not a directive
# MyST's admonitions (docutils' and Sphinx's `seealso`): the kind here
MYST_ADMONITIONS = {
    **{name: name for name in ("note", "tip", "important", "warning", "danger")},
    **{name: name for name in ("caution", "attention", "hint", "error")},  # ALIASES name their kinds
    "seealso": "seealso",
    "admonition": "admonition",
    "dropdown": "dropdown",  # sphinx-design's
}
TITLED = ("admonition", "dropdown")  # their arguments are their title, not the start of their body
# sphinx-design's colours that name a kind here (the others: a note)
COLOURS = {"info": "note", "success": "tip", "warning": "warning", "danger": "danger"}
NO_MEANING = "MyST directives with no meaning here"
# Sphinx's structure of a documentation project, never text of a page: left out with what they hold
STRUCTURAL = frozenset(["toctree", "tableofcontents", "contents", "index", "currentmodule", "module", "include"])
IMAGES = frozenset(["image", "figure"])
TABS = frozenset(["tab-set", "tab-item"])  # sphinx-design's: tabs.py's `::: tab Label` blocks


def directive_of(tok: Token) -> tuple[str, str] | None:
    """A fence's MyST directive (name, arguments), or None: a code fence, a code directive, this site's options."""
    m = _DIRECTIVE.fullmatch(tok.info.strip())
    if m is None or m[1] in CODE_DIRECTIVES or m[1] in OWN_OPTIONS:
        return None
    return m[1], m[2].strip()


@dataclass
class Dropped:
    """A directive not shown as one, for the post's one warning: its name, its fence, and whether its text is."""

    name: str
    tok: Token
    as_note: bool = False


def myst_directives(state: StateCore) -> None:
    """The core rule: admonition directives as `:::` admonitions, the others dropped (a warning names them)."""
    if "{" not in state.src or ("```" not in state.src and "~~~" not in state.src and ":::" not in state.src):
        return  # no directive (fast path)
    dropped: list[Dropped] = []
    state.tokens = _expand(state, state.tokens, dropped)
    if dropped and "sybil" not in declared(state):
        names = ", ".join(
            dict.fromkeys(f"{{{d.name}}}" + (" (its text as a note)" if d.as_note else "") for d in dropped)
        )
        hint = "remove them, or set `exec: {conventions: [sybil]}` to leave them out without a word, as Sybil does"
        shown = any(d.as_note for d in dropped)
        warn(state, dropped[0].tok, f"{NO_MEANING}: {names}", "not shown as directives" if shown else "not shown", hint)


def _expand(state: StateCore, tokens: list[Token], dropped: list[Dropped]) -> list[Token]:
    out: list[Token] = []
    depth = 0  # inside a colon fence of a directive that is not shown
    for i, tok in enumerate(tokens):
        if tok.type in ("container_admonition_open", "container_admonition_close") and depth:
            depth += tok.nesting
            continue
        if depth:
            continue
        if tok.type == "container_admonition_open" and tok.info.strip().startswith("{"):
            name = tok.info.strip().split()[0].strip("{}")
            if name not in MYST_ADMONITIONS:  # `:::{toctree}`: left out with all it holds
                dropped.append(Dropped(name, tok))
                depth = 1
                continue
            _colon_fence(tokens, i)
        directive = directive_of(tok) if tok.type == "fence" else None
        if directive is None:
            out.append(tok)
        elif directive[0] in MYST_ADMONITIONS:
            out += _admonition(state, tok, *directive, dropped)
        elif directive[0] in IMAGES and directive[1]:
            out += _image(state, tok, *directive)
        elif directive[0] in TABS:
            out += _tab(state, tok, *directive, dropped)
        elif directive[0] == "mermaid":  # sphinxcontrib-mermaid's, Quarto's: a ```mermaid diagram
            lines = tok.content.splitlines(keepends=True)
            tok.info, tok.content = "mermaid", "".join(lines[cell_options(lines)[1] :])
            out.append(tok)
        else:
            if _has_text(directive[0], tok):  # what the author wrote: shown, a note titled by the arguments
                dropped.append(Dropped(directive[0], tok, as_note=True))
                out += _admonition(state, tok, "admonition", directive[1] or directive[0], dropped)
            else:
                dropped.append(Dropped(directive[0], tok))
    return out


def _has_text(name: str, tok: Token) -> bool:
    """Whether a directive with no meaning here holds text of the author's (not Sphinx's structure, not empty)."""
    lines = tok.content.splitlines(keepends=True)
    return name not in STRUCTURAL and not name.startswith("auto") and cell_options(lines)[1] < len(lines)


def _image(state: StateCore, tok: Token, name: str, url: str) -> list[Token]:
    """`{image} url` / `{figure} url` as the Markdown image `![alt](url)` (`:alt:`); a figure's first paragraph is
    its `<figcaption>` (the image's alt stays its alt), any other (MyST's legend) follows the figure."""
    lines = tok.content.splitlines(keepends=True)
    options, used = cell_options(lines)
    unread = [f":{k}:" for k in options if k != "alt"]
    if unread and "sybil" not in declared(state):  # Sybil ignores the directive: its options say nothing there
        message = f"{{{name}}} options not read here: {', '.join(unread)}"
        warn(state, tok, message, "ignored", "the image is shown at its own size")
    alt = options.get("alt", "").replace("]", "\\]")
    image = _parse_in_place(state, f"![{alt}](<{url}>)\n", tok, deeper=0, below=0)
    caption = "".join(lines[used:]) if name == "figure" else ""
    if not caption.strip():
        return image
    below = _parse_in_place(state, "\n" * used + caption, tok, deeper=0, below=0)
    if not below or below[0].type != "paragraph_open" or len(image) != 3:
        return image + below  # a caption that is not a paragraph (a list, a table) follows the image
    # one <figure>: the image's paragraph opens it, the caption's first paragraph is its <figcaption> and closes it
    image[0].type, image[2].type = "figure_open", "figure_image_close"
    below[0].type, below[2].type = "figure_caption_open", "figure_caption_close"
    return image + below


def _admonition(state: StateCore, tok: Token, name: str, arguments: str, dropped: list[Dropped]) -> list[Token]:
    """A ```` ```{note} ```` fence as the tokens of a `::: note` block, its body parsed as Markdown (a `{note}`'s
    arguments are the start of its body, as MyST reads them; an `{admonition}`'s are its title)."""
    lines = tok.content.splitlines(keepends=True)
    options, used = cell_options(lines)
    title = arguments if name in TITLED else ""
    body = "".join(lines[used:])
    if arguments and not title:
        body = arguments + "\n" + body
        used -= 1  # the body starts on the fence's line
    opener = Token("container_admonition_open", "div", 1)
    opener.info, opener.markup, opener.block = f"{_kind(name, options)} {title}".strip(), tok.markup, True
    opener.map = tok.map
    _fold(opener, name, options)
    inner = _parse_in_place(state, body, tok, deeper=1, below=1 + used)
    closer = Token("container_admonition_close", "div", -1)
    closer.markup, closer.block = tok.markup, True
    return [opener, *_expand(state, inner, dropped), closer]


def _tab(state: StateCore, tok: Token, name: str, label: str, dropped: list[Dropped]) -> list[Token]:
    """sphinx-design's `{tab-set}` as its tabs, each `{tab-item} Label` a `::: tab Label` block (options left out)."""
    lines = tok.content.splitlines(keepends=True)
    used = cell_options(lines)[1]
    inner = _expand(state, _parse_in_place(state, "".join(lines[used:]), tok, deeper=0, below=1 + used), dropped)
    if name == "tab-set":  # a set of its own, even beside other tabs
        items = [t for t in inner if t.type in ("container_tab_open", "container_tab_close") and t.level == tok.level]
        if items:
            items[0].meta["first"], items[-1].meta["last"] = True, True
        return inner
    opener = Token("container_tab_open", "div", 1)
    opener.info, opener.markup, opener.block = f"tab {label}", tok.markup, True
    opener.map, opener.level = tok.map, tok.level
    for t in inner:
        t.level += 1
    closer = Token("container_tab_close", "div", -1)
    closer.markup, closer.block, closer.level = tok.markup, True, tok.level
    return [opener, *inner, closer]


def _parse_in_place(state: StateCore, text: str, tok: Token, deeper: int, below: int) -> list[Token]:
    """`text` parsed as Markdown in the fence `tok`'s place: `deeper` levels below it, its lines `below` lines under
    the fence's first (for the line numbers of warnings and failures)."""
    inner: list[Token] = []
    state.md.block.parse(text, state.md, state.env, inner)
    first = tok.map[0] + below if tok.map else 0
    for t in inner:
        t.level += tok.level + deeper
        if t.map is not None:
            t.map = [t.map[0] + first, t.map[1] + first]
    return inner


def _kind(name: str, options: dict[str, str]) -> str:
    """The kind of admonition: its name's, or the first word of its `:class:` that names one (`{admonition}` with
    `:class: tip`), or a `{dropdown}`'s `:color:`; `seealso`, and `admonition` and `dropdown` without one, are notes
    (`seealso` titled See also)."""
    for word in options.get("class", "").split():
        if word in KINDS or word in ALIASES:
            return word
    if name == "dropdown":
        return COLOURS.get(options.get("color", ""), "note")
    return "note" if name in TITLED else name


def _fold(opener: Token, name: str, options: dict[str, str]) -> None:
    """A `{dropdown}`, or an admonition of `:class: dropdown`, is folded (unfolded with `:open:`)."""
    if name == "dropdown" or "dropdown" in options.get("class", "").split():
        opener.meta["fold"] = OPEN if "open" in options else CLOSED


def _colon_fence(tokens: list[Token], i: int) -> None:
    """A `:::{admonition} Title` colon fence: its `:key: value` option lines out of its first paragraph (its
    `:class:` may name its kind)."""
    name, _, title = tokens[i].info.strip().partition(" ")
    if i + 2 >= len(tokens) or tokens[i + 1].type != "paragraph_open" or tokens[i + 2].type != "inline":
        tokens[i].info = f"{_kind(name.strip('{}'), {})} {title}".strip()
        _fold(tokens[i], name.strip("{}"), {})
        return
    inline = tokens[i + 2]
    options, used = cell_options(inline.content.splitlines(keepends=True))
    if used:
        inline.content = "".join(inline.content.splitlines(keepends=True)[used:])
        tokens[i + 1].hidden = tokens[i + 3].hidden = not inline.content.strip()
    tokens[i].info = f"{_kind(name.strip('{}'), options)} {title}".strip()
    _fold(tokens[i], name.strip("{}"), options)
