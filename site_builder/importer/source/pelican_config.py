"""A Pelican site's settings from `pelicanconf.py`, read as text and never executed: each top-level assignment of a
literal (`NAME = 'x'`, lists, dicts, numbers, True/False/None) is read with `ast.literal_eval`; anything else (an
expression, an import, a function call) is skipped, and Pelican's default is used for it.

Kept: SITENAME, SITESUBTITLE, SITEURL, AUTHOR, PATH, ARTICLE_PATHS, PAGE_PATHS, STATIC_PATHS, ARTICLE_URL,
ARTICLE_SAVE_AS, PAGE_URL, PAGE_SAVE_AS, ARTICLE_LANG_URL, ARTICLE_LANG_SAVE_AS, PAGE_LANG_URL,
PAGE_LANG_SAVE_AS, DEFAULT_METADATA, TIMEZONE, DEFAULT_LANG,
DEFAULT_CATEGORY, USE_FOLDER_AS_CATEGORY, SLUGIFY_SOURCE, CODE_DIR, NOTEBOOK_DIR, MENUITEMS, DISPLAY_PAGES_ON_MENU.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from datetime import timezone, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from site_builder.errors import SiteError

DEFAULTS: dict[str, Any] = {
    "SITENAME": "A Pelican Blog",
    "SITESUBTITLE": "",
    "SITEURL": "",
    "AUTHOR": "",
    "PATH": "content",
    "ARTICLE_PATHS": [""],
    "PAGE_PATHS": ["pages"],
    "STATIC_PATHS": ["images"],
    "ARTICLE_URL": "{slug}.html",
    "ARTICLE_SAVE_AS": "{slug}.html",
    "ARTICLE_LANG_URL": "{slug}-{lang}.html",
    "ARTICLE_LANG_SAVE_AS": "{slug}-{lang}.html",
    "PAGE_URL": "pages/{slug}.html",
    "PAGE_SAVE_AS": "pages/{slug}.html",
    "PAGE_LANG_URL": "pages/{slug}-{lang}.html",
    "PAGE_LANG_SAVE_AS": "pages/{slug}-{lang}.html",
    "DEFAULT_METADATA": {},
    "TIMEZONE": "UTC",
    "DEFAULT_LANG": "en",
    "DEFAULT_CATEGORY": "misc",
    "USE_FOLDER_AS_CATEGORY": True,
    "SLUGIFY_SOURCE": "title",
    "CODE_DIR": "code",
    "NOTEBOOK_DIR": "notebooks",
    "MENUITEMS": [],
    "DISPLAY_PAGES_ON_MENU": True,
}


def read_settings(path: Path) -> dict[str, Any]:
    """Pelican's defaults overridden by each literal assignment in `path` (module docstring)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        raise SiteError(f"cannot read the Pelican settings: {exc}", path) from None
    settings = dict(DEFAULTS)
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id.isupper():
                settings[target.id] = value
    return settings


@dataclass
class PelicanSite:
    """The settings every article's conversion needs."""

    settings: dict[str, Any]
    content: Path  # PATH, absolute
    zone: tzinfo

    def get(self, key: str) -> Any:
        return self.settings.get(key, DEFAULTS.get(key))

    def paths(self, key: str) -> list[str]:
        value = self.get(key)
        items = [value] if isinstance(value, str) else value if isinstance(value, (list, tuple)) else []
        return [str(v).strip("/") for v in items]


def pelican_site(root: Path, config: Path) -> PelicanSite:
    settings = read_settings(config)
    try:
        zone: tzinfo = ZoneInfo(str(settings.get("TIMEZONE") or "UTC"))
    except (ZoneInfoNotFoundError, ValueError):
        zone = timezone.utc
    return PelicanSite(settings, (root / str(settings.get("PATH") or "content")).resolve(), zone)
