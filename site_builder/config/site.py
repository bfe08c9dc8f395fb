"""Reads `site.yml` into a SiteConfig (its keys are declared in schema.py)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from site_builder.config.comments import Comments, read_comments
from site_builder.config.highlight import CodeStyles, read_highlight
from site_builder.config.links import SocialLink, favicon_href, nav_names, social_links
from site_builder.config.macros import math_macros
from site_builder.config.schema import LANGUAGE_KEYS, SITE_KEYS, Key, unknown_keys
from site_builder.config.siteexec import SiteExec, site_exec
from site_builder.config.yamlfile import key_lines, read_limited, safe_load, utf8_text, yaml_error_line
from site_builder.errors import SiteError, SiteWarning

CONFIG_NAME = "site.yml"


_DATE_FORMATS = {  # (long, short) strftime formats a language gets unless site.yml sets its own
    "en": ("%b %-d, %Y", "%b %-d"),
    "zh": ("%Y年%-m月%-d日", "%-m月%-d日"),
    "ja": ("%Y年%-m月%-d日", "%-m月%-d日"),
    "ko": ("%Y년 %-m월 %-d일", "%-m월 %-d일"),
}
_NAMES = {
    "en": "English",
    "zh": "中文",
    "zh-TW": "繁體中文",
    "zh-Hant": "繁體中文",
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
            code,
            _NAMES.get(code, _NAMES.get(base, code)),
            "/" if default else f"/{code}/",
            long,
            short,
            _HTML_LANG.get(code, code),
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
    future: bool = False  # publish posts dated in the future (as --future)
    search: bool = True  # a Pagefind index of the posts
    math_macros: dict[str, str] = field(default_factory=dict)  # TeX macro name (no backslash) -> its expansion
    exec: SiteExec = field(default_factory=SiteExec)  # for every executing post
    pages_dir: str = "content/pages"
    nav: list[str] = field(default_factory=list)  # pages in the header, by translation key
    social: list[SocialLink] = field(default_factory=list)
    favicon: str = ""  # a root-relative site path or an http(s) address; "" draws the title's initial
    highlight: CodeStyles = field(default_factory=CodeStyles)  # Pygments styles of code, light and dark
    comments: Comments = field(default_factory=Comments)  # the comment system under each post (config/comments.py)
    static_dir: str = "static"  # copied as it is to the output's root (Hugo's static/)
    languages: dict[str, Language] = field(default_factory=dict)  # every language, the default (`language`) first
    warnings: list[SiteWarning] = field(default_factory=list)  # unknown keys, with their lines

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
    def base_path(self) -> str:
        """The path the site is served under (`/blog` for `https://user.github.io/blog/`), "" at a domain's root."""
        return urlsplit(self.url).path.rstrip("/")

    @functools.cached_property
    def posts_path(self) -> Path:
        """`root / posts_dir`, made once (loading a post asks for it several times)."""
        return self.root / self.posts_dir

    @functools.cached_property
    def pages_path(self) -> Path:
        return self.root / self.pages_dir

    @property
    def theme_dir(self) -> Path:
        return self.root / "themes" / self.theme

    def absolute(self, path: str) -> str:
        """The absolute URL of a site path such as `/blog/2025/x/`."""
        return f"{self.base_url}{path}" if self.base_url else path


_TYPES: dict[str, Key] = {
    k.name: k
    for k in SITE_KEYS
    if k.name not in ("languages", "math_macros", "exec", "nav", "social", "highlight", "comments")
}
_LANG_FIELDS = {k.name for k in LANGUAGE_KEYS}
_TAKEN = ("blog", "page", "css", "js", "images")  # first path segments the default language's pages and assets use


def read_yaml_file(path: Path, rel: str) -> tuple[Any, str]:
    """The data of a YAML file and its text; a file that is not UTF-8 or not YAML is an error at its line."""
    text = utf8_text(read_limited(path, rel, "a site.yml"), rel).removeprefix("\ufeff")
    try:
        return safe_load(text), text
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SiteError(f"invalid YAML: {problem}", rel, yaml_error_line(exc, text)) from None


def load_config(root: Path, url: str | None = None) -> SiteConfig:
    """Read `root/site.yml`; a missing file gives the defaults. Errors name `site.yml` relative to the root;
    unknown keys are warnings (`cfg.warnings`). `url` (`build --base-url`) replaces the file's `url`."""
    cfg = _read_config(root)
    if url is not None:
        if not _is_http_url(url):
            raise SiteError(f"--base-url must be an absolute http(s) address such as https://example.org/, got {url!r}")
        cfg.url = url
    return cfg


