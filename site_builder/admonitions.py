"""Admonitions: `::: note|tip|important|warning|danger|correction [Title]` blocks and GitHub alerts
(`> [!NOTE]`), parsed into `admonition_*` tokens and rendered as `<aside role="note">` with a visible title; a
folded one (`meta["fold"]`: Obsidian's `> [!TIP]- Title`, and callouts.py's forms) as a `<details>` whose
`<summary>` is its title (`open` when it is unfolded: `[!TIP]+`).

A markdown-it plugin: a `:::` container that takes any kind (and Quarto's `{.callout-note}`, callouts.py), a core
rule that names each block's kind (an unknown one is a warning with the closest known kind, shown as a note) and
gives it a title, and the rules' HTML."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.container import container_plugin

from site_builder.callouts import CLOSED, OPEN, div_callout
from site_builder.fences import warn
from site_builder.util.langs import in_language

KINDS = ("note", "tip", "important", "warning", "danger", "correction")
ALIASES = {
    "info": "note",
    "hint": "tip",
    "caution": "danger",
    "error": "danger",
    "attention": "warning",
    "seealso": "note",
}
KNOWN = frozenset([*KINDS, *ALIASES])
OTHER_CONTAINERS = ("gallery", "bilingual", "tab")  # `:::` blocks of their own, matched before this one
TITLES = {
    "en": {
        "note": "Note",
        "tip": "Tip",
        "important": "Important",
        "warning": "Warning",
        "danger": "Danger",
        "correction": "Correction",
        "info": "Info",
        "hint": "Hint",
        "caution": "Caution",
        "error": "Error",
        "attention": "Attention",
        "seealso": "See also",
    },
    "zh": {
        "note": "注意",
        "tip": "提示",
        "important": "重要",
        "warning": "警告",
        "danger": "危险",
        "correction": "更正",
        "info": "信息",
        "hint": "提示",
        "caution": "小心",
        "error": "错误",
        "attention": "注意",
        "seealso": "另请参阅",
    },
    "zh-TW": {  # Traditional: zh-TW, zh-HK, zh-Hant (util/langs.py)
        "note": "注意",
        "tip": "提示",
        "important": "重要",
        "warning": "警告",
        "danger": "危險",
        "correction": "更正",
        "info": "資訊",
        "hint": "提示",
        "caution": "小心",
        "error": "錯誤",
        "attention": "注意",
        "seealso": "另請參閱",
    },
    "ko": {
        "note": "참고",
        "tip": "팁",
        "important": "중요",
        "warning": "경고",
        "danger": "위험",
        "correction": "정정",
        "info": "정보",
        "hint": "힌트",
        "caution": "주의",
        "error": "오류",
        "attention": "주의",
        "seealso": "참고 항목",
    },
}
_NAME = re.compile(
    r"\s*\{?([A-Za-z][\w-]*(?::[\w-]+)*)\}?(?:\s+(.*?))?\s*$"
)  # `note Title`, MyST's `{note}`, `{py:module}`
_MARKS = (":::", ">", "```{", "~~~{", "!!!", "???")  # in the text of a post that may hold an admonition
_ALERT = re.compile(r"\[!([A-Za-z]+)\]([+-]?)(?=\s|$)[ \t]*")  # GitHub's `[!NOTE]`, Obsidian's `[!tip]- Title`


def _is_admonition(params: str, markup: str) -> bool:
    m = _NAME.match(params)
    return (m is not None and m.group(1) not in OTHER_CONTAINERS) or div_callout(params, KNOWN) is not None


def _kind(state: StateCore, tok: Token, name: str) -> str:
    """The kind `name` means; an unknown one is a warning at the block's line, and a note."""
    kind = ALIASES.get(name.lower(), name.lower())
    if kind in KINDS:
        return kind
    known = [*KINDS, *ALIASES, *OTHER_CONTAINERS]
    close = difflib.get_close_matches(name.lower(), known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(KINDS)}"
    warn(state, tok, f"unknown admonition kind {name!r}", "shown as a note", hint)
    return "note"


def _title_tokens(state: StateCore, opener: Token, name: str, title: list[Token]) -> list[Token]:
    """The title paragraph: `title` (inline tokens), or the name of the kind (`caution`: Caution) in the post's
    language; the block's kind, from `name`, on `opener`."""
    name = name.removeprefix("callout-")  # `::: callout-tip`, as Quarto's class names it
    kind = _kind(state, opener, name)
    post = state.env.get("post")
    words = in_language(post.lang, TITLES) if post is not None else TITLES["en"]
    word = words.get(name.lower(), words[kind])
    n = state.env["admonitions"] = state.env.get("admonitions", 0) + 1
    opener.meta.update(kind=kind, id=f"admonition.{n}")  # `.` is in no heading's id (parse.heading_slug drops it)
    start = Token("admonition_title_open", "p", 1)
    # the kind's word is said before a title of its own; a folded one's title is its <summary>
    start.meta.update(id=opener.meta["id"], label=word if title else "", fold=opener.meta.get("fold"))
    if not title:
        title = [Token("text", "", 0)]
        title[0].content = word
    inline = Token("inline", "", 0)
    inline.children = title
    inline.content = "".join(c.content for c in inline.children)
    inline.map = opener.map and [opener.map[0], opener.map[0] + 1]
    return [start, inline, Token("admonition_title_close", "p", -1)]


