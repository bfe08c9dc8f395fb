"""What link previews and search engines read of a post: Open Graph and Twitter card values, and JSON-LD."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import markupsafe

from site_builder.config import SiteConfig
from site_builder.config.authors import author_names
from site_builder.util.urls import climbs_out
from site_builder.write.titles import title_text

_FIRST_IMG = re.compile(r"<img\s[^>]*?\bsrc=\"([^\"]+)\"")


@dataclass
class Card:
    """A post's preview: absolute URLs, plain text, and its JSON-LD (safe inside a `<script>`)."""

    title: str
    description: str
    url: str
    image: str  # "" when the post has no picture
    json_ld: markupsafe.Markup


def absolute_image(config: SiteConfig, permalink: str, src: str) -> str:
    """An image address as a preview needs it: absolute (a site path under the site's `url`, a relative one
    against the post's URL); "" for what is no http(s) image (`data:`, `javascript:`) or climbs out of the site
    (`../../../../etc/passwd`: load warns)."""
    src = src.strip()
    if re.match(r"https?://", src, re.I):
        return src
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", src) or src.startswith("//") or climbs_out(permalink, src):
        return ""
    return config.absolute(urljoin(permalink, src))


def description(view: Any) -> str:
    """What lists show of the post: its summary, else its excerpt (PostView.summary; `excerpt.py`, made once with
    the fragment)."""
    return str(view.summary)


def script_json(data: object) -> markupsafe.Markup:
    """JSON for a `<script>` element: `<`, `>` and `&` as \\u escapes, so no text in it can close the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return markupsafe.Markup(text)


def card(config: SiteConfig, view: Any) -> Card:
    """A post's (or page's) preview: front matter `image`, else its first image; its description; JSON-LD."""
    post = view.post
    url = config.absolute(post.permalink)
    src = post.image  # front matter's `image` (`cover`, `thumbnail`, `og_image`), else the first in the text
    if not src:
        m = _FIRST_IMG.search(view.html)
        src = html.unescape(m[1]) if m else ""
    image = absolute_image(config, post.permalink, src) if src else ""
    text = description(view)
    author = author_names(post.meta.get("author")) or config.author
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "WebPage" if post.page else "BlogPosting",
        "headline": title_text(post.title),
        "url": url,
        "mainEntityOfPage": url,
        "inLanguage": view.html_lang,
    }
    if not post.page:
        data["datePublished"] = post.date.isoformat(timespec="seconds")
        data["dateModified"] = post.updated.isoformat(timespec="seconds")
        data["author"] = (
            {"@type": "Person", "name": author}
            if author
            else {"@type": "Organization", "name": config.title, "url": config.absolute("/")}
        )
        if post.tags:
            data["keywords"] = list(post.tags)
    if text:
        data["description"] = text
    if image:
        data["image"] = image
    return Card(title_text(post.title), text, url, image, script_json(data))
