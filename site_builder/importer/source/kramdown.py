"""kramdown (Jekyll's Markdown) syntax that CommonMark does not read, one rule per construct (rules.py).

- Block attribute lists after a block: Chirpy's `{: .prompt-tip|info|warning|danger }` and Minimal Mistakes'
  `{: .notice|notice--info|primary|success|warning|danger }` make the block above an admonition (`::: tip`...);
  `{: file="x" }` after a fenced code block becomes the block's `title`; any other `{: ...}`, `{:toc}` (with the
  `* TOC` line it follows), `{:.no_toc}` and attribute list definitions are dropped.
- Span attribute lists (`` `x`{: .filepath} ``, `![a](b){: width="400"}`) are dropped.
- Extensions `{::nomarkdown}`, `{:/nomarkdown}`, `{::options ... /}`, `{::comment}...{:/comment}` are dropped
  (the text between nomarkdown's markers is HTML already, as CommonMark reads it).
- Math: `$$...$$` inside a sentence is inline math in kramdown; it becomes `$...$` (display math on its own
  lines stays `$$`). Spaces just inside the dollars are removed (`$ x $` is not math here).
All of them leave fenced code alone.
"""

from __future__ import annotations

import re

from site_builder.importer.source.rules import Rule, RuleContext, outside_code, sub_outside_code

# class -> our admonition kind (admonitions.py KINDS and ALIASES)
ADMONITIONS = {
    "prompt-tip": "tip",
    "prompt-info": "note",
    "prompt-warning": "warning",
    "prompt-danger": "danger",
    "notice": "note",
    "notice--info": "note",
    "notice--primary": "important",
    "notice--success": "tip",
    "notice--warning": "warning",
    "notice--danger": "danger",
}

_EXTENSIONS = re.compile(
    r"\{::comment\}.*?\{:/comment\}|\{::nomarkdown\}|\{:/nomarkdown\}|\{::options\b[^}]*/?\}", re.S
)


def extensions(text: str, ctx: RuleContext) -> str:
    return sub_outside_code(_EXTENSIONS, lambda m, _o: ctx.keep("", m.group(0)), text)


# its prefix: the quote markers it is inside, or the indent of the list item it is in (`    {: .prompt-tip}`)
_BLOCK_IAL = re.compile(r"^((?:[ \t]{0,3}>[ \t]?)*|[ \t]{4,}(?:>[ \t]?)*)[ \t]{0,3}\{:(?!:)([^}\n]*)\}[ \t]*$", re.M)
_TRAILING_ADMONITION = re.compile(r"^(.*\S)[ \t]*\{:\s*\.(" + "|".join(map(re.escape, ADMONITIONS)) + r")\s*\}[ \t]*$")
_FILE = re.compile(r"""\bfile\s*=\s*(["'])(.*?)\1""")
_CLASS = re.compile(r"(?<![\w-])\.([\w-]+)")
_FENCE_OPEN = re.compile(r"^([ \t]{0,3})(`{3,}|~{3,})([^\n]*)$")


def _admonition(lines: list[str], kind: str, prefix: str) -> list[str]:
    """The block ending at the end of `lines` (back to a blank line, inside the quote `prefix` if any) opened as
    `::: kind` (a quote of its own unquoted); the caller closes it on the attribute list's line."""
    start = len(lines)
    marker = prefix.strip()
    while start > 0 and lines[start - 1].strip() and lines[start - 1].strip() != marker:
        line = lines[start - 1]
        if (marker and not line.lstrip().startswith(marker)) or (prefix and not marker and not line.startswith(prefix)):
            break  # out of the quote, or of the list item, the attribute list is in
        start -= 1
    quotes = [i for i in range(start, len(lines)) if lines[i][len(prefix) :].lstrip().startswith(">")]
    if quotes and quotes[0] > start:
        start = quotes[0]  # a quote after a paragraph (GFM: it ends the paragraph): the quote, lazy lines and all
    block = [line[len(prefix) :] if prefix and line.startswith(prefix) else line for line in lines[start:]]
    if block and block[0].lstrip().startswith(">"):  # its lines without `>` are the quote's lazy lines
        block = [re.sub(r"^\s*> ?", "", line, count=1) for line in block]
    return [*lines[:start], f"{prefix}::: {kind}", *(prefix + line for line in block)]


