"""jekyll-scholar's citations: a small BibTeX reader, `{% cite key %}` as an author-year link and
`{% bibliography %}` as the list of references, in the APA-like form al-folio shows them.

`read_bib(paths)` reads entries (`@type{key, field = {value} | "value" | number, ...}`; `@string`, `@comment`
and `@preamble` skipped); braces and TeX accents' markup are taken out of values (`{\\"o}` -> `o`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from site_builder.importer.source.rules import Rule, RuleContext, sub_outside_code


@dataclass(frozen=True)
class BibEntry:
    key: str
    kind: str
    fields: dict[str, str]

    def authors(self) -> list[tuple[str, str]]:
        """(first names, last name) of each author (or editor)."""
        names = self.fields.get("author") or self.fields.get("editor") or ""
        out = []
        for name in re.split(r"\s+and\s+", names):
            if "," in name:
                last, first = (p.strip() for p in name.split(",", 1))
            else:
                first, _, last = name.strip().rpartition(" ")
            if last:
                out.append((first, last))
        return out

    def label(self) -> str:
        """`LeBlanc et al., 1990`, `Chernoff, 1973`, `Ward & Wittels, 1990`."""
        names = [last for _, last in self.authors()] or [self.fields.get("title", self.key)]
        who = names[0] if len(names) == 1 else f"{names[0]} & {names[1]}" if len(names) == 2 else f"{names[0]} et al."
        return f"{who}, {self.fields.get('year', 'n.d.')}"

    def reference(self) -> str:
        """`**Title.** J. LeBlanc, Matthew O. Ward, and N. Wittels. *Venue*. 1990.`"""
        people = [f"{first} {last}".strip() for first, last in self.authors()]
        who = people[0] if len(people) == 1 else ", ".join(people[:-1]) + ", and " + people[-1] if people else ""
        venue = self.fields.get("journal") or self.fields.get("booktitle") or self.fields.get("publisher") or ""
        title = self.fields.get("title", self.key).rstrip(".")
        parts = [f"**{title}**", who, f"*{venue}*" if venue else "", self.fields.get("year", "")]
        return ". ".join(p.rstrip(".") for p in parts if p) + "."


def _value_end(text: str, start: int) -> int:
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
        i += 1
    return i


def _clean(value: str) -> str:
    value = value.strip()
    if value[:1] == '"' and value[-1:] == '"':
        value = value[1:-1]
    value = re.sub(r"\\[`'^\"~=.uvHck]\s*\{?(\w)\}?", r"\1", value)  # accents: the letter
    return " ".join(value.replace("{", "").replace("}", "").split())


def parse(text: str) -> dict[str, BibEntry]:
    entries: dict[str, BibEntry] = {}
    for m in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", text):
        kind = m.group(1).lower()
        if kind in ("string", "comment", "preamble"):
            continue
        fields: dict[str, str] = {}
        pos = m.end()
        while True:
            f = re.compile(r"\s*([\w-]+)\s*=\s*").match(text, pos)
            if f is None:
                break
            end = _value_end(text, f.end())
            fields[f.group(1).lower()] = _clean(text[f.end() : end])
            pos = end + 1
        entries.setdefault(m.group(2), BibEntry(m.group(2), kind, fields))
    return entries


def read_bib(folder: Path) -> dict[str, dict[str, BibEntry]]:
    """file stem -> its entries, for each `.bib` file in `folder`."""
    out = {}
    for path in sorted(folder.glob("*.bib")) if folder.is_dir() else []:
        try:
            out[path.stem] = parse(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return out


_T = r"\{%-?\s*"
_CITE = re.compile(_T + r"cite\s+([^%]*?)\s*-?%\}")
_BIBLIOGRAPHY = re.compile(_T + r"bibliography\b([^%]*?)\s*-?%\}")


def _options(words: list[str]) -> tuple[list[str], str]:
    keys, file, skip = [], "", False
    for i, word in enumerate(words):
        if skip:
            skip = False
        elif word == "--file" and i + 1 < len(words):
            file, skip = words[i + 1], True
        elif not word.startswith("--"):
            keys.append(word)
    return keys, file


def scholar_rules(bibs: dict[str, dict[str, BibEntry]], default: str) -> tuple[Rule, Rule]:
    """The two rules: `{% cite %}` and `{% bibliography %}`, reading `bibs` (`default`: the config's file)."""
    everything: dict[str, BibEntry] = {}
    for entries in bibs.values():
        for key, entry in entries.items():
            everything.setdefault(key, entry)

    def lookup(key: str, file: str) -> BibEntry | None:
        return bibs.get(file or default, {}).get(key) or everything.get(key)

    def cite(text: str, ctx: RuleContext) -> str:
        def one(m: re.Match[str], offset: int) -> str:
            keys, file = _options(m.group(1).split())
            found = [lookup(k, file) for k in keys]
            if not keys or None in found:
                missing = [k for k, e in zip(keys, found, strict=True) if e is None]
                shown = ", ".join(keys)
                message = f"citation {m.group(0)}: no entry {', '.join(missing)} in the bibliography; kept as [{shown}]"
                ctx.problem(text, offset + m.start(), message)
                return "[" + ", ".join(keys) + "]"
            return "(" + "; ".join(f"[{e.label()}](#{e.key})" for e in found if e) + ")"

        return sub_outside_code(_CITE, one, text)

    def bibliography(text: str, ctx: RuleContext) -> str:
        def one(m: re.Match[str], offset: int) -> str:
            words = m.group(1).split()
            _, file = _options(words)
            if "--cited" in words or "--cited_in_order" in words:
                cited = [k for c in _CITE.finditer(text) for k in _options(c.group(1).split())[0]]
                entries = [e for e in (lookup(k, file) for k in dict.fromkeys(cited)) if e]
            else:
                entries = list(bibs.get(file or default, {}).values())
            if not entries:
                return ctx.unconverted(text, offset + m.start(), m.group(0), "no entries found")
            # blank lines around: in al-folio's `<div class="publications">`, the list is Markdown, not the HTML
            # block's text (CommonMark ends an HTML block at a blank line)
            return "\n\n" + "\n".join(f'1. <span id="{e.key}"></span>{e.reference()}' for e in entries) + "\n\n"

        return sub_outside_code(_BIBLIOGRAPHY, one, text)

    return cite, bibliography
