"""The theme's Jinja environment: UI strings per language, helpers, template digests (the theme's folders: `theme`)."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, MutableMapping
from datetime import datetime
from types import CodeType
from typing import Any
from urllib.parse import quote

import jinja2
import jinja2.bccache
import jinja2.meta
import markupsafe
import yaml

try:  # markupsafe's C escaping of a str (3.0 and later); else templates use markupsafe.escape itself
    from markupsafe._speedups import _escape_inner as _escape_text
except ImportError:  # pragma: no cover (a markupsafe without its C part, or before 3.0)
    _escape_text = None  # type: ignore[assignment]

from site_builder.assemble import feed_path, tag_url, year_url
from site_builder.config import Language, SiteConfig
from site_builder.errors import SiteError, SiteWarning
from site_builder.util.files import atomic_write
from site_builder.util.hashing import content_key
from site_builder.util.langs import strings_names
from site_builder.util.signed import Signer, key_path
from site_builder.write.social import card as social_card
from site_builder.write.theme import Theme
from site_builder.write.titles import title_html, title_text


def load_strings(theme: Theme, lang: str) -> dict[str, Any]:
    """UI strings for a language: the theme's i18n file for it (strings_names), over the default theme's."""
    strings: dict[str, Any] = {}
    for d in reversed(theme.dirs):
        found = (d / "i18n" / f"{name}.yml" for name in strings_names(lang))
        path = next((p for p in found if p.exists()), None)
        if path is not None:
            try:
                data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                raise SiteError(
                    f"invalid YAML: {getattr(exc, 'problem', exc)}", path, mark.line + 1 if mark else None
                ) from None
            if not isinstance(data, dict):
                raise SiteError("UI strings must be a mapping of key: text", path, 1)
            strings.update({str(k): str(v) for k, v in data.items()})
    return strings


def ui_strings(config: SiteConfig, theme: Theme) -> tuple[dict[str, dict[str, str]], list[SiteWarning]]:
    """Every language's UI strings, missing keys filled from the default language's; and a warning for each language
    lacking some."""
    default = load_strings(theme, config.language)
    table: dict[str, dict[str, str]] = {config.language: default}
    warnings: list[SiteWarning] = []
    for code in config.languages:
        if code == config.language:
            continue
        own = load_strings(theme, code)
        missing = [k for k in default if k not in own]
        if missing:
            where = f"themes/{theme.name}/i18n/{code}.yml"
            shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
            warnings.append(SiteWarning(f"no UI text for {shown}", where, None, f"shown in {config.language}"))
        table[code] = {**default, **own}
    return table, warnings


class SignedBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates kept between runs (compiling the theme costs a process ~90 ms: a fifth of a small site's
    build) in the user's cache folder, beside the build cache's key, each file signed with that key: Jinja reads
    these files with pickle and marshal, so one this user's site-builder did not write is never read."""

    def __init__(self, signer: Signer) -> None:
        self.signer = signer
        self.folder = key_path().parent / "templates"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        body = self._read(bucket.key)
        if body is not None:
            bucket.bytecode_from_string(body)  # a stale one (another source, another Python) is dropped by Jinja

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._write(bucket.key, bucket.bytecode_to_string())

    def refs(self, filename: str, source: str) -> frozenset[str | None] | None:
        """The templates the template file names, as an earlier run found them in this `source` (None: not kept)."""
        body = self._read(f"refs-{content_key(filename)}")
        kept = json.loads(body) if body is not None else None
        return frozenset(kept["refs"]) if kept and kept["source"] == content_key(source) else None

    def keep_refs(self, filename: str, source: str, refs: frozenset[str | None]) -> None:
        names = sorted(refs, key=lambda r: (r is None, r or ""))
        body = json.dumps({"source": content_key(source), "refs": names}).encode()
        self._write(f"refs-{content_key(filename)}", body)  # one file a template file: a new source replaces it

    def _read(self, name: str) -> bytes | None:
        """A kept file's contents, if this user's key signed them."""
        try:
            data = (self.folder / name).read_bytes()
        except OSError:
            return None
        return self.signer.unsign(data)

    def _write(self, name: str, body: bytes) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(self.folder / name, self.signer.sign(body))
        except OSError:  # a read-only home: the work is done again next time
            pass


def _bytecode_cache() -> SignedBytecodeCache | None:
    try:
        return SignedBytecodeCache(Signer.for_user())
    except OSError:  # no home folder to keep the key in
        return None


class _Texts(dict[str, str]):
    """A language's UI strings, each page's `T` (`T['home']` is `t('home')`, without a function call: a tenth of
    rendering the pages went into the theme's 26 `t()` calls a page); a missing one is its key, as `t` gives it."""

    def __missing__(self, key: str) -> str:
        return key


