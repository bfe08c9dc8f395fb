"""Liquid that computes a value the post shows, worked out at import (rules.py): a `{% capture x %}` block put
where `{{ x }}` (or `{{ x | markdownify }}`) shows it, as Minimal Mistakes' notices are written, and Jekyll's
date filters on a literal date (`{{ "2024-11-25 10:00:50 +0800" | date: '%B %-d, %Y' }}`, `date_to_string`,
`date_to_long_string`, `date_to_xmlschema`, `date_to_rfc822`)."""

from __future__ import annotations

import re
from email.utils import format_datetime

from site_builder.importer.source.front import parse_date
from site_builder.importer.source.rules import RuleContext

_CAPTURE = re.compile(r"\{%-?\s*capture\s+([\w-]+)\s*-?%\}(.*?)\{%-?\s*endcapture\s*-?%\}", re.S)


def captures(text: str, ctx: RuleContext) -> str:
    """Each capture that the post shows (`{{ name }}`, any filters) in the place it is shown; the capture's own
    place keeps its lines blank."""
    found = {m.group(1): m.group(2).strip("\n") for m in _CAPTURE.finditer(text)}
    shown = {name for name in found if re.search(r"\{\{-?\s*" + re.escape(name) + r"\s*(?:\|[^}]*)?-?\}\}", text)}
    if not shown:
        return text
    text = _CAPTURE.sub(lambda m: ctx.keep("", m.group(0)) if m.group(1) in shown else m.group(0), text)
    for name in shown:
        use = re.compile(r"\{\{-?\s*" + re.escape(name) + r"\s*(?:\|[^}]*)?-?\}\}")
        value = "\n\n" + found[name] + "\n\n"
        text = use.sub(lambda m, value=value: ctx.keep(value, m.group(0)), text)  # type: ignore[misc]
    return text


_ASSIGN = re.compile(r"""\{%-?\s*assign\s+([\w-]+)\s*=\s*(["'])([^"'\n]*)\2\s*-?%\}""")


def assigns(text: str, ctx: RuleContext) -> str:
    """`{% assign x = "text" %}` (a literal, no filter) that `{{ x }}` shows: the text there."""
    values = {m.group(1): m.group(3) for m in _ASSIGN.finditer(text)}
    values = {k: v for k, v in values.items() if re.search(r"\{\{-?\s*" + re.escape(k) + r"\s*-?\}\}", text)}
    if not values:  # a variable only other Liquid reads (`append: prefix`) stays with that Liquid
        return text
    text = _ASSIGN.sub(lambda m: ctx.keep("", m.group(0)) if m.group(1) in values else m.group(0), text)
    use = re.compile(r"\{\{-?\s*(" + "|".join(map(re.escape, values)) + r")\s*-?\}\}")
    return use.sub(lambda m: ctx.keep(values[m.group(1)]), text)


_DATE_FILTER = re.compile(
    r"""\{\{-?\s*(["'])([^"']+)\1\s*\|\s*(date_to_xmlschema|date_to_rfc822|date_to_string|date_to_long_string"""
    r"""|date)\s*(?::\s*(["'])([^"']*)\4)?\s*-?\}\}"""
)


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def literal_dates(text: str, ctx: RuleContext) -> str:
    def one(m: re.Match[str]) -> str:
        dt = parse_date(m.group(2))
        if dt is None:
            return m.group(0)
        kind, arg = m.group(3), m.group(5) or ""
        if kind == "date_to_xmlschema":
            return dt.isoformat()
        if kind == "date_to_rfc822":
            return format_datetime(dt)
        if kind in ("date_to_string", "date_to_long_string"):
            month = "%b" if kind == "date_to_string" else "%B"
            if arg == "ordinal":
                return dt.strftime(f"{_ordinal(dt.day)} {month} %Y")
            return dt.strftime(f"%d {month} %Y")
        return dt.strftime(arg) if arg else m.group(0)

    return _DATE_FILTER.sub(one, text)


_BLOCKQUOTE = re.compile(r"\{%-?\s*blockquote\b([^%]*?)-?%\}\s*\n?(.*?)\n?\s*\{%-?\s*endblockquote\s*-?%\}", re.S)
_PULLQUOTE = re.compile(r"\{%-?\s*(?:end)?pullquote\b[^%]*?-?%\}|\{\\?\"\s?|\s?\\?\"\}")


def octopress_quotes(text: str, ctx: RuleContext) -> str:
    """Octopress `{% blockquote Author, Source http://link %}` (a quote with its attribution) and
    `{% pullquote %}` (its text, the `{" "}` markers out)."""

    def quote(m: re.Match[str]) -> str:
        words = m.group(1).split()
        link = next((w for w in words if w.startswith(("http://", "https://"))), "")
        author, _, source = " ".join(w for w in words if w != link).partition(", ")
        cite = f"[{source or link}]({link})" if link else source
        by = ", ".join(p for p in (author.strip(), cite.strip()) if p)
        lines = [f"> {line}".rstrip() for line in m.group(2).strip("\n").split("\n")]
        return "\n".join(lines + ([">", f"> — {by}"] if by else []))

    text = _BLOCKQUOTE.sub(quote, text)
    if "pullquote" in text:
        text = re.sub(
            r"\{%-?\s*pullquote\b.*?endpullquote\s*-?%\}", lambda m: _PULLQUOTE.sub("", m.group(0)), text, flags=re.S
        )
    return text
