"""The parse stage's speed-ups (fastparse.py) change no token: block rules dispatched by first character and the
quick `normalize` give the same tokens as markdown-it's plain rules, on thousands of random posts mixing every block
the dialect has (nested, indented, lazy, with tabs)."""

from __future__ import annotations

import random
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import normalize
from markdown_it.token import Token

from site_builder.fastparse import first_char_rules
from site_builder.mathtex import _math_converter, breakable
from site_builder.parse import make_parser

LINES = [
    "# Heading",
    "### Deep heading ###",
    "#not a heading",
    "Setext heading",
    "===",
    "---",
    "***",
    "_ _ _",
    "plain words with *emphasis* and `code`",
    "a lazy continuation line",
    "- item",
    "* star item",
    "+ plus item",
    "1. first",
    "2) second",
    "10. tenth",
    "  - nested item",
    "    indented code",
    "\tindented with a tab",
    " \t- tab after space",
    "> quote",
    "> > nested quote",
    ">",
    "> [!NOTE]",
    "> [!tip] Title",
    "```python",
    "```output",
    "```python {skip}",
    "```{code-cell} python",
    "~~~",
    "```",
    "print(1)",
    "::: note Title",
    "::: tip",
    "::: gallery grid",
    "::: bilingual",
    ":::",
    "::::",
    "$$",
    "x^2 + y^2",
    "$$ a $$",
    "$$a$$ and $$b$$",
    "The cost is $O(n)$ for $n$ items.",
    "| a | b |",
    "|---|:-:|",
    "| 1 | 2 |",
    "[ref]: https://example.com 'Title'",
    "[^1]: A footnote.",
    "See [ref] and [^1].",
    "Term",
    ": Definition",
    "~ Another definition",
    "<div>",
    "</div>",
    "<!-- skip -->",
    "<!-- pytest-codeblocks:cont -->",
    "![alt](a.png)",
    ": a gallery caption",
    "   ## indented heading",
    "     - deep",
    "",
    "",
    "",
    "中文的一行",
    '**中文（English）**的 **엠케(Ada Ehmke)**가 これは*「重要」*です 中_文_字 a**"b"**c',
    "\\# escaped",
    "&#62; entity quote",
    "carriage\rreturn\r\nand NUL\0",
    "a [link](https://example.com 'title') and ![image][ref] and [ref][] and [^1]",
    "<https://example.com> <span class=x>html</span> <!-- c --> &amp; &#35; &copy; & alone",
    "~~struck~~ **strong _nested_** \\* \\` `` code ` span `` ^[an inline footnote *em*]",
    "$F = \\{f : \\text{$f$ is smooth}\\}$ and $$x$$ and $5 or $ x$ and \\$",
    "[a [nested *link*](u) inside](v) ![alt with `code` and [brackets]](i.png)",
    "line ending in two spaces  ",
    "line ending in a backslash\\",
]


def _dump(tokens: list[Token] | None) -> list[Any]:
    return [
        (t.type, t.tag, t.nesting, t.attrs, t.map, t.level, t.content, t.markup, t.info, repr(t.meta), t.hidden,
         _dump(t.children))
        for t in tokens or []
    ]  # fmt: skip


def _plain() -> MarkdownIt:
    """The post parser with markdown-it's own rules and chains (rebuilt when a ruler's cache is dropped)."""
    md = make_parser.__wrapped__()
    md.core.ruler.at("normalize", normalize)
    md.block.ruler.__cache__ = md.inline.ruler.__cache__ = None
    return md


def _random_post(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 25)):
        line = rng.choice(LINES)
        if rng.random() < 0.2:
            line = rng.choice(["", " ", "  ", "   ", "    ", "\t", "> ", "- ", "1. "]) + line
        lines.append(line)
    return "\n".join(lines) + rng.choice(["", "\n"])


def test_random_posts_parse_the_same() -> None:
    fast, plain = make_parser(), _plain()
    assert len(fast.block.ruler.getRules("")) == len(fast.inline.ruler.getRules("")) == 1  # the dispatch is in use
    assert len(plain.block.ruler.getRules("")) > 10
    rng = random.Random(20261125)
    for _ in range(4000):
        text = _random_post(rng)
        env: dict[str, Any] = {}
        plain_env: dict[str, Any] = {}
        assert _dump(fast.parse(text, env)) == _dump(plain.parse(text, plain_env)), text
        assert repr(env) == repr(plain_env), text


def test_dispatch_offers_each_line_the_rules_that_could_take_it() -> None:
    md = _plain()
    first_char_rules(md)
    [dispatch] = md.block.ruler.getRules("")
    assert len(md.block.ruler.getRules("paragraph")) == len(md.inline.ruler.getRules("")) == 1
    md.block.ruler.disable("heading")  # a change to the rules brings back the plain chains, without the one changed
    assert len(md.block.ruler.getRules("")) == len(md.block.ruler.get_active_rules())
    assert dispatch not in md.block.ruler.getRules("")


def test_inline_math_without_an_operator_is_left_whole() -> None:
    """breakable's quick check (no relation, operator or comma: nothing to break) against its full answer."""
    convert = _math_converter().convert_all
    whole = ["x", "O(n^8 \\log n)", "\\frac{a}{b}", "x_{i}^{2}", "\\sqrt{2}", "-x"]
    split = ["n = 3999", "a + b", "f(x, y)", "a \\le b", "x \\to y", "a < b"]
    for tex, mathml in zip(whole + split, convert([(tex, False) for tex in whole + split]), strict=True):
        assert ('class="breaks"' in breakable(mathml)) == (tex in split), tex
        assert (breakable(mathml) == mathml) == (tex in whole), tex