class _Tables(dict[str, _Texts]):
    """`_Texts` by language code; another code gets the default language's, as `t` does."""

    def __init__(self, tables: dict[str, _Texts], default: str) -> None:
        super().__init__(tables)
        self.default = default

    def __missing__(self, key: str) -> _Texts:
        return self[self.default]


_new_str = str.__new__


def _escape(value: Any) -> markupsafe.Markup:
    """markupsafe.escape, but a plain string's escaped text becomes Markup without Markup.__new__'s Python code
    (it looks for `__html__`, which a str has not): half the cost of each of the ~70 `{{ }}` of a page."""
    if type(value) is str:
        return _new_str(markupsafe.Markup, _escape_text(value))
    return markupsafe.escape(value)


class _Template(jinja2.Template):
    """A template whose `{{ }}` escape with `_escape`: its compiled code looks `escape` up in its own module, the
    globals of its render functions."""

    @classmethod
    def from_code(
        cls,
        environment: jinja2.Environment,
        code: CodeType,
        globals: MutableMapping[str, Any],
        uptodate: Callable[[], bool] | None = None,
    ) -> jinja2.Template:
        template = super().from_code(environment, code, globals, uptodate)
        module = template.root_render_func.__globals__
        if _escape_text is not None and module.get("escape") is markupsafe.escape:
            module["escape"] = _escape
        return template


class _Environment(jinja2.Environment):
    """Each template sees the environment's globals as one plain dict, not Jinja's ChainMap of its own and the
    environment's: every page and every include walked that ChainMap twice to make its context (3% of rendering
    the pages). The globals are all set in `make_env`, before any template is loaded."""

    template_class = _Template

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **d} if d else self.globals


def make_env(config: SiteConfig, theme: Theme, strings: dict[str, dict[str, Any]] | None = None) -> jinja2.Environment:
    """Jinja environment; `t`, `datefmt`, `tag_url`, `year_url` and `lang_url` follow the page's language (`ui`), and
    so does `T`, given each page by `write_pages` from the `ui_texts` global."""
    env = _Environment(
        loader=jinja2.FileSystemLoader([str(d / "templates") for d in theme.dirs]),
        autoescape=jinja2.select_autoescape(["html", "xml"]),
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_bytecode_cache(),
        cache_size=-1,  # a dict: a theme has a few templates, and an LRU's lock cost 3% of rendering the pages
    )
    strings = strings if strings is not None else ui_strings(config, theme)[0]
    default_ui = config.lang(config.language)

    def ui(ctx: jinja2.runtime.Context, lang: Language | None = None) -> Language:
        """`lang` when given (a macro imported without the page's context is given it), else the page's language."""
        found: Language | None = lang or ctx.get("ui")
        return found or default_ui

    texts = _Tables({code: _Texts(table) for code, table in strings.items()}, config.language)
    # A date is shown on its post's page, beside it on each related post's, on lists and in archives, the same each
    # time: formatted once per environment (a 4,000-post site: 76,000 calls, 3% of rendering its pages). The zone
    # is part of the key: the same moment in two zones compares equal, but shows other figures.
    strftime = functools.lru_cache(maxsize=1 << 16)(_strftime)
    isoformat = functools.lru_cache(maxsize=1 << 16)(_isoformat)

    @jinja2.pass_context
    def t(ctx: jinja2.runtime.Context, key: str) -> str:
        return texts[ui(ctx).code][key]

    @jinja2.pass_context
    def datefmt(ctx: jinja2.runtime.Context, dt: object, fmt: str = "long", lang: Language | None = None) -> str:
        if not isinstance(dt, datetime):
            return ""
        lang = ui(ctx, lang)
        return strftime(
            dt, dt.tzinfo, lang.date_format if fmt == "long" else lang.short_date_format if fmt == "short" else fmt
        )

    env.globals.update(
        ui_texts=texts,
        site=config,
        base_path=config.base_path,  # a site under a path: write_pages moves every link under it
        t=t,
        tag_url=jinja2.pass_context(lambda ctx, tag, lang=None: tag_url(tag, ui(ctx, lang).prefix)),
        year_url=jinja2.pass_context(lambda ctx, year: year_url(year, ui(ctx).prefix)),
        # `lang` (here, in tag_url and datefmt): another language than the page's, or the page's in a macro imported
        # without its context (_site.html, _card.html)
        lang_url=jinja2.pass_context(lambda ctx, path="", lang=None: ui(ctx, lang).prefix + path.lstrip("/")),
        feed_url=jinja2.pass_context(lambda ctx, lang=None: "/" + feed_path(config, ui(ctx, lang))),
        favicon=functools.lru_cache(maxsize=8)(favicon),  # the same title on every page: made once per build
        social_card=lambda view: social_card(config, view),  # Open Graph, Twitter card and JSON-LD of a post
    )
    env.filters["datefmt"] = datefmt
    env.filters["isodate"] = lambda dt: isoformat(dt, dt.tzinfo)
    env.filters["absolute"] = config.absolute
    env.filters["title_html"] = title_html  # a title's `code` as <code> (write/titles.py)
    env.filters["title_text"] = lambda t: title_text(t) if isinstance(t, str) else t
    return env


