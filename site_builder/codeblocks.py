"""Code blocks as a page shows them: Pygments colours (through `fastlex`), the fence options `linenos`,
`hl_lines` and `title`, doctest blocks marked for the copy button, and executed blocks with what they printed,
drew, raised or ended with (`exec_fence_hook`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from html import escape
from typing import TYPE_CHECKING, Any

from markdown_it.token import Token
from markdown_it.utils import EnvType
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from site_builder.fasthtml import SpanFormatter, lexer_tokens, matches_pygments
from site_builder.fastlex import speed_up
from site_builder.fences import EXEC_LANGS, block_is_doctest, hl_lines, shows_code, shows_outputs
from site_builder.images import svg_image

if TYPE_CHECKING:
    from site_builder.execute.results import BlockResult, PostRun

_FORMATTER = HtmlFormatter(nowrap=True)
_LANG_ALIASES = {"output": "text", "plaintext": "text", "console": "console", "": "text"}
_OFF = ("false", "no", "0", "none")  # `linenos=false`: no numbers


@lru_cache(maxsize=256)
def _lexer(lang: str) -> Any:
    name = _LANG_ALIASES.get(lang.lower(), lang.lower())
    try:
        return speed_up(get_lexer_by_name(name, stripnl=False, ensurenl=False))
    except ClassNotFound:
        return None


def highlight_code(
    code: str, lang: str, options: Mapping[str, str] | None = None, doctest: bool = False, checked: bool = False
) -> str:
    """Pygments-highlighted code inside `<pre><code>`; unknown languages are escaped text. `options` are the fence's
    (`linenos`, `hl_lines`, `title`; a bad hl_lines was warned about when parsing, its good lines are marked);
    `doctest`: the copy button copies only the `>>>`/`...` lines, without their prompts; `checked`: its examples
    were checked at build time."""
    lexer = _lexer("pycon" if doctest else lang)  # a session, coloured as one; its class keeps the fence's language
    body = _highlighted(code, lexer) if lexer else escape(code)
    if lexer and not code.endswith("\n") and body.endswith("\n"):
        body = body[:-1]
    opts = options or {}
    classes = [f"language-{escape(lang)}"] if lang else []
    numbered = "linenos" in opts and opts["linenos"].lower() not in _OFF
    marked = hl_lines(opts["hl_lines"], len(code.splitlines()))[0] if "hl_lines" in opts else set()
    if numbered or marked:
        body, count = _lines(body, marked)
        classes.append("lines")
        if numbered:
            classes.append("linenos" + (f" ln{len(str(count))}" if count >= 100 else ""))
    cls = f' class="{" ".join(classes)}"' if classes else ""
    box = "highlight" + (" doctest" if doctest else "") + (" checked" if checked else "")
    title = opts.get("title")
    bar = f'<div class="code-bar"><span class="code-title">{escape(title)}</span></div>' if title else ""
    checks = ' title="checked at build time"' if checked else ""
    return f'<div class="{box}"{checks}>{bar}<pre tabindex="0"><code{cls}>{body}</code></pre></div>\n'


@lru_cache(maxsize=1)
def _span_formatter() -> SpanFormatter | None:
    """The one-pass formatter, if it writes what this Pygments' HtmlFormatter writes (else None: Pygments')."""
    fast = SpanFormatter(_FORMATTER)
    return fast if matches_pygments(fast, get_lexer_by_name("python", stripnl=False, ensurenl=False)) else None


def _highlighted(code: str, lexer: Any) -> str:
    """`pygments.highlight(code, lexer, _FORMATTER)`, byte for byte, through the one-pass formatter."""
    fast = _span_formatter()
    return fast.format(lexer_tokens(lexer, code)) if fast else highlight(code, lexer, _FORMATTER)


def _lines(body: str, marked: set[int]) -> tuple[str, int]:
    """Highlighted code as one `<span class="line">` per line (`line hl` when marked), each with its newline, and how
    many lines: Pygments closes its spans at each line's end, so every line is whole HTML."""
    rows = [row + "\n" for row in body.split("\n")]
    rows[-1] = rows[-1][:-1]  # the last line's newline, if the code ends with one, is the empty row's
    if not rows[-1]:
        rows.pop()
    out = [f'<span class="line{" hl" if n in marked else ""}">{row}</span>' for n, row in enumerate(rows, 1)]
    return "".join(out), len(rows)


def fence_html(tok: Token, lang: str, options: Mapping[str, str]) -> str:
    """A fence that does not run: a doctest-style python block (`>>> ` prompts) is shown as a session; one whose
    code is hidden (`{hide}`, `{hide=code}`: a notebook's stored outputs show under it) is not shown."""
    if not shows_code(options):
        return ""
    doctest = lang in EXEC_LANGS and block_is_doctest(tok, lang)
    return highlight_code(tok.content, lang, options, doctest)


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
        if lang == "output" or tok.meta.get("expected_output"):  # an expected output, checked against the stdout
            block = state["last"] if tok.meta.get("expected_output") else None  # else nothing checked it
            state["last"], value, after_output[0] = None, after_output[0], ""
            return None if block is None else _expected_output(block, tok.content) + value
        block = by_line.get(line)
        state["last"] = block
        if block is None:
            return None
        doctest = block_is_doctest(tok, lang)
        parts = []
        if shows_code(opts):  # a doctest's examples all passed: each one's output was checked
            parts.append(highlight_code(tok.content, lang, opts, doctest, doctest and block.status == "passed"))
        if shows_outputs(opts):
            parts += _printed(block, shows_stdout=not tok.meta.get("has_output"))
            if tok.meta.get("has_output"):
                after_output[0] = value_html(block.value)
            else:
                parts.append(value_html(block.value))
            caption = f"<figcaption>{escape(opts['caption'])}</figcaption>" if opts.get("caption") else ""
            for svg in block.figures:
                parts.append(f'<figure class="exec-figure">{svg_image(svg, opts.get("alt", ""))}{caption}</figure>\n')
        error = block.error if block.status == "failed" else None
        if error is None and post_error is not None and post_error.get("line") == block.line:
            error = post_error
        if error is not None and keep_going:
            detail = escape(error.get("traceback") or "")
            parts.append(
                f'<div class="exec-error" lang="en"><strong>{escape(error["type"])}</strong> at line {error["line"]}: '
                f"{escape(error['message'])}" + (f"<pre>{detail}</pre>" if detail else "") + "</div>\n"
            )
        if (
            opts.get("hide") == "code" and parts
        ):  # its outputs without their code: one box of their own, not the block's above
            return f'<div class="exec-outputs">{"".join(parts)}</div>\n'
        return "".join(parts)

    return hook


def _expected_output(block: BlockResult, content: str) -> str:
    """An ```output block, marked verified or not: the badge's words are the theme's, in the page's language (site.css,
    as the doctest badge's "✓ verified" / "✓ 已验证")."""
    ok = block.status == "passed"
    badge = f'<span class="output-badge {"ok" if ok else "bad"}"></span>'

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
