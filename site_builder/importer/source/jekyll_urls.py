"""A Jekyll document's URL by Jekyll's own rules (Jekyll 4: `Document#url_placeholders`, `URL#generate_url`).

The permalink is the document's `permalink:`, else its `defaults` scope's, else the site's `permalink:` (a named
style - `date` (Jekyll's default), `pretty`, `ordinal`, `weekdate`, `none` - or a pattern). Placeholders:
`:year :month :i_month :short_month :day :i_day :y_day :short_year :hour :minute :second :title :slug :name
:categories :output_ext :path :collection`. The date is taken in the site's `timezone:` (as Jekyll does); `:title`
is the slug from the file name (or `slug:`) slugified in Jekyll's "pretty" mode keeping its case, `:slug` in its
default mode; `:categories` are the post's categories (its `categories:`/`category:` and the folders above
`_posts`), lower-cased, joined by `/`. Empty segments collapse, as in Jekyll's URL sanitizing. A URL that does not
end in `/` and has no extension gets `.html`, the file Jekyll writes (`/2020/a` is served from `/2020/a.html`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from site_builder.importer.source.rules import Rule, RuleContext, sub_outside_code

STYLES = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "weekdate": "/:categories/:year/W:week/:short_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}


def slugify(text: str, mode: str = "default", cased: bool = False) -> str:
    """Jekyll's `Utils.slugify` in "default" (letters and digits) or "pretty" mode (also `._~!$&'()+,;=@`)."""
    drop = r"(?:[^\w._~!$&'()+,;=@]|_)+" if mode == "pretty" else r"(?:\W|_)+"
    slug = re.sub(r"^-+|-+$", "", re.sub(drop, "-", text))
    return slug if cased else slug.lower()


@dataclass(frozen=True)
class UrlParts:
    """What a post's URL is made from."""

    date: datetime  # in the site's timezone
    slug: str  # from the file name (after the date) or `slug:`
    name: str  # the file name without its extension
    categories: tuple[str, ...]
    collection: str = "posts"
    path: str = ""  # the file's path relative to the collection folder, without extension


def pattern_of(permalink: str | None) -> str:
    """A `permalink:` value as a pattern (a style name replaced by its pattern; Jekyll's default `date`)."""
    value = (permalink or "date").strip()
    return STYLES.get(value, value)


def placeholders(parts: UrlParts) -> dict[str, str]:
    d = parts.date
    return {
        "year": f"{d.year:04d}",
        "month": f"{d.month:02d}",
        "i_month": str(d.month),
        "short_month": d.strftime("%b"),
        "long_month": d.strftime("%B"),
        "day": f"{d.day:02d}",
        "i_day": str(d.day),
        "y_day": f"{d.timetuple().tm_yday:03d}",
        "short_year": d.strftime("%y"),
        "hour": f"{d.hour:02d}",
        "minute": f"{d.minute:02d}",
        "second": f"{d.second:02d}",
        "week": d.strftime("%V"),
        "short_day": d.strftime("%a"),
        "long_day": d.strftime("%A"),
        "title": slugify(parts.slug, "pretty", cased=True),
        "slug": slugify(parts.slug),
        "name": slugify(parts.name),
        "categories": "/".join(dict.fromkeys(c.lower() for c in parts.categories)),
        "output_ext": ".html",
        "collection": parts.collection,
        "path": parts.path,
    }


def post_url(pattern: str, parts: UrlParts) -> str:
    """The URL Jekyll gives a post under `pattern` (a pattern, not a style name: `pattern_of`)."""
    values = placeholders(parts)
    url = pattern
    for key in sorted(values, key=len, reverse=True):  # ":i_month" before ":month"
        url = url.replace("{:" + key + "}", values[key]).replace(":" + key, values[key])
    return finish(url)


def finish(url: str) -> str:
    """Jekyll's sanitizing: one leading `/`, no `//`, no `/./`; `.html` added to an extensionless last segment."""
    url = "/" + re.sub(r"/{2,}", "/", url.replace("/./", "/")).lstrip("/")
    last = url.rsplit("/", 1)[-1]
    if last and "." not in last:
        url += ".html"
    return url


# a root-relative link's path: a Markdown link's `](/path` or a raw `href="/path"` (not `//host`)
_ROOT_LINK = re.compile(r"""(\]\(\s*<?|\bhref\s*=\s*["']?)(/(?!/)[^\s)"'#?<>]*)""")


def polyglot_links(default_lang: str) -> Rule:
    """jekyll-polyglot's URL relativization, as a rule: in a page of another language than `default_lang`, polyglot
    wrote every root-relative link as the same path under `/LANG/` (a `ko` post's `/posts/a/` led to
    `/ko/posts/a/`). The link is rewritten so where the import has that page in the post's language; one to a page
    only the default language has (polyglot served it there as a fallback copy) or to a file stays as written."""

    def rule(text: str, ctx: RuleContext) -> str:
        lang = str(ctx.doc.meta.get("lang") or default_lang)
        if lang == default_lang or ("](/" not in text and "href" not in text):
            return text
        urls = ctx.urls.urls

        def swap(m: re.Match[str], _start: int) -> str:
            path = m.group(2)
            local = f"/{lang}{path}"
            return m.group(1) + local if not path.startswith(f"/{lang}/") and local in urls else m.group(0)

        return sub_outside_code(_ROOT_LINK, swap, text)

    return rule
