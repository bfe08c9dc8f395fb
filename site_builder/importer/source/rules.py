"""Template syntax converted by small rules, one per construct, as markdown-it's rules are.

A `Rule` is a function `(text, ctx) -> text`: it finds its construct in a doc's body (Liquid's
`{% highlight %}`, a kramdown `{: .notice }`, a Hugo `{{< figure >}}`, ...) and returns the body with each one
replaced by our Markdown. What it cannot convert it hands to `ctx.unconverted(...)`, which gives an HTML comment
holding the construct (so nothing is shown raw and nothing is lost) and records an `ImportProblem` at the source
line; a conversion that loses something (a citation kept as text) is `ctx.problem(...)`. A reader lists its
rules in order (`apply_rules`); a rule that only some sources need is simply left out of the others' lists.

The `RuleContext` a rule gets:
- `doc`: the `SourceDoc` being converted (its `rel` for messages, its `meta` if a rule sets a key);
- `urls`: the `UrlIndex` of every post and page of the site (for `{% post_url %}`, `{{< ref >}}`, `{filename}`);
- `values`: the site's own variables as its templates print them (Jekyll's `site.x`, from `_config.yml`);
- `line(text, pos)`: the source line of position `pos` of the text as the rule sees it. Rules keep the number of
  lines where they can (a tag replaced by a line, a block by as many lines), so that lines stay the source's;
- `keep(fragment, source)`: a placeholder for text no later rule may touch (`{% raw %}`, code that must stay
  verbatim, a replacement with more lines than the `source` it replaces, which keeps later lines right);
  `apply_rules` puts the fragments back at the end.

Helpers: `outside_code(text, fn)` applies `fn` to the parts of the text outside fenced code blocks (kramdown
attribute lists and math are not read inside code; Liquid is, so Liquid rules do not use it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from site_builder.importer.source.model import ImportProblem, SourceDoc


@dataclass
class UrlIndex:
    """Every post and page's URL by the keys other docs refer to it with (reader-defined: Jekyll's post_url
    name `2010-07-21-name`, a path relative to the site's content folder, ...)."""

    by_key: dict[str, str] = field(default_factory=dict)
    urls: set[str] = field(default_factory=set)  # every URL added, whatever its key

    def add(self, key: str, url: str) -> None:
        self.by_key.setdefault(key, url)
        self.urls.add(url)

    def find(self, key: str) -> str | None:
        return self.by_key.get(key.strip().strip("/"))


_KEEP = "\x00K{}\x00"
_KEPT = re.compile(r"\x00K(\d+)\x00")


@dataclass
class RuleContext:
    """What a rule may read and record while converting one doc (see the module docstring)."""

    doc: SourceDoc
    urls: UrlIndex
    values: dict[str, str] = field(default_factory=dict)  # the old site's own variables as printed (`site.title`)
    problems: list[ImportProblem] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    kept_lines: list[int] = field(default_factory=list)  # source lines each kept fragment stands for

    def line(self, text: str, pos: int) -> int:
        before = text[:pos]
        hidden = sum(self.kept_lines[int(m.group(1))] for m in _KEPT.finditer(before)) if "\x00K" in before else 0
        return self.doc.line_offset + before.count("\n") + hidden

    def problem(self, text: str, pos: int, message: str) -> None:
        self.problems.append(ImportProblem(self.doc.rel, self.line(text, pos), message))

    def unconverted(self, text: str, pos: int, construct: str, why: str = "") -> str:
        """An HTML comment holding `construct` (the source's text, `--` made safe), and a problem at its line."""
        whole = self.restore(construct)  # with what earlier rules kept inside it
        shown = " ".join(whole.split())
        self.problem(text, pos, f"not converted, kept as an HTML comment: {shown[:120]}" + (f" ({why})" if why else ""))
        safe = re.sub(r"\n[ \t]*(?=\n)", "", whole.replace("--", "- -").replace("\x00", ""))  # no blank line:
        # one would end the HTML block the comment is in (CommonMark), and show the rest of it as text
        return self.keep(f"<!-- not converted: {safe} -->", construct)

    def keep(self, fragment: str, source: str | None = None) -> str:
        """A placeholder for `fragment`, put back by `apply_rules`; it stands for `source` (default: the fragment)
        in the line count of `line`."""
        self.kept.append(fragment)
        self.kept_lines.append((fragment if source is None else source).count("\n"))
        return _KEEP.format(len(self.kept) - 1)

    def rewrite_kept(self, text: str, change: Callable[[str], str]) -> None:
        """`change` each fragment kept by an earlier rule whose placeholder is in `text` (a paired shortcode
        sees its inner ones' output, converted first, as placeholders)."""
        for m in _KEPT.finditer(text):
            self.kept[int(m.group(1))] = change(self.kept[int(m.group(1))])

    def restore(self, text: str) -> str:
        for _ in range(3):  # a kept fragment may hold another's placeholder
            if "\x00K" not in text:
                break
            text = _KEPT.sub(lambda m: self.kept[int(m.group(1))], text)
        return text


Rule = Callable[[str, RuleContext], str]


def apply_rules(
    doc: SourceDoc, rules: Sequence[Rule], urls: UrlIndex, values: dict[str, str] | None = None
) -> list[ImportProblem]:
    """Run `rules` in order over `doc.body` (rewritten in place); the problems found, in order. `values`: the
    site's own variables as its templates print them (Jekyll: `site.x` of _config.yml)."""
    ctx = RuleContext(doc, urls, dict(values or {}))
    text = doc.body
    for rule in rules:
        text = rule(text, ctx)
    doc.body = ctx.restore(text)
    return ctx.problems


_FENCE = re.compile(r"^([ \t]{0,3})(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\2[`~]*[ \t]*$|\Z)", re.M | re.S)


def outside_code(text: str, fn: Callable[[str, int], str]) -> str:
    """`fn(part, start)` on each part of `text` outside fenced code blocks (`start`: the part's offset in `text`,
    for `ctx.line`); the fences themselves unchanged."""
    out: list[str] = []
    pos = 0
    for m in _FENCE.finditer(text):
        out.append(fn(text[pos : m.start()], pos))
        out.append(m.group(0))
        pos = m.end()
    out.append(fn(text[pos:], pos))
    return "".join(out)


def sub_outside_code(pattern: re.Pattern[str], repl: Callable[[re.Match[str], int], str], text: str) -> str:
    """`pattern.sub` outside fenced code; `repl(match, offset)` gets the part's offset in `text` too (a match's
    position in the whole text is `offset + match.start()`)."""
    return outside_code(text, lambda part, start: pattern.sub(lambda m: repl(m, start), part))
