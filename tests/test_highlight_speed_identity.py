"""The fast way `highlight_code` colours code (fastlex's lexers, read straight into fasthtml's one-pass formatter)
writes, byte for byte, what plain Pygments writes: `highlight(code, lexer, HtmlFormatter(nowrap=True))` with Pygments'
own lexer. Checked on every code block of the 4,000-post bench corpus, of the bundled site's posts and of a notebook,
on snippets in many languages with the awkward cases (tabs, CRLF, no final newline, blank and whitespace-only lines,
`<>&"'`, names beyond ASCII, emoji), and on every lexer Pygments has."""

from __future__ import annotations

import random
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_all_lexers, get_lexer_by_name
from test_golden import bench_module

from site_builder import codeblocks
from site_builder.config.site import load_config
from site_builder.fasthtml import SpanFormatter, lexer_tokens, matches_pygments
from site_builder.fences import EXEC_LANGS, block_is_doctest, fence_info
from site_builder.load import find_post_files, load_post
from site_builder.parse import make_parser

ROOT = Path(__file__).resolve().parents[1]
CATASTROPHIC = {"smithy"}  # Pygments' Smithy lexer backtracks for minutes on some text (as in test_fastlex)


def plain(code: str, lang: str) -> str:
    """The reference: Pygments' own lexer (not sped up) and formatter, as highlight_code once called them."""
    name = codeblocks._LANG_ALIASES.get(lang.lower(), lang.lower())
    return highlight(code, get_lexer_by_name(name, stripnl=False, ensurenl=False), HtmlFormatter(nowrap=True))


def fast(code: str, lang: str) -> str:
    return codeblocks._highlighted(code, codeblocks._lexer(lang))


def differences(blocks: list[tuple[str, str]]) -> list[str]:
    """The blocks (language, code) whose fast HTML is not Pygments' (at most 5 shown)."""
    wrong = [f"{lang}: {code[:60]!r}" for lang, code in blocks if fast(code, lang) != plain(code, lang)]
    return wrong[:5] + ([f"... {len(wrong)} in all"] if len(wrong) > 5 else [])


def fenced(bodies: list[str]) -> list[tuple[str, str]]:
    """The code blocks of Markdown bodies as the renderer highlights them (language, code)."""
    md = make_parser()
    blocks = []
    for body in bodies:
        for tok in md.parse(body, {}):
            if tok.type == "fence":
                lang = fence_info(tok.info)[0]
                doctest = lang in EXEC_LANGS and block_is_doctest(tok, lang)
                blocks.append(("pycon" if doctest else lang, tok.content))
            elif tok.type == "code_block":
                blocks.append(("", tok.content))
    return blocks


def test_the_fast_path_is_the_one_taken():
    assert codeblocks._span_formatter() is not None
    assert "get_tokens_unprocessed" in vars(codeblocks._lexer("python"))


def test_every_block_of_the_bench_corpus():
    """The first 1,000 posts of bench/build.py's 4,000-post corpus, made again (the same seed as make_site; all
    4,000 were compared once, with no difference: these keep make test's time down)."""
    bench = bench_module()
    rng = random.Random(4000)
    blocks = fenced([bench.post_text(i, rng) for i in range(1000)])
    assert len(blocks) == 1000
    assert not differences(blocks)


def test_every_block_of_the_bundled_site_and_of_a_notebook(tmp_path):
    cfg = load_config(ROOT)
    bodies = [load_post(path, cfg).body for path in find_post_files(cfg)]
    posts = tmp_path / "content" / "posts"
    posts.mkdir(parents=True)
    nb = new_notebook(
        cells=[
            new_raw_cell("---\ntitle: A notebook\ndate: 2024-01-02\n---"),
            new_markdown_cell("Some `code`:\n\n```bash\necho \"<a & b>\" | tr 'a' 'b'\n```"),
            new_code_cell("import math\n\nprint(math.pi < 4)  # é 🎉\n"),
            new_code_cell("x = {'a': 1}\r\nx"),
        ],
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
    )
    nbformat.write(nb, str(posts / "nb.ipynb"))
    nb_cfg = load_config(tmp_path)
    bodies += [load_post(path, nb_cfg).body for path in find_post_files(nb_cfg)]
    blocks = fenced(bodies)
    assert len(blocks) > 50 and {"python", "pycon", "bash", "output"} <= {lang for lang, _ in blocks}
    assert not differences(blocks)


