"""Reads `site.yml` into a SiteConfig; every setting a user can make lives here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from site_builder.errors import SiteError

CONFIG_NAME = "site.yml"


@dataclass
class SiteConfig:
    """Site-wide settings, with the defaults a new site gets."""

    root: Path
    title: str = "My Blog"
    subtitle: str = ""
    url: str = ""
    author: str = ""
    language: str = "en"
    theme: str = "default"
    posts_per_page: int = 10
    permalink: str = "/blog/:year/:slug/"
    content_dir: str = "content"
    posts_dir: str = "content/posts"
    feed_path: str = "feed.xml"
    feed_id: str = ""
    feed_limit: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return self.url.rstrip("/")

    @property
    def theme_dir(self) -> Path:
        return self.root / "themes" / self.theme

    def absolute(self, path: str) -> str:
        """The absolute URL of a site path such as `/blog/2025/x/`."""
        return f"{self.base_url}{path}" if self.base_url else path


_FIELDS = {
    "title": str, "subtitle": str, "url": str, "author": str, "language": str,
    "theme": str, "posts_per_page": int, "permalink": str, "feed_path": str,
    "feed_id": str, "feed_limit": int, "content_dir": str, "posts_dir": str,
}


def load_config(root: Path) -> SiteConfig:
    """Read `root/site.yml`; a missing file gives the defaults."""
    path = root / CONFIG_NAME
    cfg = SiteConfig(root=root)
    if not path.exists():
        return cfg
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SiteError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        line = exc.problem_mark.line + 1 if getattr(exc, "problem_mark", None) else None
        raise SiteError(f"invalid YAML: {getattr(exc, 'problem', exc)}", path, line) from None
    if not isinstance(data, dict):
        raise SiteError("site.yml must be a mapping of settings", path, 1)
    for key, value in data.items():
        kind = _FIELDS.get(key)
        if kind is None:
            cfg.extra[key] = value
            continue
        if isinstance(value, dict) and key == "author":
            value = value.get("name", "")
        try:
            setattr(cfg, key, kind(value if value is not None else ""))
        except (TypeError, ValueError):
            raise SiteError(f"setting {key!r} must be {kind.__name__}, got {value!r}", path) from None
    if cfg.posts_per_page < 1:
        raise SiteError("posts_per_page must be at least 1", path)
    return cfg
