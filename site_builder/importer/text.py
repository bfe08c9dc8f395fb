"""Markdown escaping of plain text, alt texts and URLs, and a CJK-aware language guess."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote, urlsplit

import nh3

from site_builder.util.cjk import cjk as cjk_pattern

_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*")

# Markdown constructs that only count at the start of a line (the builder enables deflists,
# containers, math blocks and footnotes, so `:`, `~`, `$$` and `[^x]:` matter too).
_LINE_START = re.compile(
    r"^(?P<lead>[ \t]*)(?:"
    r"(?P<hash>#{1,6})(?=\s|$)"
    r"|(?P<bullet>[-+])(?=\s|$)"
    r"|(?P<num>\d{1,9})(?P<numdot>[.)])(?=\s|$)"
    r"|(?P<quote>>)"
    r"|(?P<rule>(?:=+|-{2,})[ \t]*$)"
    r"|(?P<colon>:)(?=\s|$|::)"
    r"|(?P<tilde>~)(?=\s|$)"
    r")"
)


_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def is_punct(ch: str) -> bool:
    """Unicode punctuation or symbol, as CommonMark's flanking rules see it."""
    return bool(ch) and unicodedata.category(ch)[0] in "PS"


def is_space(ch: str) -> bool:
    return not ch or ch.isspace()


def _escape_inline(text: str, brackets: bool = False) -> str:
    out = []
    n = len(text)
    for i, ch in enumerate(text):
        prev = text[i - 1] if i else ""
        nxt = text[i + 1] if i + 1 < n else ""
        if ch == "\\":
            # a backslash is literal unless ASCII punctuation or a line end follows it
            out.append("\\\\" if (not nxt or nxt in _ASCII_PUNCT) else ch)
        elif ch in "`$" or (ch in "[]" and brackets):
            out.append("\\" + ch)
        elif ch == "[":
            close = text.find("]", i + 1)
            risky = nxt == "^" or (close >= 0 and text[close + 1 : close + 2] in ("(", "[", ":"))
            out.append("\\[" if risky else ch)
        elif ch == "*":
            out.append(ch if (prev and nxt and prev.isspace() and nxt.isspace()) else "\\*")
        elif ch == "_":
            out.append(ch if (prev.isalnum() and nxt.isalnum()) else "\\_")
        elif ch == "<":
            out.append("\\<" if (nxt.isalpha() or nxt in "/!?") else ch)
        elif ch == "&":
            out.append("\\&" if re.match(r"&#?\w+;", text[i : i + 34]) else ch)
        elif ch == "~":
            out.append("\\~" if ("~" in (prev, nxt)) else ch)
        else:
            out.append(ch)
    return "".join(out)


def _escape_line_start(line: str) -> str:
    m = _LINE_START.match(line)
    if not m:
        return line
    lead = m.group("lead")
    rest = line[len(lead) :]
    if m.group("num") is not None:
        num = m.group("num")
        return f"{lead}{num}\\{rest[len(num) :]}"
    return f"{lead}\\{rest}"


def escape_text(text: str, line_start: bool = True, brackets: bool = False) -> str:
    """Escape plain text so Markdown shows it literally (math `$` included).

    `line_start` says whether the text may begin a line; later lines always may.
    """
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        line = _escape_inline(line, brackets)
        if i or line_start:
            line = _escape_line_start(line)
        out.append(line)
    return "\n".join(out)


def table_cell(markdown: str) -> str:
    """A cell's Markdown as a table row needs it: every `|` escaped, in code spans too (a table splits its rows
    into cells at each `|` before it reads any inline syntax, and takes one backslash off each escaped one)."""
    return markdown.replace("|", "\\|")


def code_span(text: str) -> str:
    """Any text as an inline code span: on one line, between more backticks than the longest run inside it."""
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence, pad = "`" * (longest + 1), " " if longest else ""
    return f"{fence}{pad}{text}{pad}{fence}" if text else ""


_DOLLAR = re.compile(r"(\\*)\$")