def _inline(state: StateCore, text: str) -> list[Token]:
    children: list[Token] = []
    if text:
        state.md.inline.parse(text, state.md, state.env, children)
    return children


def _alert(state: StateCore, i: int) -> tuple[str, list[Token], bool] | None:
    """For a blockquote opening at `i` whose first line is `[!KIND] optional title`: KIND, the title's tokens,
    and whether the first paragraph held only that line (it is then dropped); else None. `[!KIND]-` folds it
    (`meta["fold"]` of the blockquote's token), `[!KIND]+` too, open."""
    tokens = state.tokens
    if i + 2 >= len(tokens) or tokens[i + 1].type != "paragraph_open" or tokens[i + 2].type != "inline":
        return None
    inline = tokens[i + 2]
    children = inline.children or []
    m = _ALERT.match(children[0].content) if children and children[0].type == "text" else None
    if m is None:
        return None
    cut = next((n for n, c in enumerate(children) if c.type in ("softbreak", "hardbreak")), len(children))
    title, rest = children[:cut], children[cut + 1 :]
    if m.group(2):
        state.tokens[i].meta["fold"] = CLOSED if m.group(2) == "-" else OPEN
    title[0].content = title[0].content[m.end() :]
    if not title[0].content:
        title = title[1:]
    inline.children = rest
    inline.content = inline.content.partition("\n")[2]
    return m.group(1), title, not rest


def _admonition_rule(state: StateCore) -> None:
    """`:::` admonitions and GitHub alerts as `admonition_open`, its title, the content, `admonition_close`."""
    if not any(mark in state.src for mark in _MARKS):
        return  # no container, no blockquote, no MyST directive, no MkDocs admonition (fast path)
    out: list[Token] = []
    closing: list[bool] = []  # for each open blockquote: whether it is an alert
    opened: list[Token] = []  # the admonitions open: a closing token is told whether its opener is folded
    skip = 0
    for i, tok in enumerate(state.tokens):
        if skip:
            skip -= 1
            continue
        if tok.type == "container_admonition_open":
            m = _NAME.match(tok.info)
            name, title = (m.group(1), m.group(2) or "") if m else ("note", "")
            tok.type, tok.tag = "admonition_open", "aside"
            out += [tok, *_title_tokens(state, tok, name, _inline(state, title))]
            opened.append(tok)
            continue
        if tok.type == "container_admonition_close":
            tok.type, tok.tag = "admonition_close", "aside"
            tok.meta["fold"] = opened.pop().meta.get("fold")
        elif tok.type == "blockquote_open":
            alert = _alert(state, i)
            closing.append(alert is not None)
            if alert is not None:
                name, title, drop_paragraph = alert
                tok.type, tok.tag = "admonition_open", "aside"
                out += [tok, *_title_tokens(state, tok, name, title)]
                opened.append(tok)
                skip = 3 if drop_paragraph else 0
                continue
        elif tok.type == "blockquote_close" and closing.pop():
            tok.type, tok.tag = "admonition_close", "aside"
            tok.meta["fold"] = opened.pop().meta.get("fold")
        out.append(tok)
    state.tokens = out


def _open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    meta = tokens[idx].meta
    kind = f"admonition admonition-{meta['kind']}"
    if meta.get("fold"):  # a <details>: its <summary> names it
        return f'<details class="{kind}"{"" if meta["fold"] == CLOSED else " open"}>\n'
    return f'<aside class="{kind}" role="note" aria-labelledby="{meta["id"]}">\n'


def _title_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    meta = tokens[idx].meta  # a title of its own says the kind too, to those who do not see the icon
    kind = f'<span class="admonition-kind">{escape(meta["label"])}: </span>' if meta["label"] else ""
    return f'<{"summary" if meta.get("fold") else "p"} class="admonition-title" id="{meta["id"]}">{kind}'


def _title_close(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return "</summary>\n" if tokens[idx - 2].meta.get("fold") else "</p>\n"


def _close(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    return "</details>\n" if tokens[idx].meta.get("fold") else "</aside>\n"


def admonitions_plugin(md: MarkdownIt) -> None:
    """`::: kind [Title]` blocks and `> [!KIND]` alerts, and their HTML."""
    container_plugin(md, name="admonition", validate=_is_admonition)
    md.core.ruler.push("admonitions", _admonition_rule)
    for name, rule in (
        ("admonition_open", _open),
        ("admonition_close", _close),
        ("admonition_title_open", _title_open),
        ("admonition_title_close", _title_close),
    ):
        md.add_render_rule(name, rule)
