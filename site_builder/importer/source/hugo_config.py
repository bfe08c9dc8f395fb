"""A Hugo site's configuration, as the Hugo reader needs it (`HugoSite`).

Read from `hugo.toml|yaml|yml|json` or `config.toml|yaml|yml` at the root, merged with a `config/_default/`
folder (its `hugo.*`/`config.*`, and `params.*`, `menus.*`, `languages.*`, `permalinks.*`... each under its own
key, as Hugo merges them). Keys are read case-insensitively, as Hugo does (`baseURL` = `baseurl`).

What is kept: `baseURL`, `title`, `author` (or `params.author`), `params.description`/`params.subtitle` (the
subtitle), `defaultContentLanguage`, `defaultContentLanguageInSubdir`, `[languages]` (each one's `contentDir`,
`weight`, `title`), `[permalinks]` (section -> pattern; Hugo 0.120's `[permalinks.page]` too), `uglyURLs`,
`contentDir`, `staticDir`, `params.mainSections`, the `main` menu, `timeZone`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml

from site_builder.errors import SiteError

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same library, before it was in the standard library
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

_SUFFIXES = (".toml", ".yaml", ".yml", ".json")
TomlError = tomllib.TOMLDecodeError


def read_toml(text: str) -> dict[str, Any]:
    """TOML text as a mapping (Hugo's config and `+++` front matter); TomlError when it is not TOML."""
    data: dict[str, Any] = tomllib.loads(text)
    return data


def _lower(value: Any) -> Any:
    """Every mapping key lower-cased, as Hugo reads its config."""
    if isinstance(value, dict):
        return {str(k).lower(): _lower(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lower(v) for v in value]
    return value


def load_data(path: Path) -> dict[str, Any]:
    """One TOML, YAML or JSON config file as a mapping (keys lower-cased); a SiteError when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            data = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
        raise SiteError(f"cannot read the Hugo config: {exc}", path) from None
    return _lower(data) if isinstance(data, dict) else {}


def _merge(into: dict[str, Any], data: dict[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into.setdefault(key, value)


def read_config(root: Path, config: Path) -> dict[str, Any]:
    """The merged config: the root file first, then `config/_default/`'s files (the root's values win)."""
    merged: dict[str, Any] = {}
    if config.parent == root:
        _merge(merged, load_data(config))
    folder = root / "config" / "_default"
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.suffix not in _SUFFIXES or not path.is_file():
                continue
            data = load_data(path)
            name = path.stem.lower()
            _merge(merged, data if name in ("hugo", "config") else {name: data})
    return merged


@dataclass(frozen=True)
class Language:
    code: str
    content_dir: str  # "" when the language's files are named `x.CODE.md` in the one content folder
    weight: int
    title: str = ""


@dataclass
class HugoSite:
    """What every page's conversion needs of the config (module docstring)."""

    config: dict[str, Any]
    base_url: str
    default_lang: str
    languages: dict[str, Language]  # {} for a site of one language
    in_subdir: bool  # defaultContentLanguageInSubdir
    permalinks: dict[str, str]  # section -> pattern
    ugly: bool
    content_dir: str
    static_dirs: list[str]
    main_sections: list[str]
    zone: tzinfo
    menu: list[dict[str, Any]] = field(default_factory=list)
    dates: dict[str, list[str]] = field(default_factory=dict)  # each date's keys, in order (`_date_keys`)
    git_dates: dict[Path, datetime] = field(default_factory=dict)  # `:git`: each file's last commit (gitdates.py)

    @property
    def params(self) -> dict[str, Any]:
        value = self.config.get("params")
        return value if isinstance(value, dict) else {}

    def prefix(self, lang: str) -> str:
        """The URL prefix of a language's pages: "" or `/CODE`."""
        if not self.languages or (lang == self.default_lang and not self.in_subdir):
            return ""
        return f"/{lang}"


def _permalinks(config: dict[str, Any]) -> dict[str, str]:
    links = config.get("permalinks")
    if not isinstance(links, dict):
        return {}
    page = links.get("page")
    merged = {k: v for k, v in links.items() if isinstance(v, str)}
    if isinstance(page, dict):  # Hugo 0.120: [permalinks.page] section = pattern
        merged.update({k: v for k, v in page.items() if isinstance(v, str)})
    return merged


def _languages(config: dict[str, Any], default: str) -> dict[str, Language]:
    langs = config.get("languages")
    if not isinstance(langs, dict) or len(langs) < 2:
        return {}
    content = str(config.get("contentdir") or "content")
    out = {}
    for code, settings in langs.items():
        settings = settings if isinstance(settings, dict) else {}
        if settings.get("disabled"):
            continue
        folder = str(settings.get("contentdir") or "")
        out[code] = Language(
            code,
            folder if folder != content else "",
            int(settings.get("weight") or 0),
            str(settings.get("title") or ""),
        )
    ordered = sorted(out.values(), key=lambda lang: (lang.code != default, lang.weight, lang.code))
    return {lang.code: lang for lang in ordered} if len(ordered) > 1 else {}


def _zone(config: dict[str, Any]) -> tzinfo:
    try:
        return ZoneInfo(str(config["timezone"])) if config.get("timezone") else timezone.utc
    except (ZoneInfoNotFoundError, ValueError):
        return timezone.utc


def hugo_site(config: dict[str, Any]) -> HugoSite:
    params = config.get("params") if isinstance(config.get("params"), dict) else {}
    assert isinstance(params, dict)
    code = str(config.get("defaultcontentlanguage") or config.get("languagecode") or "en").lower()
    static = config.get("staticdir") or "static"
    main = params.get("mainsections") or config.get("mainsections") or []
    menus = config.get("menus") or config.get("menu") or {}
    menu = menus.get("main") if isinstance(menus, dict) else None
    return HugoSite(
        config=config,
        base_url=str(config.get("baseurl") or ""),
        default_lang=code,
        languages=_languages(config, code),
        in_subdir=bool(config.get("defaultcontentlanguageinsubdir")),
        permalinks=_permalinks(config),
        ugly=bool(config.get("uglyurls")),
        content_dir=str(config.get("contentdir") or "content"),
        static_dirs=[str(s) for s in (static if isinstance(static, list) else [static])],
        main_sections=[str(s) for s in (main if isinstance(main, list) else [main])],
        zone=_zone(config),
        menu=[m for m in menu if isinstance(m, dict)] if isinstance(menu, list) else [],
        dates=_date_keys(config),
    )


DATE_DEFAULTS = {  # Hugo's `:default` list of each of a page's dates, with their aliases
    "date": ("date", "publishdate", "pubdate", "published", "lastmod", "modified"),
    "lastmod": (":git", "lastmod", "modified", "date", "publishdate", "pubdate", "published"),
    "publishdate": ("publishdate", "pubdate", "published", "date"),
    "expirydate": ("expirydate", "unpublishdate"),
}


def _date_keys(config: dict[str, Any]) -> dict[str, list[str]]:
    """Each date's front matter keys and `:` sources in the order the config's `[frontmatter]` list gives them
    (lower-cased, `:default` expanded; Hugo's default list without one)."""
    found = config.get("frontmatter")
    lists = {str(k).lower(): v for k, v in found.items()} if isinstance(found, dict) else {}
    keys = {}
    for which, default in DATE_DEFAULTS.items():
        order = lists.get(which)
        named = [str(k).lower() for k in order] if isinstance(order, list) and order else [":default"]
        keys[which] = [k for n in named for k in (default if n == ":default" else (n,))]
    return keys