def tex_markdown(tex: str, display: bool, label: str = "") -> tuple[str, str]:
    """A formula as Markdown: (as a block, as one line). Its own `$` are escaped (`\\$`, a dollar sign to TeX), so
    only the delimiters written here open and close it; it never ends in a lone backslash (which would escape the
    closing `$`: it is dropped); inline, it is one line (a line could end the paragraph, or start a block, and the
    formula with it). `label`, an equation's number, is text after a display formula."""
    tex = _DOLLAR.sub(lambda m: m[1] + ("$" if len(m[1]) % 2 else "\\$"), tex.strip())
    if (len(tex) - len(tex.rstrip("\\"))) % 2:
        tex = tex[:-1].rstrip()  # TeX cannot end in a lone `\\` (the `$` after it was the formula's)
    one_line = " ".join(tex.split())
    if not one_line:
        return "", ""
    if not display:
        return f"${one_line}$", f"${one_line}$"
    tex = re.sub(r"\n\s*\n", "\n", tex)  # a blank line does not end a display formula here, nor will it later
    suffix = f" ({escape_text(label, line_start=False)})" if label else ""
    return f"$$\n{tex}\n$$" + suffix, f"$${one_line}$$"


def escape_alt(text: str) -> str:
    """Plain text for inside `![...]`: one line, brackets escaped."""
    return escape_text(" ".join(text.split()), line_start=False, brackets=True)


def useful_alt(alt: str, url: str) -> str:
    """The alt text, or "" when it only repeats the image's file name (`image-20230817195343871`)."""
    alt = " ".join(alt.split())
    name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]).lower()
    stem = alt.lower().rsplit(".", 1)[0] if re.search(r"\.\w{2,4}$", alt) else alt.lower()
    file_stem = name.rsplit(".", 1)[0]
    if stem and " " not in stem and (stem == file_stem or (len(stem) >= 8 and stem in name)):
        return ""
    return alt


def md_url(url: str) -> str:
    """A link destination that survives Markdown: spaces, parentheses and angle brackets encoded."""
    return (
        url.strip()
        .replace(" ", "%20")
        .replace("(", "%28")
        .replace(")", "%29")
        .replace("<", "%3C")
        .replace(">", "%3E")
        .replace("\n", "")
    )


SAFE_SCHEMES = frozenset(nh3.ALLOWED_URL_SCHEMES)  # http(s), mailto, tel, ftp, irc, ...: none runs script
_DATA_IMAGE = re.compile(r"data:image/(?:gif|png|jpeg|webp)[;,]")  # the data: URLs markdown-it keeps


def unsafe_url(url: str) -> bool:
    """Whether a link or source runs script or shows a page of its own (`javascript:`, `vbscript:`, `data:` other
    than an image, any scheme not known safe), read as a browser does: controls and spaces squeezed out first."""
    squeezed = re.sub(r"[\x00-\x20\x7f]+", "", url).lower()
    scheme = re.match(r"([a-z][a-z0-9+.-]*):", squeezed)
    if scheme is None:
        return False  # relative
    if scheme.group(1) == "data":
        return _DATA_IMAGE.match(squeezed) is None
    return scheme.group(1) not in SAFE_SCHEMES


def md_title(title: str) -> str:
    return title.replace("\\", "\\\\").replace('"', '\\"')


def guess_lang(text: str) -> str:
    """`zh` (or `ja`/`ko`) when CJK characters outnumber Latin words, else `en`."""
    cjk = cjk_pattern().findall(text)
    words = len(_WORD.findall(text))
    if len(cjk) <= words:
        return "en"
    kana = sum(1 for c in cjk if _KANA.match(c))
    hangul = sum(1 for c in cjk if _HANGUL.match(c))
    if hangul > len(cjk) / 2:
        return "ko"
    if kana > len(cjk) / 10:
        return "ja"
    return "zh"


def line_script(text: str) -> str | None:
    """`zh` for a mostly Chinese line, `latin` for a mostly Latin one, None when mixed, other or empty.

    Chinese is `guess_lang`'s test (CJK characters outnumber Latin words, not kana or hangul); a Latin line
    has at least one word with a letter and no more than one CJK character per two words.
    """
    if guess_lang(text) == "zh":
        return "zh"
    words = [w for w in _WORD.findall(text) if re.search(r"[A-Za-z]", w)]
    if words and 2 * len(cjk_pattern().findall(text)) <= len(words):
        return "latin"
    return None