SNIPPETS = {
    "python": 'def f(x: int) -> str:\n\t"""Doc <b>&amp;</b>."""\n    return f"{x!r:>4}" if x < 3 else \'b\'  # 中\n'
    "café = 名前 + ŷ_ω  # names beyond ASCII\n",
    "pycon": ">>> 1 < 2 and \"a\" & {'b'}\nTrue\n>>> for i in range(2):\n...     print(i)\n0\n1\nTraceback (most recent call last):\nValueError: <x>\n",
    "bash": "for f in *.md; do\n  echo \"$f\" > /dev/null 2>&1 && ls -l | grep '<'\ndone\n# done\n",
    "console": "$ ls -la\ntotal 0\n$ echo 'a & b' > x.txt\n# whoami\nroot\n",
    "json": '{"a": [1, 2.5e3, true, null], "b": "<tag> & \\"q\\"", "c": {}}\n',
    "yaml": "key: value\nlist:\n  - 'a & b'\n  - \"<c>\"\n# comment\nempty:\nmulti: |\n  line one\n\n  line three\n",
    "c": '#include <stdio.h>\nint main(void) {\n\tprintf("%d & %s\\n", 1 << 2, "x");\n\treturn 0; /* end */\n}\n',
    "rust": 'fn main() {\n    let v: Vec<&str> = vec!["a", "b"];\n    println!("{:?} {}", v, 1 >> 0);\n}\n',
    "js": "const f = (a, b) => a < b && b > 0 ? `${a}&${b}` : '\"';\n// note\nclass A { #p = 1; }\n",
    "html": "<!DOCTYPE html>\n<p class=\"a\" data-x='y'>&amp; &lt;b&gt; <!-- c --></p>\n<script>if (a < b) {}</script>\n",
    "text": "\tcol1\tcol2\n  \n<>&\"'\n\n",
    "": "indented code\n\twith a tab & <b>\n",
    "output": "42\n<None>\n",
    "nosuchlanguage": "plain <text> & more\n",
}


def variants(code: str) -> list[str]:
    """The code, and the same with each awkward ending and line break."""
    body = code.rstrip("\n")
    return [
        code,
        body,  # no final newline
        code.replace("\n", "\r\n"),  # CRLF
        body + "\n\n\n",  # blank lines at the end
        "   \n \t \n" + code + "  \n\t\n",  # lines with only whitespace
        code.replace("a", "🎉a𝔘", 2),  # characters beyond U+FFFF
        "\ufeff" + code,  # a byte-order mark, which Pygments drops
        "\n",
        " ",
        "",
    ]


@pytest.mark.parametrize("lang", sorted(SNIPPETS))
def test_snippets_in_many_languages_and_their_awkward_variants(lang):
    blocks = [(lang, code) for code in variants(SNIPPETS[lang])]
    if codeblocks._lexer(lang) is None:  # an unknown language: escaped text, the same as before
        assert codeblocks.highlight_code(SNIPPETS[lang], lang).count("&lt;text&gt; &amp;") == 1
        return
    assert not differences(blocks)


def test_highlight_code_pages_keep_their_bytes():
    """The whole HTML of a block, with its options, around the formatter's output (which the tests above check)."""
    code = 'x = "<a>"\n\ny = 1'
    html = codeblocks.highlight_code(code, "python", {"linenos": "true", "hl_lines": "2", "title": "t.py"})
    assert html == (
        '<div class="highlight"><div class="code-bar"><span class="code-title">t.py</span></div>'
        '<pre tabindex="0"><code class="language-python lines linenos">'
        '<span class="line"><span class="n">x</span> <span class="o">=</span> '
        '<span class="s2">&quot;&lt;a&gt;&quot;</span>\n</span>'
        '<span class="line hl">\n</span>'
        '<span class="line"><span class="n">y</span> <span class="o">=</span> <span class="mi">1</span></span>'
        "</code></pre></div>\n"
    ).replace("&quot;", '"')


SAMPLE = (
    "x = 1 # é 中文 <b> & 'q' \"d\"\n\tif (a < b) { return `c`; } /* d */\n"
    "\n  \n$ echo --flag=3.5e-2 @name {{ v }} <!-- c --> %% ;; \\\\\n\x00 ok\ncafé = 名前(ŷ_ω) + Ωmega\n"
)


def _lexer_names():
    for _name, aliases, _files, _mimes in get_all_lexers():
        if aliases and aliases[0] not in CATASTROPHIC:
            yield aliases[0]


def test_every_lexer_formats_as_pygments():
    """Every lexer's token types through the one-pass formatter (it uses the formatter's classes, parents and
    all). That every sped-up lexer gives Pygments' tokens, on this text and on it with characters beyond U+FFFF, is
    test_fastlex's."""
    span = SpanFormatter(HtmlFormatter(nowrap=True))
    wrong = []
    for name in _lexer_names():
        lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False)
        if span.format(lexer_tokens(lexer, SAMPLE)) != highlight(SAMPLE, lexer, HtmlFormatter(nowrap=True)):
            wrong.append(f"format {name}")
    assert not wrong, wrong


def test_a_formatter_that_writes_otherwise_is_noticed():
    """The check that guards the fast path: a Pygments formatter writing other HTML (here, `<br>` line ends)
    does not pass it, so highlight_code would use Pygments' own formatter."""
    python = get_lexer_by_name("python", stripnl=False, ensurenl=False)
    assert matches_pygments(SpanFormatter(HtmlFormatter(nowrap=True)), python)
    assert not matches_pygments(SpanFormatter(HtmlFormatter(nowrap=True, lineseparator="<br>")), python)