def _titled(lines: list[str], title: str) -> bool:
    """Give the fenced block that ends on the last line a `title` option; False when no fence ends there."""
    if not lines or not re.match(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*$", lines[-1]):
        return False
    close = lines[-1].strip()
    for i in range(len(lines) - 2, -1, -1):
        m = _FENCE_OPEN.match(lines[i])
        if m and m.group(2)[0] == close[0] and len(m.group(2)) <= len(close):
            quote = '"' if '"' not in title else "'"
            info = m.group(3).rstrip()
            option = f"title={quote}{title}{quote}"
            info = info[:-1] + f" {option}}}" if info.endswith("}") else f"{info} {{{option}}}"
            lines[i] = f"{m.group(1)}{m.group(2)}{info.lstrip() if not m.group(3).strip() else info}"
            return True
    return False


def _fence_state(line: str, open_fence: str) -> str:
    """The fence open after `line` ("" for none), given the one open before it."""
    m = re.match(r"^[ \t]{0,3}(`{3,}|~{3,})(.*)$", line)
    if not m:
        return open_fence
    if not open_fence:
        return m.group(1)
    closes = m.group(1)[0] == open_fence[0] and len(m.group(1)) >= len(open_fence) and not m.group(2).strip()
    return "" if closes else open_fence


def block_attributes(text: str, ctx: RuleContext) -> str:
    """Each block attribute list line, with the block above it (fences included: `{: file }` follows one)."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        m = None if fence else _BLOCK_IAL.match(line)
        trailing = None if fence or m else _TRAILING_ADMONITION.match(line)
        fence = _fence_state(line, fence)
        if trailing is not None:  # `last words.{: .prompt-tip }`: meant for the block it ends
            out.append(trailing.group(1))
            out = _admonition(out, ADMONITIONS[trailing.group(2)], "")  # the whole block, a quote unquoted
            out[-1] += ctx.keep("\n:::", "")
            continue
        if m is None:
            out.append(line)
            continue
        prefix, body = m.group(1), m.group(2).strip()
        kinds = [ADMONITIONS[c] for c in _CLASS.findall(body) if c in ADMONITIONS]
        file = _FILE.search(body)
        if kinds and out and out[-1].strip() and out[-1].strip() != prefix.strip():
            out = _admonition(out, kinds[0], prefix)
            out.append(prefix + ":::")
            continue
        titled = file is not None and _titled(out, file.group(2))
        if not titled and body.lower() in ("toc", ".toc") and out and re.match(r"^\s*[*+-]\s+TOC\s*$", out[-1]):
            out[-1] = ""
        out.append(prefix.rstrip())
    return "\n".join(out)


_SPAN_IAL = re.compile(r"(?<=[)`*_\]>])\{:(?!:)[^}\n]*\}")
_ALD = re.compile(r"^[ \t]{0,3}\{:[\w-]+:[^}\n]*\}[ \t]*$", re.M)


def span_attributes(text: str, ctx: RuleContext) -> str:
    text = sub_outside_code(_ALD, lambda m, _o: "", text)
    return sub_outside_code(_SPAN_IAL, lambda m, _o: "", text)


_NOTICE_DIV = re.compile(
    r"^([ \t]{0,3})<div\s+class=[\"']([\w\s-]*?\b(?:notice|notice--\w+|prompt-\w+)\b[\w\s-]*)[\"']"
    r"(?:\s+markdown=[\"']?(?:1|block)[\"']?)?\s*>[ \t]*\n(.*?)\n[ \t]*</div>[ \t]*$",
    re.M | re.S,
)


def notice_divs(text: str, ctx: RuleContext) -> str:
    """Minimal Mistakes' `<div class="notice--info" markdown="1">` (kramdown reads the Markdown inside) as an
    admonition; a div holding another div is left alone."""

    def one(m: re.Match[str], _offset: int) -> str:
        if "<div" in m.group(3):
            return m.group(0)
        kind = next((ADMONITIONS[c] for c in m.group(2).split() if c in ADMONITIONS), "note")
        return f"{m.group(1)}::: {kind}\n{m.group(3)}\n{m.group(1)}:::"

    return sub_outside_code(_NOTICE_DIV, one, text)


_MARKERS = re.compile(r"^[ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?")
_INLINE_DISPLAY = re.compile(r"(?<![\\$])\$\$(?!\$)([^\n$]+?)\$\$(?!\$)")


def inline_math(text: str, ctx: RuleContext) -> str:
    """`$$x$$` with text before or after it on its line is kramdown's inline math: `$x$`."""

    def part(chunk: str, _start: int) -> str:
        out = []
        for line in chunk.split("\n"):
            stripped = _MARKERS.sub("", line).strip()  # a list item's or a quote's whole text is a block too
            alone = stripped.startswith("$$") and stripped.endswith("$$") and stripped.count("$$") == 2
            if "$$" in line and not alone:
                line = _INLINE_DISPLAY.sub(lambda m: f"${m.group(1).strip()}$", line)
            out.append(line)
        return "\n".join(out)

    return outside_code(text, part)


def _display(block: list[str], before: str, after: str, ctx: RuleContext) -> list[str]:
    """A `$$` formula over the lines `block` (the first opens it, the last closes it), between the lines `before`
    and `after`: inside a paragraph and followed by text on its closing line (`$$.`), kramdown's inline math,
    written `$...$` on one line; else display math set apart by blank lines (the lines added count for none)."""
    last = block[-1].rstrip()
    tail = last[last.rindex("$$") + 2 :]
    opens = _MARKERS.sub("", block[0]).strip().startswith("$$")
    if before.strip() and tail.strip() and opens:
        inner = " ".join(line.strip() for line in block).strip()[2:]
        inner = inner[: inner.rindex("$$")].strip()
        return [ctx.keep(f"${inner}${tail}", "\n".join(block))]
    if before.strip() and opens and not _MARKERS.match(block[0]).group(0).strip():  # type: ignore[union-attr]
        block[0] = ctx.keep("\n", "") + block[0]
    if tail.strip() and opens:  # `$$.`: the display ends at `$$`, the text follows it
        block[-1] = last[: last.rindex("$$") + 2] + ctx.keep("\n\n" + tail.strip(), "")
    if after.strip():
        block[-1] += ctx.keep("\n", "")
    return block


def display_blocks(text: str, ctx: RuleContext) -> str:
    """`$$` formulas over several lines inside a paragraph (a list item's text, a sentence's end), as kramdown
    reads them (`_display`), so that their lines are not read as Markdown (`=` under text is a heading)."""

    def part(chunk: str, _start: int) -> str:
        lines = chunk.split("\n")
        out: list[str] = []
        i = 0
        while i < len(lines):
            if lines[i].strip().count("$$") % 2 == 0:
                out.append(lines[i])
                i += 1
                continue
            j = i + 1
            while j < len(lines) and lines[j].strip().count("$$") % 2 == 0:
                j += 1
            if j == len(lines):  # never closed: left as written
                out += lines[i:]
                break
            before = out[-1] if out else ""
            after = lines[j + 1] if j + 1 < len(lines) else ""
            out += _display(lines[i : j + 1], before, after, ctx)
            i = j + 1
        return "\n".join(out)

    return outside_code(text, part)


_DISPLAY = re.compile(r"(?<![\\$])\$\$(?!\$)(.+?)(?<!\\)\$\$", re.S)
_ENV = re.compile(r"\\begin\{")
_ENV_BLOCK = re.compile(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S)
_INNER = {"align*": "aligned", "align": "aligned", "gather*": "gathered", "gather": "gathered", "split": "aligned"}
_STARRED = re.compile(r"(\\(?:begin|end))\{(align\*?|gather\*?|split)\}")
_ENV_NUMBERED = re.compile(r"\\begin\{(?:equation|align|gather|multline|eqnarray)\*?\}")
_SINGLE = re.compile(r"(?<![\\$])\$(?![\s$])([^$\n]+?)(?<![\s\\])\$(?!\$)")


def tagged_display(text: str, ctx: RuleContext) -> str:
    """MathJax numbers a display formula that holds `\\tag{..}` or `\\label{..}` outside any environment (its
    `tags: ams` setting); here those belong to a numbered environment: the formula becomes an `equation`. An
    escaped `\\*` inside `$...$` is the `*` kramdown gave MathJax (kramdown reads single dollars as text)."""

    def display(m: re.Match[str], _offset: int) -> str:
        tex = m.group(1)
        outside = _ENV_BLOCK.sub("", tex)  # what is not inside an environment
        if "\\tag" not in outside and "\\label" not in outside:
            return m.group(0)
        if _ENV.search(tex):  # `\begin{align*}...\end{align*} \tag{10}`: the environment's inner form
            tex = _STARRED.sub(lambda e: e.group(1) + "{" + _INNER[e.group(2)] + "}", tex)
            if _ENV_NUMBERED.search(tex):
                return m.group(0)
        elif "\\\\" in tex:
            return m.group(0)
        lead, body, trail = re.match(r"(\s*)(.*?)(\s*)$", tex, re.S).groups()  # type: ignore[union-attr]
        return f"$${lead}\\begin{{equation}}{body}\\end{{equation}}{trail}$$"

    text = sub_outside_code(_DISPLAY, display, text)
    return sub_outside_code(_SINGLE, lambda m, _o: m.group(0).replace("\\*", "*"), text)


RULES: tuple[Rule, ...] = (
    extensions,
    notice_divs,
    block_attributes,
    span_attributes,
    inline_math,
    display_blocks,
    tagged_display,
)
