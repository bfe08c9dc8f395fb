"""A Hugo page's URL by Hugo's own rules (hugolib/page paths, resources/page/permalinks.go).

- `url:` in the front matter is the URL as written (`/a/b` served as `/a/b/`); on a multilingual site a `url`
  without a leading `/` is under the language's prefix.
- Else the section's `[permalinks]` pattern, with Hugo's tokens: `:year :month :monthname :day :weekday
  :weekdayname :yearday :section :sections :title :slug :slugorfilename :slugorcontentbasename :filename
  :contentbasename`. `:title`, `:slug`... are "urlized" (Hugo's path sanitizing, lower-cased unless
  `disablePathToLower`); `:slug` falls back to the title, `:slugorfilename` to the file name.
- Else the file's own path below the content folder: `post/a.md` -> `/post/a/`, a bundle `post/a/index.md` ->
  `/post/a/`, its last part replaced by `slug:`, sanitized but keeping its case (as the sites' built output shows).
- `uglyURLs`: `/post/a.html` instead of `/post/a/`. The language prefix (`/en`) for a language other than the
  default, and for the default too with `defaultContentLanguageInSubdir`.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from site_builder.importer.source.hugo_config import HugoSite


def sanitize(text: str) -> str:
    """Hugo's `UnicodeSanitize`: letters, digits, marks and `./\\_#+~-@` kept, a run of spaces one `-`, the rest
    dropped."""
    out: list[str] = []
    hyphen_next = was_hyphen = False
    for ch in text:
        category = unicodedata.category(ch)
        allowed = ch in "./\\_#+~-@" or category[0] in "LM" or category == "Nd"  # Go's IsLetter, IsMark, IsDigit
        if allowed:
            was_hyphen = ch == "-"
            if hyphen_next and not was_hyphen:
                out.append("-")
            hyphen_next = False
            out.append(ch)
        elif out and not was_hyphen and ch.isspace():
            hyphen_next = True
    return "".join(out)


def urlize(text: str, site: HugoSite) -> str:
    """Hugo's `urlize` of a title or slug: sanitized, lower-cased unless `disablePathToLower`."""
    path = sanitize(text.strip())
    return path if site.config.get("disablepathtolower") else path.lower()


@dataclass(frozen=True)
class PagePath:
    """What a page's URL is made from."""

    rel: str  # path below the language's content folder, `/`-separated (`post/a.md`, `post/b/index.md`)
    title: str
    slug: str  # `slug:` ("" when none)
    date: datetime
    lang: str
    url: str = ""  # `url:` ("" when none)

    @property
    def bundle(self) -> bool:
        return posixpath.basename(self.rel).split(".")[0] == "index"

    @property
    def sections(self) -> list[str]:
        parts = self.rel.split("/")[:-1]
        return parts[:-1] if self.bundle else parts

    @property
    def base_name(self) -> str:
        """Hugo's ContentBaseName: the file name without extension (and language), a bundle's folder name."""
        parts = self.rel.split("/")
        return parts[-2] if self.bundle and len(parts) > 1 else parts[-1].split(".")[0]


def _tokens(page: PagePath, site: HugoSite) -> dict[str, str]:
    d = page.date
    slug = urlize(page.slug, site) if page.slug else ""
    title = urlize(page.title, site)
    name = urlize(page.base_name, site)
    return {
        "year": f"{d.year:04d}",
        "month": f"{d.month:02d}",
        "monthname": d.strftime("%B"),
        "day": f"{d.day:02d}",
        "weekday": str((d.weekday() + 1) % 7),
        "weekdayname": d.strftime("%A"),
        "yearday": str(d.timetuple().tm_yday),
        "section": page.sections[0] if page.sections else "",
        "sections": "/".join(page.sections),
        "title": title,
        "slug": slug or title,
        "slugorfilename": slug or name,
        "slugorcontentbasename": slug or name,
        "filename": name,
        "contentbasename": name,
    }


def _expand(pattern: str, page: PagePath, site: HugoSite) -> str:
    values = _tokens(page, site)
    return re.sub(r":([a-z]+)", lambda m: values.get(m.group(1), m.group(0)), pattern)


def _finish(path: str, site: HugoSite) -> str:
    path = "/" + re.sub(r"/{2,}", "/", path).lstrip("/")
    last = path.rstrip("/").rsplit("/", 1)[-1]
    if path.endswith("/") or "." not in last:
        if site.ugly and path != "/" and not path.endswith("/"):
            return path + ".html"
        return path.rstrip("/") + "/"
    return path


def page_url(page: PagePath, site: HugoSite) -> str:
    """The URL Hugo gives `page` (module docstring)."""
    prefix = site.prefix(page.lang)
    if page.url:
        url = page.url.strip()
        if not url.startswith("/"):
            url = f"{prefix}/{url}"
        return "/" + re.sub(r"/{2,}", "/", url).lstrip("/") if url.endswith("/") or "." in url else _finish(url, site)
    section = page.sections[0] if page.sections else ""
    pattern = site.permalinks.get(section)
    if pattern and page.sections:
        return _finish(prefix + "/" + _expand(pattern, page, site), site)
    name = sanitize(page.slug) if page.slug else sanitize(page.base_name)
    folder = "/".join(sanitize(s) for s in page.sections)
    path = f"{prefix}/{folder}/{name}"
    if site.ugly:
        return _finish(path, site) if "." in name else "/" + re.sub(r"/{2,}", "/", path).lstrip("/") + ".html"
    return _finish(path + "/", site)