def _strftime(dt: datetime, _zone: object, fmt: str) -> str:  # `_zone`: part of the cache's key (make_env)
    return dt.strftime(fmt)


def _isoformat(dt: datetime, _zone: object) -> str:
    return dt.isoformat(timespec="seconds")


def favicon(title: str) -> markupsafe.Markup:
    """The site's icon when the theme has none: its title's first letter or digit, white on the accent colour, as
    an SVG data URI (no file, so no request for /favicon.ico and no 404)."""
    initial = next((ch.upper() for ch in title if ch.isalnum()), "")
    text = initial.replace("&", "&amp;").replace("<", "&lt;")
    svg = (
        "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 64 64'><rect width='64' height='64' rx='14' "
        "fill='#c2185b'/><text x='32' y='45' font-family='Georgia,serif' font-size='40' font-weight='700' "
        f"text-anchor='middle' fill='#fff'>{text}</text></svg>"
    )
    return markupsafe.Markup("data:image/svg+xml," + quote(svg, safe="'=/:,.()"))


def template_error(exc: Exception, theme: Theme) -> SiteError:
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return SiteError(f"template error: {exc.message}", exc.filename or exc.name, exc.lineno)
    if isinstance(exc, jinja2.TemplateNotFound):
        return SiteError(f"template {exc.name!r} not found in themes {', '.join(str(d) for d in theme.dirs)}")
    return SiteError(f"template error: {type(exc).__name__}: {exc}")


TemplateRefs = dict[str, frozenset[str | None]]  # a template file's stamp -> the templates it names (None: computed)


def _references(env: jinja2.Environment, source: str, name: str, filename: str | None) -> frozenset[str | None]:
    """The templates `source` extends, includes or imports (None: a name computed at render time); kept beside the
    compiled templates, as parsing the theme for them cost a process ~40 ms."""
    kept = env.bytecode_cache if isinstance(env.bytecode_cache, SignedBytecodeCache) else None
    refs = kept.refs(filename or name, source) if kept else None
    if refs is None:
        refs = frozenset(jinja2.meta.find_referenced_templates(env.parse(source, name, filename)))
        if kept:
            kept.keep_refs(filename or name, source, refs)
    return refs


def template_digests(
    env: jinja2.Environment, theme: Theme, names: set[str], known: TemplateRefs | None = None
) -> dict[str, str]:
    """For each template, a digest of its file and of every template it extends, includes or imports (by stamp):
    a page depends on those only, so editing tags.html rewrites the tag index and nothing else. `known` keeps
    what each template file names between the builds of a long-running process (parsing them all again cost
    ~10 ms a rebuild)."""
    known = {} if known is None else known
    files: dict[str, tuple[str, frozenset[str | None]]] = {}  # name -> (its file's stamp, the names it references)

    def visit(name: str) -> None:
        if name in files:
            return
        try:
            if env.loader is None:
                raise jinja2.TemplateNotFound(name)
            source, filename, _ = env.loader.get_source(env, name)
            st = os.stat(filename or name)
            stamp = f"{filename}:{st.st_size}:{st.st_mtime_ns}"
            refs = known.get(stamp)
            if refs is None:
                refs = known[stamp] = _references(env, source, name, filename)
        except jinja2.TemplateError as exc:
            raise template_error(exc, theme) from None
        files[name] = (stamp, refs)
        for ref in refs:
            if ref is None:  # a name computed at render time: depend on every template
                for d in theme.dirs:
                    for path in sorted((d / "templates").rglob("*.html")):
                        visit(path.relative_to(d / "templates").as_posix())
            else:
                visit(ref)

    digests = {}
    for name in names:
        visit(name)
        seen, todo = set(), [name]
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo += [r for r in files[current][1] if r is not None] + (
                    list(files) if None in files[current][1] else []
                )
        digests[name] = content_key(*sorted(files[n][0] for n in seen))
    return digests
