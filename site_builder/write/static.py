"""Files every site gets besides its pages: robots.txt, the code stylesheet, the site's `static/` folder and the
themes' static folders."""

from __future__ import annotations

import os
from pathlib import Path

from site_builder.config import SiteConfig
from site_builder.errors import SiteError
from site_builder.util.hashing import content_key
from site_builder.write.codestyle import pygments_css
from site_builder.write.output import OutputWriter
from site_builder.write.sitemap import robots
from site_builder.write.theme import Theme


def write_static(writer: OutputWriter, config: SiteConfig, theme: Theme, site_key: str, diagrams: bool = False) -> None:
    """robots.txt, the code stylesheet, the site's static folder (`static_dir`, copied as it is to the output's root,
    as Hugo's: its files win over the themes', and its robots.txt over the one made) and the themes' static files
    (the site's theme first: its files win). A file of the site's static folder where the build writes a page, a
    feed or an image is an error naming it: called after those are staged."""
    own = config.root / config.static_dir
    names = set(static_names(own))
    if "robots.txt" not in names:
        writer.put("robots.txt", content_key(site_key, "robots"), lambda: robots(config))
    styles = config.highlight
    writer.put("css/pygments.css", content_key(site_key, "pygments"), lambda: pygments_css(styles.light, styles.dark))
    site = os.path.realpath(config.root)
    for rel in sorted(names):
        where = f"{config.static_dir.rstrip('/')}/{rel}"
        if rel in writer.keys:
            raise SiteError(f"{where} would replace /{rel}, which the site makes (rename or move the file)", where)
        if not Path(os.path.realpath(own / rel)).is_relative_to(site):  # the cache key, ~/.ssh: published
            raise SiteError(
                f"{where} is a link to a file outside the site; it is not published (copy the file in)", where
            )
    if names:
        writer.copy_tree(own)
    for d in theme.dirs:
        if (d / "static").is_dir():
            writer.copy_tree(d / "static")
    if diagrams:  # Mermaid (3.5 MB, a diagram type's code loaded when a page draws one), for pages that need it
        mermaid = next((d / "vendor/mermaid" for d in theme.dirs if (d / "vendor/mermaid").is_dir()), None)
        if mermaid is not None:
            writer.copy_tree(mermaid, "js/mermaid")


def static_names(folder: Path) -> list[str]:
    """The files of a static folder as output paths (`img/a.png`), hidden ones left out: [] for no folder."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            found.append(rel.as_posix())
    return found
