"""The faster lexing engine gives exactly Pygments' tokens, for every regex lexer Pygments ships."""

from __future__ import annotations

import inspect
import json
import textwrap
from pathlib import Path

import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_all_lexers, get_lexer_by_name
from test_highlight_speed_identity import SAMPLE as HIGHLIGHT_SAMPLE

from site_builder import fastlex
from site_builder.codeblocks import highlight_code

ROOT = Path(__file__).resolve().parents[1]

# Real text of many kinds: posts (Markdown, code, math), CSS, JavaScript, HTML templates, a Makefile, Python,
# YAML, and a line of characters that trip lexers up (control bytes, CJK, unbalanced quotes and comments).
SAMPLES = [
    *(p.read_text(encoding="utf-8")[:800] for p in sorted((ROOT / "content" / "posts").glob("*.md"))[:3]),
    (ROOT / "site_builder/themes/default/static/css/site.css").read_text()[:800],
    (ROOT / "site_builder/themes/default/static/js/gallery.js").read_text()[:800],
    (ROOT / "site_builder/themes/default/templates/base.html").read_text()[:800],
    (ROOT / "Makefile").read_text()[:800],
    (ROOT / "site_builder/fastlex.py").read_text()[:800],
    (ROOT / "site.yml").read_text()[:800],
    "\x00\t odd \r\n text é 中文 \\ ' \" ` $ # // /* */ <!-- --> {{ }} @ %%\n\n\n",
    HIGHLIGHT_SAMPLE,  # names beyond ASCII, shell and template syntax
    HIGHLIGHT_SAMPLE.replace("é", "𝑥🎉").replace("中", "𐐀"),  # characters beyond U+FFFF
]

# Pygments' own Smithy lexer backtracks for minutes on Markdown (with or without the engine): left out.
CATASTROPHIC = {"smithy"}


def _sped_up_lexers():
    for _name, aliases, _files, _mimes in get_all_lexers():
        if aliases and aliases[0] not in CATASTROPHIC:
            lexer = fastlex.speed_up(get_lexer_by_name(aliases[0], stripnl=False, ensurenl=False))
            if "get_tokens_unprocessed" in vars(lexer):
                yield aliases[0]


def test_every_regex_lexer_gives_pygments_tokens():
    """Hundreds of lexers on every sample: a rule the engine wrongly skipped would change some token."""
    names = list(_sped_up_lexers())
    assert len(names) > 300, names  # plain RegexLexers: most of Pygments
    differ = []
    for name in names:
        plain = get_lexer_by_name(name, stripnl=False, ensurenl=False)
        fast = fastlex.speed_up(get_lexer_by_name(name, stripnl=False, ensurenl=False))
        for sample in SAMPLES:
            if list(plain.get_tokens(sample)) != list(fast.get_tokens(sample)):
                differ.append(f"{name}: {sample[:40]!r}")
                break
    assert not differ, differ


@pytest.mark.parametrize("module", [json, inspect, textwrap, fastlex])
def test_python_source_tokens_are_pygments_tokens(module):
    """Whole real modules (strings, f-strings, decorators, comments, unicode names) through the Python lexer."""
    source = inspect.getsource(module)
    plain = get_lexer_by_name("python", stripnl=False, ensurenl=False)
    fast = fastlex.speed_up(get_lexer_by_name("python", stripnl=False, ensurenl=False))
    assert list(fast.get_tokens(source)) == list(plain.get_tokens(source))


def test_site_highlighting_uses_it_and_matches_pygments():
    """What a page shows for a Python block is Pygments' own HTML, and the site's lexer is the faster one."""
    code = 'def f(x: int) -> str:\n    """Doc."""\n    return f"{x!r:>4}"  # note\n'
    html = highlight_code(code, "python")
    expected = highlight(code, get_lexer_by_name("python", stripnl=False, ensurenl=False), HtmlFormatter(nowrap=True))
    assert expected.rstrip("\n") in html
    assert '<span class="k">def</span>' in html
    from site_builder.codeblocks import _lexer

    assert "get_tokens_unprocessed" in vars(_lexer("python"))


def test_lexers_that_are_not_plain_regex_lexers_are_left_alone():
    """Lexers with their own tokenising (YAML's context lexer, console sessions) keep Pygments' code."""
    for name in ("yaml", "pycon", "console"):
        lexer = get_lexer_by_name(name)
        assert fastlex.speed_up(lexer) is lexer
        assert "get_tokens_unprocessed" not in vars(lexer)
