"""A site's own Hugo shortcode (`layouts/shortcodes/NAME.html`) expanded when its template only prints: the
template's text with each `{{ ... }}` action replaced by its value, when every action is one of
`.Get N`, `.Get "name"`, `.Inner`, `.Page.File.BaseFileName|ContentBaseName|Dir`, `.Page.Title`,
`.Page.Permalink|RelPermalink`, `.Site.BaseURL|Title` (with `$.` too, in parentheses or not), piped through
filters that do not change the text here (`safeHTML`, `markdownify`, `safeURL`, `relURL`, `htmlUnescape`...), or a
`{{/* comment */}}`. A template that gives one `<img>` becomes a Markdown image. A template with logic (`if`,
`range`, `with`, variables, partials) is not read: its calls are kept as HTML comments, with a warning
(shortcodes.leftovers).
"""

from __future__ import annotations

import posixpath
import re

from site_builder.importer.source.rules import RuleContext
from site_builder.importer.source.shortcodes import Handler, Shortcode

_IMG = re.compile(r"^<img\s[^<>]*?/?>$")
_ACTION = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.S)
_KEEPS_TEXT = {"safeHTML", "markdownify", "safeURL", "relURL", "htmlUnescape", "safeHTMLAttr", "chomp", "plainify"}
_GET = re.compile(r"^\(?\$?\.Get\s+(\d+|\"[\w-]+\")\)?$")
_NAMES = (
    ".Inner",
    ".Page.File.BaseFileName",
    ".Page.File.ContentBaseName",
    ".Page.File.Dir",
    ".Page.Title",
    ".Page.Permalink",
    ".Page.RelPermalink",
    ".Site.BaseURL",
    ".Site.Title",
)


def _value_expr(action: str) -> str | None:
    """The expression an action prints (filters that keep the text dropped), or None when it does more."""
    if action.startswith("/*") and action.endswith("*/"):
        return ""
    head, *filters = [p.strip() for p in action.split("|")]
    if any(f not in _KEEPS_TEXT for f in filters):
        return None
    expr = head.removeprefix("$").strip()
    if _GET.match(expr) or expr.strip("()").removeprefix("$") in _NAMES:
        return expr
    return None


def simple(template: str) -> bool:
    """Whether every action of the template is one `render` knows."""
    return all(_value_expr(m.group(2)) is not None for m in _ACTION.finditer(template))


def _value(expr: str, call: Shortcode, ctx: RuleContext) -> str:
    if not expr:
        return ""
    m = _GET.match(expr)
    if m:
        key = m.group(1)
        return call.get(key.strip('"')) if key.startswith('"') else call.get("", int(key))
    name = expr.strip("()").removeprefix("$")
    doc = ctx.doc
    stem = doc.origin.name.split(".")[0]
    permalink = str(doc.meta.get("permalink") or "")
    values = {
        ".Inner": call.inner or "",
        ".Page.File.BaseFileName": doc.origin.name.rsplit(".", 1)[0],
        ".Page.File.ContentBaseName": doc.origin.parent.name if stem == "index" else stem,
        ".Page.File.Dir": posixpath.dirname(doc.rel) + "/",
        ".Page.Title": str(doc.meta.get("title") or ""),
        ".Page.Permalink": permalink,
        ".Page.RelPermalink": permalink,
        ".Site.BaseURL": "/",
        ".Site.Title": "",
    }
    return values.get(name, "")


def render(template: str, call: Shortcode, ctx: RuleContext) -> str:
    out: list[str] = []
    pos = 0
    for m in _ACTION.finditer(template):
        before = template[pos : m.start()]
        out.append(before.rstrip() if m.group(1) else before)
        out.append(_value(_value_expr(m.group(2)) or "", call, ctx))
        pos = m.end()
        if m.group(3):
            while pos < len(template) and template[pos].isspace():
                pos += 1
    out.append(template[pos:])
    return "".join(out).strip()


def handler(template: str) -> Handler:
    """A handler expanding calls with `template` (checked with `simple` first). Its HTML stays raw, as the
    shortcode put it in the page; a block of HTML gets lines of its own."""

    def expand_one(call: Shortcode, ctx: RuleContext, text: str) -> str:
        html = render(template, call, ctx)
        image = _IMG.match(html)
        if image is not None:  # an image alone: a Markdown image, which the build publishes and checks
            attrs = dict(re.findall(r"""(\w+)\s*=\s*["']([^"']*)["']""", image.group(0)))
            if set(attrs) <= {"src", "alt", "title"} and attrs.get("src"):
                alt = attrs.get("alt", "").replace("[", "\\[").replace("]", "\\]")
                return ctx.keep(f"![{alt}](<{attrs['src']}>)", call.source)
        if "\n" in html:
            return ctx.keep(f"\n\n{html}\n\n", call.source)
        return ctx.keep(html, call.source)

    return expand_one
