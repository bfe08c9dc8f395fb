"""Reads `site.yml` into a SiteConfig; every setting a user can make lives here."""

from __future__ import annotations

import re
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
    "feed_id": str, "feed_limit": int, "posts_dir": str,
}


class SafeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """PyYAML's safe loader, but an impossible date (`2024-13-45`) is a YAML error with a line, not a ValueError."""


def _construct_timestamp(loader, node):
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError) as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a valid date ({exc})", node.start_mark) from None


SafeLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


def yaml_error_line(exc: yaml.YAMLError, text: str) -> int | None:
    """1-based line (within `text`) of a YAML error; an error found only at the end of the text
    (an unclosed `[` or quote) is reported where the unclosed construct started."""
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    if mark is None:
        return context.line + 1 if context is not None else None
    if context is not None and not text[mark.index:].strip():
        return context.line + 1
    return mark.line + 1


def _key_line(text: str, key: str) -> int | None:
    for n, line in enumerate(text.split("\n"), 1):
        if re.match(rf"{re.escape(key)}\s*:", line):
            return n
    return None


def load_config(root: Path) -> SiteConfig:
    """Read `root/site.yml`; a missing file gives the defaults. Errors name `site.yml` relative to the root."""
    path = root / CONFIG_NAME
    cfg = SiteConfig(root=root)
    if not path.exists():
        return cfg
    rel = CONFIG_NAME
    data_bytes = path.read_bytes()
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data_bytes[: exc.start].count(b"\n") + 1
        raise SiteError(f"not UTF-8 text (invalid byte 0x{data_bytes[exc.start]:02x})", rel, line) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = yaml.load(text, Loader=SafeLoader)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SiteError(f"invalid YAML: {problem}", rel, yaml_error_line(exc, text)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SiteError("site.yml must be a mapping of settings", rel, 1)
    for key, value in data.items():
        kind = _FIELDS.get(key)
        if kind is None:
            cfg.extra[key] = value
            continue
        if isinstance(value, dict) and key == "author":
            value = value.get("name", "")
        line = _key_line(text, str(key))
        if isinstance(value, (list, dict)) or (kind is int and isinstance(value, (bool, float))):
            raise SiteError(f"setting {key!r} must be {kind.__name__}, got {value!r}", rel, line)
        try:
            setattr(cfg, key, kind(value if value is not None else ""))
        except (TypeError, ValueError):
            raise SiteError(f"setting {key!r} must be {kind.__name__}, got {value!r}", rel, line) from None
    if cfg.posts_per_page < 1:
        raise SiteError(f"posts_per_page must be at least 1, got {cfg.posts_per_page}", rel,
                        _key_line(text, "posts_per_page"))
    if not cfg.theme or cfg.theme.startswith(".") or any(c in cfg.theme for c in "/\\\0"):
        raise SiteError(f"theme must be the name of a folder in themes/, got {cfg.theme!r}", rel, _key_line(text, "theme"))
    return cfg