def _is_http_url(url: str) -> bool:
    """http(s), a host, and nothing a page could read as markup: every page writes the url's path unescaped."""
    return re.fullmatch(r"https?://[^/\s?#]+(?:/[^\s?#]*)?", url) is not None and not _UNSAFE_URL.search(url)


_UNSAFE_URL = re.compile(r"[\x00-\x20\x7f\"'<>\\`{}|^]")


def _read_config(root: Path) -> SiteConfig:
    path = root / CONFIG_NAME
    cfg = SiteConfig(root=root)
    if not path.exists():
        cfg.languages = _load_languages(cfg, None, {})
        return cfg
    data, text = read_yaml_file(path, CONFIG_NAME)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SiteError("site.yml must be a mapping of settings", CONFIG_NAME, 1)
    lines = key_lines(text)
    cfg.warnings = unknown_keys(data, SITE_KEYS, CONFIG_NAME, lines)
    for key, value in data.items():
        if key in _TYPES:
            setattr(cfg, key, _setting(_TYPES[key], value, lines.get(key)))
    cfg.languages = _load_languages(cfg, data.get("languages"), lines)
    cfg.math_macros = math_macros(data.get("math_macros"), lines)
    cfg.exec = site_exec(data.get("exec"), lines)
    cfg.nav, cfg.social = nav_names(data.get("nav"), lines), social_links(data.get("social"), lines)
    cfg.favicon = favicon_href(cfg.favicon, lines.get("favicon"))
    cfg.highlight = read_highlight(data.get("highlight"), lines, cfg.warnings)
    cfg.comments = read_comments(data.get("comments"), lines, cfg.warnings)
    _check_values(cfg, lines)
    return cfg


def _setting(key: Key, value: Any, line: int | None) -> Any:
    kind = key.types[0]
    if isinstance(value, dict) and key.name == "author":
        value = value.get("name", "")
    if kind is bool and not isinstance(value, bool):
        raise SiteError(f"setting {key.name!r} must be true or false, got {value!r}", CONFIG_NAME, line)
    if isinstance(value, (list, dict)) or (kind is int and isinstance(value, (bool, float))):
        raise SiteError(f"setting {key.name!r} must be {kind.__name__}, got {value!r}", CONFIG_NAME, line)
    try:
        return kind(value if value is not None else "")
    except (TypeError, ValueError):
        raise SiteError(f"setting {key.name!r} must be {kind.__name__}, got {value!r}", CONFIG_NAME, line) from None


def _check_values(cfg: SiteConfig, lines: dict[str, int]) -> None:
    if cfg.posts_per_page < 1:
        raise SiteError(
            f"posts_per_page must be at least 1, got {cfg.posts_per_page}", CONFIG_NAME, lines.get("posts_per_page")
        )
    if cfg.feed_limit < 0:
        raise SiteError(
            f"feed_limit must be 0 (every post) or more, got {cfg.feed_limit}", CONFIG_NAME, lines.get("feed_limit")
        )
    if cfg.url and not _is_http_url(cfg.url):
        raise SiteError(
            f"url must be an absolute http(s) address such as https://example.org/, got {cfg.url!r}",
            CONFIG_NAME,
            lines.get("url"),
        )
    _check_paths(cfg, lines)
    if not cfg.theme or cfg.theme.startswith(".") or any(c in cfg.theme for c in "/\\\0"):
        raise SiteError(
            f"theme must be the name of a folder in themes/, got {cfg.theme!r}", CONFIG_NAME, lines.get("theme")
        )


def _check_paths(cfg: SiteConfig, lines: dict[str, int]) -> None:
    """`permalink` and `feed_path` are paths inside the output: no scheme, no `..` (and feed_path not absolute)."""
    checked = (("permalink", cfg.permalink, "/blog/:slug/"), ("feed_path", cfg.feed_path, "feed.xml"))
    for key, value, example in (
        *checked,
        ("pages_dir", cfg.pages_dir, "content/pages"),
        ("static_dir", cfg.static_dir, "static"),
    ):
        problem = path_problem(value)
        if problem is None and key in ("feed_path", "static_dir") and value.startswith("/"):
            problem = "it is an absolute path (write it relative to the output, as feed.xml)"
        if problem:
            message = f"{key} must be a path inside the site such as {example}, got {value!r}: {problem}"
            raise SiteError(message, CONFIG_NAME, lines.get(key))


_SCHEME = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*:")


def has_scheme(address: str) -> bool:
    """Whether `address` starts with a URL scheme (`https:`, `javascript:`): an address, not a path."""
    return _SCHEME.match(address) is not None


