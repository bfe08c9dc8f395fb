"""Files every site gets besides its pages: robots.txt, the code stylesheet, the themes' static folders."""

from __future__ import annotations

from site_builder.config import SiteConfig
from site_builder.util.hashing import content_key
from site_builder.write.codestyle import pygments_css
from site_builder.write.output import OutputWriter
from site_builder.write.sitemap import robots
from site_builder.write.theme import Theme


def write_static(writer: OutputWriter, config: SiteConfig, theme: Theme, site_key: str) -> None:
    """robots.txt, the code stylesheet and the themes' static files (the site's theme first: its files win)."""
    writer.put("robots.txt", content_key(site_key, "robots"), lambda: robots(config))
    styles = config.highlight
    writer.put("css/pygments.css", content_key(site_key, "pygments"), lambda: pygments_css(styles.light, styles.dark))
    for d in theme.dirs:
        if (d / "static").is_dir():
            writer.copy_tree(d / "static")
