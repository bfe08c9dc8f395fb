"""sitemap.xml and robots.txt."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote

from site_builder.config import SiteConfig
from site_builder.write.feeds import escape, iso_date


def sitemap(config: SiteConfig, urls: list[tuple[str, datetime | None]]) -> str:
    """sitemap.xml listing every page with its last modification date where known."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for url, modified in urls:
        lastmod = f"<lastmod>{iso_date(modified)}</lastmod>" if modified else ""
        loc = quote(config.absolute(url), safe=":/?#[]@!$&'()*+,;=%~")  # sitemaps want ASCII: /你好/ -> /%E4%BD%A0.../
        out.append(f"<url><loc>{escape(loc)}</loc>{lastmod}</url>")
    out.append("</urlset>")
    return "\n".join(out) + "\n"


def robots(config: SiteConfig) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {config.absolute('/sitemap.xml')}\n"