def path_problem(path: str) -> str | None:
    """Why `path` cannot be a path of the site's output (a permalink, feed_path, a language's prefix), or None."""
    if has_scheme(path):
        return "it is an address with a scheme, not a path on this site"
    if any(ord(c) < 32 for c in path) or "\\" in path:
        return "it contains a backslash or a control character"
    if any(part in (".", "..") for part in path.split("/")):
        return "'.' and '..' segments are not allowed (pages must stay inside the output directory)"
    return None


_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*")  # BCP 47's shape: en, pt-BR, zh-Hant-TW, es-419


def is_language_tag(code: Any) -> bool:
    """Whether `code` has a language tag's shape: what `<html lang>`, a URL prefix and Pagefind's index names take."""
    return isinstance(code, str) and _LANGUAGE_TAG.fullmatch(code) is not None


def _load_languages(cfg: SiteConfig, data: Any, lines: dict[str, int]) -> dict[str, Language]:
    """`languages:` of site.yml: a mapping code -> settings (or a list of codes); the default language comes first."""
    line = lines.get("languages")
    if not is_language_tag(cfg.language):
        message = f"language {cfg.language!r} is not a language code such as en, zh or pt-BR"
        raise SiteError(message, CONFIG_NAME, lines.get("language"))
    if data is None:
        return {cfg.language: Language.default_for(cfg.language, True)}
    if isinstance(data, list) and all(isinstance(c, str) for c in data):
        data = {c: {} for c in data}
    if not isinstance(data, dict) or not data:
        raise SiteError(
            "'languages' must map language codes to their settings, e.g. zh: {name: 中文}", CONFIG_NAME, line
        )
    if cfg.language not in data:
        raise SiteError(
            f"the default language {cfg.language!r} ('language') is not listed in 'languages'", CONFIG_NAME, line
        )
    out: dict[str, Language] = {}
    prefixes: dict[str, str] = {}
    for code in [cfg.language] + [c for c in data if c != cfg.language]:
        lang = _language(cfg, code, data[code] or {}, lines)
        if lang.prefix in prefixes:
            raise SiteError(
                f"languages {prefixes[lang.prefix]!r} and {code!r} share the prefix {lang.prefix}",
                CONFIG_NAME,
                lines.get(f"languages.{code}", line),
            )
        prefixes[lang.prefix] = code
        out[code] = lang
    return out


def _language(cfg: SiteConfig, code: Any, settings: Any, lines: dict[str, int]) -> Language:
    """One entry of `languages:`, checked; its prefix normalised to `/CODE/`."""
    code_line = lines.get(f"languages.{code}", lines.get("languages"))
    if not is_language_tag(code):
        raise SiteError(f"{code!r} is not a language code such as en, zh or pt-BR", CONFIG_NAME, code_line)
    if not isinstance(settings, dict):
        raise SiteError(
            f"settings of language {code!r} must be a mapping (name, prefix, date_format)", CONFIG_NAME, code_line
        )
    unknown = sorted(set(settings) - _LANG_FIELDS)
    if unknown:
        raise SiteError(
            f"unknown setting {unknown[0]!r} for language {code!r} (known: {', '.join(sorted(_LANG_FIELDS))})",
            CONFIG_NAME,
            lines.get(f"languages.{code}.{unknown[0]}", code_line),
        )
    lang = Language.default_for(code, code == cfg.language)
    for key, value in settings.items():
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise SiteError(
                f"setting {key!r} of language {code!r} must be text, got {value!r}",
                CONFIG_NAME,
                lines.get(f"languages.{code}.{key}", code_line),
            )
        setattr(lang, key, str(value))
    lang.prefix = _prefix(cfg, code, lang.prefix, lines.get(f"languages.{code}.prefix", code_line))
    return lang


def _prefix(cfg: SiteConfig, code: str, raw: str, line: int | None) -> str:
    prefix = "/" + raw.strip().strip("/") + "/" if raw.strip("/ ") else "/"
    problem = path_problem(prefix.strip("/"))
    if problem:
        raise SiteError(f"language {code!r}: prefix {raw!r} cannot be a prefix: {problem}", CONFIG_NAME, line)
    if code == cfg.language and prefix != "/":
        raise SiteError(
            f"the default language ({code}) is served at '/': remove its prefix {prefix}", CONFIG_NAME, line
        )
    if code != cfg.language and prefix == "/":
        raise SiteError(
            f"language {code!r}: needs a prefix of its own, e.g. /{code}/ ('/' is the default language's)",
            CONFIG_NAME,
            line,
        )
    if code != cfg.language and prefix.split("/")[1] in _TAKEN:
        raise SiteError(
            f"language {code!r}: prefix {prefix} would mix its pages with the default language's "
            f"/{prefix.split('/')[1]}/ (use e.g. /{code}/)",
            CONFIG_NAME,
            line,
        )
    return prefix
