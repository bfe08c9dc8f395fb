"""Reads `site.yml` into a SiteConfig; every setting a user can make lives here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from site_builder.errors import SiteError

CONFIG_NAME = "site.yml"


_DATE_FORMATS = {  # (long, short) strftime formats a language gets unless site.yml sets its own
    "en": ("%b %-d, %Y", "%b %d"),
    "zh": ("%Y年%-m月%-d日", "%-m月%-d日"),
    "ja": ("%Y年%-m月%-d日", "%-m月%-d日"),
    "ko": ("%Y년 %-m월 %-d일", "%-m월 %-d일"),
}
_NAMES = {
    "en": "English",
    "zh": "中文",
    "ja": "日本語",
    "ko": "한국어",
    "fr": "Français",
    "de": "Deutsch",
    "es": "Español",
}
_HTML_LANG = {"zh": "zh-Hans"}


@dataclass
class Language:
    """One language of the site: its code, display name, URL prefix, date formats and `<html lang>`."""

    code: str
    name: str
    prefix: str  # "/" for the default language, "/zh/" for the others unless set
    date_format: str
    short_date_format: str
    html_lang: str  # BCP 47 tag for lang attributes: zh -> zh-Hans
    title: str = ""  # optional site title and subtitle in this language
    subtitle: str = ""

    @classmethod
    def default_for(cls, code: str, default: bool) -> Language:
        base = code.split("-")[0].lower()
        long, short = _DATE_FORMATS.get(base, ("%Y-%m-%d", "%m-%d"))
        return cls(
            code, _NAMES.get(base, code), "/" if default else f"/{code}/", long, short, _HTML_LANG.get(code, code)
        )


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
    feed_limit: int = 10  # newest posts in each feed, as jekyll-feed; 0 = all
    languages: dict[str, Language] = field(default_factory=dict)  # every language, the default (`language`) first
    extra: dict = field(default_factory=dict)

    def lang(self, code: str) -> Language:
        """A configured language, or the default one for a post in a language the site does not list."""
        return self.languages.get(code) or self.languages[self.language]

    def html_lang(self, code: str) -> str:
        found = self.languages.get(code)
        return found.html_lang if found else _HTML_LANG.get(code, code)

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
    "title": str,
    "subtitle": str,
    "url": str,
    "author": str,
    "language": str,
    "theme": str,
    "posts_per_page": int,
    "permalink": str,
    "feed_path": str,
    "feed_id": str,
    "feed_limit": int,
    "posts_dir": str,
}


class SafeLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """PyYAML's safe loader, but an impossible date (`2024-13-45`) is a YAML error with a line, not a ValueError."""


def _construct_timestamp(loader, node):
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError) as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} is not a valid date ({exc})", node.start_mark
        ) from None


SafeLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


def yaml_error_line(exc: yaml.YAMLError, text: str) -> int | None:
    """1-based line (within `text`) of a YAML error; an error found only at the end of the text
    (an unclosed `[` or quote) is reported where the unclosed construct started."""
    mark = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    if mark is None:
        return context.line + 1 if context is not None else None
    if context is not None and not text[mark.index :].strip():
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
        cfg.languages = _load_languages(cfg, None, "")
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
    languages = data.pop("languages", None)
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
    cfg.languages = _load_languages(cfg, languages, text)
    if cfg.posts_per_page < 1:
        raise SiteError(
            f"posts_per_page must be at least 1, got {cfg.posts_per_page}", rel, _key_line(text, "posts_per_page")
        )
    if cfg.feed_limit < 0:
        raise SiteError(
            f"feed_limit must be 0 (every post) or more, got {cfg.feed_limit}", rel, _key_line(text, "feed_limit")
        )
    if not cfg.theme or cfg.theme.startswith(".") or any(c in cfg.theme for c in "/\\\0"):
        raise SiteError(
            f"theme must be the name of a folder in themes/, got {cfg.theme!r}", rel, _key_line(text, "theme")
        )
    return cfg


_TAKEN = ("blog", "page", "css", "js", "images")  # first path segments the default language's pages and assets use
_LANG_FIELDS = {"name", "prefix", "date_format", "short_date_format", "html_lang", "title", "subtitle"}


def _load_languages(cfg: SiteConfig, data, text: str) -> dict[str, Language]:
    """`languages:` of site.yml: a mapping code -> settings (or a list of codes); the default language comes first."""
    rel = CONFIG_NAME
    line = _key_line(text, "languages")
    if data is None:
        return {cfg.language: Language.default_for(cfg.language, True)}
    if isinstance(data, list) and all(isinstance(c, str) for c in data):
        data = {c: {} for c in data}
    if not isinstance(data, dict) or not data:
        raise SiteError("'languages' must map language codes to their settings, e.g. zh: {name: 中文}", rel, line)
    if cfg.language not in data:
        raise SiteError(f"the default language {cfg.language!r} ('language') is not listed in 'languages'", rel, line)
    out: dict[str, Language] = {}
    prefixes: dict[str, str] = {}
    for code in [cfg.language] + [c for c in data if c != cfg.language]:
        settings = data[code] or {}
        code_line = _nested_key_line(text, str(code), line)
        if not isinstance(code, str) or not re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*", code):
            raise SiteError(f"{code!r} is not a language code such as en, zh or pt-BR", rel, code_line)
        if not isinstance(settings, dict):
            raise SiteError(
                f"settings of language {code!r} must be a mapping (name, prefix, date_format)", rel, code_line
            )
        unknown = sorted(set(settings) - _LANG_FIELDS)
        if unknown:
            raise SiteError(
                f"unknown setting {unknown[0]!r} for language {code!r} (known: {', '.join(sorted(_LANG_FIELDS))})",
                rel,
                _nested_key_line(text, unknown[0], code_line),
            )
        lang = Language.default_for(code, code == cfg.language)
        for key, value in settings.items():
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise SiteError(
                    f"setting {key!r} of language {code!r} must be text, got {value!r}",
                    rel,
                    _nested_key_line(text, key, code_line),
                )
            setattr(lang, key, str(value))
        prefix = "/" + lang.prefix.strip().strip("/") + "/" if lang.prefix.strip("/ ") else "/"
        prefix_line = _nested_key_line(text, "prefix", code_line) or code_line
        if code == cfg.language and prefix != "/":
            raise SiteError(
                f"the default language ({code}) is served at '/': remove its prefix {prefix}", rel, prefix_line
            )
        if code != cfg.language and prefix == "/":
            raise SiteError(
                f"language {code!r}: needs a prefix of its own, e.g. /{code}/ ('/' is the default language's)",
                rel,
                prefix_line,
            )
        if code != cfg.language and prefix.split("/")[1] in _TAKEN:
            raise SiteError(
                f"language {code!r}: prefix {prefix} would mix its pages with the default language's "
                f"/{prefix.split('/')[1]}/ (use e.g. /{code}/)",
                rel,
                prefix_line,
            )
        if prefix in prefixes:
            raise SiteError(f"languages {prefixes[prefix]!r} and {code!r} share the prefix {prefix}", rel, code_line)
        prefixes[prefix] = code
        lang.prefix = prefix
        out[code] = lang
    return out


def _nested_key_line(text: str, key: str, after: int | None) -> int | None:
    """Line of an indented `key:` after line `after` (for settings inside `languages:`)."""
    lines = text.split("\n")
    for n in range((after or 0), len(lines)):
        if re.match(rf"\s+{re.escape(key)}\s*:", lines[n]) or re.match(rf"\s*-?\s*{re.escape(key)}\s*:", lines[n]):
            return n + 1
    return after
