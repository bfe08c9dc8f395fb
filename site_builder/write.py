"""Stage 6, write: templates -> files in a fresh directory, assets, then an atomic swap."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import jinja2
import yaml

from site_builder.config import CONFIG_NAME, SiteConfig
from site_builder.errors import SiteError
from site_builder.models import Page
from site_builder.parallel import fork_map

MARKER = ".site-builder"
DEFAULT_THEME = Path(__file__).resolve().parent.parent / "themes" / "default"


@dataclass
class Theme:
    """A theme's folders, most specific first (the site's theme, then the default theme)."""

    dirs: list[Path]
    name: str


def find_theme(config: SiteConfig) -> Theme:
    dirs = [d for d in (config.theme_dir, config.root / "themes" / "default", DEFAULT_THEME) if d.is_dir()]
    if not config.theme_dir.is_dir() and not (config.theme == "default" and dirs):
        raise SiteError(f"theme {config.theme!r} not found (no directory themes/{config.theme}/)",
                        CONFIG_NAME if (config.root / CONFIG_NAME).exists() else None)
    unique: list[Path] = []
    for d in dirs:
        if d.resolve() not in [u.resolve() for u in unique]:
            unique.append(d)
    return Theme(unique, config.theme)


def load_strings(theme: Theme, lang: str) -> dict:
    """UI strings for a language: the theme's i18n/LANG.yml, over the default theme's."""
    strings: dict = {}
    for d in reversed(theme.dirs):
        path = d / "i18n" / f"{lang}.yml"
        if path.exists():
            try:
                strings.update(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                raise SiteError(f"invalid YAML: {getattr(exc, 'problem', exc)}", path, mark.line + 1 if mark else None) from None
    return strings


def make_env(config: SiteConfig, theme: Theme, globals_: dict) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(d / "templates") for d in theme.dirs]),
        autoescape=jinja2.select_autoescape(["html", "xml"]),
        trim_blocks=True, lstrip_blocks=True,
    )
    strings = load_strings(theme, config.language)
    env.globals.update(site=config, t=lambda key: strings.get(key, key), **globals_)
    env.filters["datefmt"] = lambda dt, fmt="%b %-d, %Y": dt.strftime(fmt) if isinstance(dt, datetime) else ""
    env.filters["isodate"] = lambda dt: dt.isoformat(timespec="seconds")
    env.filters["absolute"] = config.absolute
    return env


def _template_error(exc: Exception, theme: Theme) -> SiteError:
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return SiteError(f"template error: {exc.message}", exc.filename or exc.name, exc.lineno)
    if isinstance(exc, jinja2.TemplateNotFound):
        return SiteError(f"template {exc.name!r} not found in themes {', '.join(str(d) for d in theme.dirs)}")
    return SiteError(f"template error: {type(exc).__name__}: {exc}")


def check_output_dir(root: Path, output: Path) -> None:
    """Refuse output directories whose replacement would lose an author's files."""
    root, output = root.resolve(), output.resolve()
    if output == root or output in root.parents:
        raise SiteError(f"refusing to build into {output}: it is (or contains) the source tree")
    if (output / "content").exists() or (output / CONFIG_NAME).exists():
        raise SiteError(f"refusing to build into {output}: it holds content/ or site.yml")
    if output.exists() and (not output.is_dir() or (any(output.iterdir()) and not (output / MARKER).exists())):
        raise SiteError(f"refusing to build into {output}: it exists and was not made by site-builder (remove it or pick another --output)")


class OutputWriter:
    """Writes into a temporary sibling of the output directory; `commit` swaps it in."""

    def __init__(self, output: Path):
        self.output = output.resolve()
        self.tmp = self.output.parent / f".{self.output.name}.tmp-{os.getpid()}"
        if self.tmp.exists():
            shutil.rmtree(self.tmp)
        self.tmp.mkdir(parents=True)
        (self.tmp / MARKER).write_text("built by site-builder; this directory is replaced on every build\n")

    def target(self, rel: str) -> Path:
        path = (self.tmp / rel).resolve()
        if path != self.tmp and self.tmp not in path.parents:
            raise SiteError(f"refusing to write {rel!r}: outside the output directory")
        return path

    def write(self, rel: str, data: str | bytes) -> None:
        path = self.target(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        path.write_bytes(data)

    def reuse(self, rel: str) -> bool:
        """Hard-link an unchanged file from the previous output; False when it is not there."""
        old = self.output / rel
        if not old.is_file():
            return False
        path = self.target(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(old, path)
        except OSError:
            shutil.copy2(old, path)
        return True

    def copy_tree(self, src: Path, dest: str = "") -> int:
        count = 0
        for path in sorted(src.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                target = self.target(os.path.join(dest, str(path.relative_to(src))))
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.exists():
                    shutil.copyfile(path, target)
                    count += 1
        return count

    def commit(self) -> None:
        old = self.output.parent / f".{self.output.name}.old-{os.getpid()}"
        if self.output.exists():
            os.rename(self.output, old)
        os.rename(self.tmp, self.output)
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)

    def abort(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def write_pages(writer: OutputWriter, env: jinja2.Environment, theme: Theme, pages: list[Page],
                previous: dict[str, str]) -> tuple[dict[str, str], int]:
    """Render and write pages, reusing unchanged ones; returns (path -> key, pages rendered)."""
    todo = []
    for page in pages:
        if page.key and previous.get(page.path) == page.key and writer.reuse(page.path):
            continue
        todo.append(page)
    try:  # compile templates once, before forking
        for name in {p.template for p in todo if p.template}:
            env.get_template(name)
    except jinja2.TemplateError as exc:
        raise _template_error(exc, theme) from None

    def render_chunk(chunk: list[Page]) -> list[int]:
        for page in chunk:
            try:
                data = page.content if page.content is not None else env.get_template(page.template).render(**page.context)
            except jinja2.TemplateError as exc:
                raise _template_error(exc, theme) from None
            except Exception as exc:  # a bad theme must not produce a traceback
                raise SiteError(f"template {page.template}: {type(exc).__name__}: {exc}") from None
            writer.write(page.path, data)
        return [1] * len(chunk)

    fork_map(render_chunk, todo, min_per_worker=150)
    return {p.path: p.key for p in pages if p.key}, len(todo)
