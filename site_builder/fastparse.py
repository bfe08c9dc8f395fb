"""Stage 2, parse: markdown-it's rules made cheaper, the same tokens (`speed_up`, called by parse.make_parser).

- Rules offered a line, or an inline character, by its first character. At every block it starts, markdown-it calls
  each block rule in turn until one takes the line, and each line of a paragraph asks the rules that may end it;
  inline, each character that ends a run of text is offered to every inline rule. Most rules look at that first
  character and give up (a heading needs `#`, a fence a backquote or tilde, a link `[`). Here each chain of rules
  becomes one rule that calls, in the same order, only the rules that could take that character; the rules
  themselves are unchanged.
- `normalize` (CR LF and CR as LF, NUL as U+FFFD) skipped for a text that has neither.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.ruler import Ruler
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore, normalize
from markdown_it.rules_inline import StateInline

BlockRule = Callable[[StateBlock, int, int, bool], bool]
InlineRule = Callable[[StateInline, bool], bool]

# A rule named here returns False, before any other effect, for a line (not indented as code) or an inline position
# whose first character is not one of these; every other rule is offered every character. `code` takes only
# indented lines, which go to all the rules. A rule replaced with `ruler.at` keeps its name: check its entry here.
BLOCK_CHARS = {
    "code": "",
    "math_block": "$",  # mathsyntax's rule, then dollarmath's: `$$`
    "math_environment": "\\",  # mathsyntax's: `\begin{equation}`
    "fence": "`~",
    "blockquote": ">",
    "hr": "*-_",
    "list": "*-+0123456789",
    "footnote_def": "[",  # `[^`
    "reference": "[",
    "html_block": "<",
    "heading": "#",
    "admonition": "!?",  # mdit-py-plugins' admon (callouts.py): `!!!`, `???`
}
CONTAINER_CHAR = ":"  # the marker of mdit-py-plugins' containers (`container_<name>` rules), as parse.py uses them
INLINE_CHARS = {
    "newline": "\n",
    "math_inline_braced": "$",
    "math_inline": "$",
    "escape": "\\",
    "math_environment_inline": "\\",  # mathsyntax's: `\begin{equation}`, `\eqref{a}`
    "backticks": "`",
    "myst_role": "{",
    "strikethrough": "~",
    "emphasis": "_*",
    "link": "[",
    "image": "!",
    "footnote_inline": "^",  # (not footnote_ref: it sets up env["footnotes"] before it looks at the character)
    "autolink": "<",
    "html_inline": "<",
    "entity": "&",
}


def speed_up(md: MarkdownIt) -> None:
    """Make `md`'s rules cheaper; last, once its rules are all registered."""
    md.core.ruler.at("normalize", _normalize)
    try:
        first_char_rules(md)
    except (AttributeError, AssertionError, TypeError):  # a markdown-it-py whose rulers are built otherwise: the plain
        pass  # rule chains, as they are (a chain already replaced holds the same rules, in the same order)


def _normalize(state: StateCore) -> None:
    if "\r" in state.src or "\0" in state.src:  # the two regular expressions would change nothing else
        normalize(state)


def first_char_rules(md: MarkdownIt) -> None:
    """Replace each compiled chain of block rules, and the chain of inline rules, by one rule that dispatches on the
    first character. Only the rulers' caches are replaced: enabling, disabling or adding a rule afterwards rebuilds
    the plain chains."""
    _index(md.block.ruler, _block_chars, _dispatch_block)
    _index(md.inline.ruler, INLINE_CHARS.get, _dispatch_inline)


def _index(ruler: Ruler[Any], chars_of: Callable[[str], str | None], dispatch: Callable[..., Any]) -> None:
    """Each chain of `ruler` as one rule made by `dispatch` from: all its rules, those to try for each character
    some rule names, those to try for any other character; `chars_of` names a rule's characters (None: any)."""
    ruler.getRules("")  # compiles the cache
    cache = ruler.__cache__
    assert cache is not None
    for chain in list(cache):
        named = [(r.name, r.fn) for r in ruler.__rules__ if r.enabled and (not chain or chain in r.alt)]
        assert [fn for _, fn in named] == cache[chain], f"rule chain {chain!r} is not as compiled"
        wanted = {name: chars_of(name) for name, _ in named}
        chars = {ch for first in wanted.values() if first for ch in first}
        by_char = {ch: [fn for name, fn in named if wanted[name] is None or ch in (wanted[name] or "")] for ch in chars}
        other = [fn for name, fn in named if wanted[name] is None]
        cache[chain] = [dispatch([fn for _, fn in named], by_char, other)]


def _block_chars(name: str) -> str | None:
    return CONTAINER_CHAR if name.startswith("container_") else BLOCK_CHARS.get(name)


def _dispatch_block(every: list[BlockRule], by_char: dict[str, list[BlockRule]], other: list[BlockRule]) -> BlockRule:
    """One block rule trying, in order, the rules for the line's first character; an indented line (code) or an
    empty one is offered to `every` rule."""

    def rule(state: StateBlock, line: int, end_line: int, silent: bool) -> bool:
        pos = state.bMarks[line] + state.tShift[line]
        if state.sCount[line] - state.blkIndent >= 4 or pos >= state.eMarks[line]:
            rules = every
        else:
            rules = by_char.get(state.src[pos], other)
        for fn in rules:  # noqa: SIM110 (a loop: any() with a generator costs more, and this runs at every line)
            if fn(state, line, end_line, silent):
                return True
        return False

    return rule


def _dispatch_inline(
    every: list[InlineRule], by_char: dict[str, list[InlineRule]], other: list[InlineRule]
) -> InlineRule:
    """One inline rule trying, in order, the rules for the character at the position."""

    def rule(state: StateInline, silent: bool) -> bool:
        pos = state.pos
        for fn in by_char.get(state.src[pos], other) if pos < len(state.src) else every:  # noqa: SIM110
            if fn(state, silent):
                return True
        return False

    return rule
