"""site.yml's links out of the pages: `social` (profile links), `nav` (pages in the header) and `favicon`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from site_builder.errors import SiteError

CONFIG_NAME = "site.yml"
_SCHEMES = ("http", "https", "mailto")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_UNSAFE = re.compile(r"[\x00-\x20\x7f\"'<>\\`]")


@dataclass(frozen=True)
class SocialLink:
    """One profile of the site's author: `rel="me"` in every page's head, and a link in the footer."""

    name: str
    url: str


def link_problem(url: str, schemes: tuple[str, ...] = _SCHEMES) -> str | None:
    """Why `url` cannot be an address a page links to (no `javascript:`, no `data:`), or None."""
    if _UNSAFE.search(url):
        return "it contains a space, a quote, a backslash or a control character"
    m = _SCHEME.match(url)
    if m is None or m[1].lower() not in schemes:
        return f"only {', '.join(s + ':' for s in schemes)} addresses are allowed"
    if m[1].lower() != "mailto" and not url[m.end() :].startswith("//"):
        return "an http(s) address needs a host (https://example.org/)"
    return None


def social_links(raw: Any, lines: dict[str, int]) -> list[SocialLink]:
    """`social:` as a mapping `name: url` or a list of `{name, url}`; a bad entry is an error at its line."""
    line = lines.get("social")
    if raw is None:
        return []
    if isinstance(raw, dict):
        entries = [(k, v, lines.get(f"social.{k}", line)) for k, v in raw.items()]
    elif isinstance(raw, list) and all(isinstance(e, dict) and set(e) <= {"name", "url"} for e in raw):
        entries = [(e.get("name"), e.get("url"), line) for e in raw]
    else:
        raise SiteError("social must map names to addresses (github: https://github.com/me)", CONFIG_NAME, line)
    links = []
    for name, url, where in entries:
        if not isinstance(name, str) or not name.strip() or not isinstance(url, str):
            raise SiteError(f"social: {name!r}: {url!r} must be a name and an address", CONFIG_NAME, where)
        problem = link_problem(url.strip())
        if problem:
            raise SiteError(f"social: {name}: {url!r} cannot be linked: {problem}", CONFIG_NAME, where)
        links.append(SocialLink(name.strip(), url.strip()))
    return links


def nav_names(raw: Any, lines: dict[str, int]) -> list[str]:
    """`nav:` the pages shown in the header, by file name without `.md` (a page's `translation_key`)."""
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(n, str) and n.strip() for n in raw):
        raise SiteError(f"nav must be a list of page names such as [about], got {raw!r}", CONFIG_NAME, lines.get("nav"))
    return [n.strip().removesuffix(".md") for n in raw]


def favicon_href(value: str, line: int | None) -> str:
    """`favicon:` as written in pages: an http(s) address, or a site path made root-relative (`icon.png` ->
    `/icon.png`)."""
    value = value.strip()
    if not value:
        return ""
    if _SCHEME.match(value):
        problem = link_problem(value, ("http", "https"))
    else:
        problem = _UNSAFE.search(value) and "it contains a space, a quote or a control character"
        problem = problem or (".." in value.split("/") and "'..' segments are not allowed") or None
        value = "/" + value.lstrip("/")
    if problem:
        raise SiteError(f"favicon {value!r} cannot be linked: {problem}", CONFIG_NAME, line)
    return value
