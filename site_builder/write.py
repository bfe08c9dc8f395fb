"""Stage 6, write: templates -> files staged beside the output, then moved in when the build succeeded."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from importlib import resources
from pathlib import Path

import jinja2
import jinja2.meta
import yaml

from site_builder.assemble import feed_path, tag_url, year_url
from site_builder.config import CONFIG_NAME, Language, SiteConfig
from site_builder.errors import SiteError
from site_builder.models import Page
from site_builder.util.hashing import content_key
from site_builder.util.parallel import fork_map, fork_start, worker_count

MARKER = ".site-builder"
DEFAULT_THEME = Path(str(resources.files("site_builder") / "themes" / "default"))  # package data


@dataclass
class Theme:
    """A theme's folders, most specific first (the site's theme, then the default theme)."""

    dirs: list[Path]
    name: str


def find_theme(config: SiteConfig) -> Theme:
    dirs = [d for d in (config.theme_dir, config.root / "themes" / "default", DEFAULT_THEME) if d.is_dir()]
    if not config.theme_dir.is_dir() and not (config.theme == "default" and dirs):
        raise SiteError(
            f"theme {config.theme!r} not found (no directory themes/{config.theme}/)",
            CONFIG_NAME if (config.root / CONFIG_NAME).exists() else None,
        )
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


def ui_strings(config: SiteConfig, theme: Theme) -> tuple[dict[str, dict], list[str]]:
    """Every language's UI strings, missing keys filled from the default language; and one warning per language lacking some."""
    default = load_strings(theme, config.language)
    table, warnings = {config.language: default}, []
    for code in config.languages:
        if code == config.language:
            continue
        own = load_strings(theme, code)
        missing = [k for k in default if k not in own]
        if missing:
            where = f"themes/{theme.name}/i18n/{code}.yml"
            shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
            warnings.append(f"warning: {where}: no UI text for {shown}; using {config.language}")
        table[code] = {**default, **own}
    return table, warnings


def make_env(config: SiteConfig, theme: Theme, strings: dict[str, dict] | None = None) -> jinja2.Environment:
    """Jinja environment; `t`, `datefmt`, `tag_url`, `year_url` and `lang_url` follow the page's language (`ui`)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(d / "templates") for d in theme.dirs]),
        autoescape=jinja2.select_autoescape(["html", "xml"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    strings = strings if strings is not None else ui_strings(config, theme)[0]
    default_ui = config.lang(config.language)

    def ui(ctx) -> Language:
        return ctx.get("ui") or default_ui

    @jinja2.pass_context
    def t(ctx, key: str) -> str:
        table = strings.get(ui(ctx).code) or strings[config.language]
        return table.get(key, key)

    @jinja2.pass_context
    def datefmt(ctx, dt, fmt: str = "long") -> str:
        if not isinstance(dt, datetime):
            return ""
        lang = ui(ctx)
        return dt.strftime(lang.date_format if fmt == "long" else lang.short_date_format if fmt == "short" else fmt)

    env.globals.update(
        site=config,
        t=t,
        tag_url=jinja2.pass_context(lambda ctx, tag: tag_url(tag, ui(ctx).prefix)),
        year_url=jinja2.pass_context(lambda ctx, year: year_url(year, ui(ctx).prefix)),
        lang_url=jinja2.pass_context(lambda ctx, path="": ui(ctx).prefix + path.lstrip("/")),
        feed_url=jinja2.pass_context(lambda ctx: "/" + feed_path(config, ui(ctx))),
    )
    env.filters["datefmt"] = datefmt
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
        raise SiteError(
            f"refusing to build into {output}: it exists and was not made by site-builder (remove it or pick another --output)"
        )


class OutputWriter:
    """Stages every new or changed file in a sibling directory; `commit` moves them into the output.

    Nothing in the output changes until `commit`, so a failed build leaves it as it was. When the output
    still holds what the previous build wrote (its marker matches), only changed files are staged and moved
    and files no longer produced are removed; otherwise the staged tree replaces the output in one rename.
    """

    def __init__(
        self, output: Path, previous: dict[str, str], build_id: str, previous_id: str, trust_output: bool = False
    ):
        """`trust_output`: the output directory is private to this process (the dev server's), so a file the
        previous build wrote is known to be there without looking."""
        self.output = output.resolve()
        self.staging = self.output.parent / f".{self.output.name}.tmp-{os.getpid()}"
        if self.staging.exists():
            shutil.rmtree(self.staging)
        self.staging.mkdir(parents=True)
        self.build_id = build_id
        self.incremental = bool(previous) and _marker(self.output) == previous_id
        self.previous = previous if self.incremental else {}
        if self.incremental:  # the output stays the same tree: keep its id
            self.build_id = previous_id
        self.keys: dict[str, str] = {}
        self.staged: list[str] = []
        self.changed: list[str] = []  # files written or removed by `commit`
        self.early: list[str] = []  # files moved in by `commit_early`
        self.trust_output = trust_output
        self._dirs: set[str] = set()
        self._made: set[str] = set()
        self.static: set[str] = set()

    def needs(self, rel: str, key: str) -> bool:
        """Record that this build produces `rel`; True when it must be (re)written."""
        previous = self._claim(rel, key)
        if previous == key and (self.trust_output or os.path.exists(os.path.join(self.output, rel))):
            return False
        self.staged.append(rel)
        return True

    def _staged(self, rel: str) -> str:
        """Where `rel` is staged, its folder made."""
        path = os.path.join(self.staging, rel)
        parent = os.path.dirname(path)
        if parent not in self._dirs:
            try:  # most pages have a folder of their own, whose parent is there: one system call
                os.mkdir(parent)
            except FileNotFoundError:
                os.makedirs(parent, exist_ok=True)
            except FileExistsError:
                pass
            self._dirs.add(parent)
        return path

    def write(self, rel: str, data: str | bytes) -> None:
        _write_file(self._staged(rel), data.encode("utf-8") if isinstance(data, str) else data)

    def copy_file(self, rel: str, src: Path) -> None:
        """Stage a copy of a file that is already on disk (an image or its variant)."""
        shutil.copyfile(src, self._staged(rel))

    def put(self, rel: str, key: str, produce) -> None:
        """Write `produce()` to `rel` unless the previous build wrote the same key there."""
        if self.needs(rel, key):
            self.write(rel, produce())

    def keep(self, rel: str) -> None:
        """Record that this build produces `rel` but leaves it as the previous build wrote it, for `write_late`."""
        self._claim(rel, self.previous.get(rel, ""))

    def _claim(self, rel: str, key: str) -> str | None:
        """Record `rel` as this build's with `key`; returns the previous build's key for it."""
        previous = self.previous.get(rel)
        if previous is None:  # a path the previous build wrote was checked then
            _check_rel(rel)
        if rel in self.keys:
            raise SiteError(
                f"two outputs would be written to {rel} (check permalinks against feed, sitemap and theme files)"
            )
        self.keys[rel] = key
        return previous

    def copy_tree(self, src: Path, dest: str = "") -> None:
        """Copy a folder of static files; the first copy of a path wins (site theme over default)."""
        for path in sorted(src.rglob("*")):
            if path.is_file() and not any(part.startswith(".") for part in path.relative_to(src).parts):
                rel = os.path.join(dest, str(path.relative_to(src)))
                if rel in self.static:
                    continue
                self.static.add(rel)
                st = path.stat()
                if self.needs(rel, f"file:{path}:{st.st_size}:{st.st_mtime_ns}"):
                    self.write(rel, path.read_bytes())

    def commit(self) -> int:
        """Make the staged files the output; returns how many files changed."""
        marker = os.path.join(self.staging, MARKER)
        with open(marker, "w") as fh:
            fh.write(f"{self.build_id}\nbuilt by site-builder; this directory is replaced on every build\n")
        if not self.incremental:
            old = self.output.parent / f".{self.output.name}.old-{os.getpid()}"
            if self.output.exists():
                os.rename(self.output, old)
            os.rename(self.staging, self.output)
            if old.exists():
                _remove_later(old)
            self.changed = list(self.staged)
            return len(self.staged)
        self._move(self.staged)
        removed = sorted(self.previous.keys() - self.keys.keys())
        for rel in removed:
            _unlink_and_prune(self.output, rel)
        self.changed = self.early + self.staged + removed
        os.replace(marker, os.path.join(self.output, MARKER))
        shutil.rmtree(self.staging, ignore_errors=True)
        return len(self.changed)

    def commit_early(self) -> list[str]:
        """Move the files staged so far into the output now, before the rest of the build is written; returns them.

        Only when the output is updated in place (incremental); each file is moved in whole (`os.replace`). The
        output's marker, removals and the other files wait for `commit`. A build that fails after this leaves
        these files in place: its caller must then record them with a key no build makes (""), so that the next
        build writes them again, or removes them.
        """
        if not self.incremental or not self.staged:
            return []
        moved, self.staged = self.staged, []
        self._move(moved)
        self.early += moved
        return moved

    def _move(self, rels: list[str]) -> None:
        for rel in rels:
            target = os.path.join(self.output, rel)
            parent = os.path.dirname(target)
            if parent not in self._made:
                os.makedirs(parent, exist_ok=True)
                self._made.add(parent)
            os.replace(os.path.join(self.staging, rel), target)

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def write_late(output: Path, keys: dict[str, str], items: list[tuple], cancelled=lambda: False) -> list[str]:
    """Write outputs a build left for later (`OutputWriter.keep`) into its output: each (path, key function,
    producer) whose key differs from `keys` (the build's, updated here) is written beside the output and moved in
    whole. Stops before the next file once `cancelled()`: the files not written keep their old content and key,
    and the next build writes them. Returns the paths written."""
    staging = output.parent / f".{output.name}.late-{os.getpid()}"
    written = []
    try:
        for rel, key_of, produce in items:
            if cancelled():
                break
            key = key_of()
            if keys.get(rel) == key or cancelled():
                continue
            data = produce()
            staging.mkdir(exist_ok=True)
            tmp = staging / "file"
            with open(tmp, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            target = output / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, target)
            keys[rel] = key
            written.append(rel)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written


def _check_rel(rel: str) -> None:
    norm = os.path.normpath(rel)
    if os.path.isabs(rel) or norm == ".." or norm.startswith("../") or "\0" in rel:
        raise SiteError(f"refusing to write {rel!r}: outside the output directory")


def _marker(output: Path) -> str:
    try:
        return (output / MARKER).read_text().split("\n", 1)[0]
    except OSError:
        return ""


def _unlink_and_prune(root: Path, rel: str) -> None:
    path = os.path.join(root, rel)
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    parent = os.path.dirname(path)
    while parent != str(root):
        try:
            os.rmdir(parent)
        except OSError:
            break
        parent = os.path.dirname(parent)


def _write_file(path: str, data: bytes) -> None:
    """A new file with `data`: open, write, close (a buffered file object adds three system calls, which on this
    kind of disk made writing a 4,000-post site's pages 1.5x slower)."""
    fd = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0), 0o666
    )  # less the umask, as open() does
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _remove_later(path: Path) -> None:
    """Delete a replaced output tree without making the user wait for it."""
    if hasattr(os, "fork"):
        pid = os.fork()
        if pid == 0:  # child: detach, delete, exit without running the parent's cleanup
            try:
                os.setsid()
                if os.fork() == 0:
                    shutil.rmtree(path, ignore_errors=True)
                os._exit(0)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        return
    shutil.rmtree(path, ignore_errors=True)


def template_digests(env: jinja2.Environment, theme: Theme, names: set[str]) -> dict[str, str]:
    """For each template, a digest of its file and of every template it extends, includes or imports (by stamp):
    a page depends on those only, so editing tags.html rewrites the tag index and nothing else."""
    files: dict[str, tuple[str, set]] = {}  # name -> (its file's stamp, the names it references)

    def visit(name: str) -> None:
        if name in files:
            return
        try:
            source, filename, _ = env.loader.get_source(env, name)
            refs = set(jinja2.meta.find_referenced_templates(env.parse(source, name, filename)))
        except jinja2.TemplateError as exc:
            raise _template_error(exc, theme) from None
        st = os.stat(filename)
        files[name] = (f"{filename}:{st.st_size}:{st.st_mtime_ns}", refs)
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


PAGES_PER_WORKER = 150  # fewer pages than this per core: one process renders them


def write_pages(
    writer: OutputWriter,
    env: jinja2.Environment,
    theme: Theme,
    pages: list[Page],
    files: Sequence[tuple[str, Callable[[], tuple]]] = (),
) -> tuple[int, list]:
    """Render and stage the pages whose key (with their templates' digest) changed since the last build.

    `files` are other outputs (path, produce), staged by workers of their own while the pages are rendered:
    `produce()` returns (the file's text, a result for the caller). Returns how many pages were rendered and the
    results of `files`, in order.
    """
    digests = template_digests(env, theme, {page.template for page in pages})
    todo = [page for page in pages if writer.needs(page.path, content_key(page.key, digests[page.template]))]
    try:  # compile templates once, before forking (and look each up once: a lookup stats its files)
        templates = {name: env.get_template(name) for name in {p.template for p in todo}}
    except jinja2.TemplateError as exc:
        raise _template_error(exc, theme) from None

    done: dict[tuple, str] = {}

    @jinja2.pass_context
    def once(ctx, macro, item):
        """`macro(item)`, rendered once per page language in this build: a post's card is on the home pages,
        on each of its tags' pages and in the archive, the same each time."""
        key = (macro.name, id(item), getattr(ctx.get("ui"), "code", None))
        html = done.get(key)
        if html is None:
            html = done[key] = macro(item)
        return html

    def render_chunk(chunk: list[Page]) -> list[int]:
        for page in chunk:
            try:
                data = templates[page.template].render(**page.context, once=once)
            except jinja2.TemplateError as exc:
                raise _template_error(exc, theme) from None
            except Exception as exc:  # a bad theme must not produce a traceback
                raise SiteError(f"template {page.template}: {type(exc).__name__}: {exc}") from None
            writer.write(page.path, data)
        return [1] * len(chunk)

    def stage(rel: str, produce: Callable[[], tuple]):
        data, result = produce()
        writer.write(rel, data)
        return result

    many = worker_count(len(todo), PAGES_PER_WORKER) > 1  # else forking would cost more than it saves
    started = [fork_start(partial(stage, rel, produce), fork=many) for rel, produce in files]
    try:
        fork_map(render_chunk, todo, min_per_worker=PAGES_PER_WORKER)
        results = [job.result() for job in started]
    except BaseException:
        for job in started:
            job.cancel()
        raise
    return len(todo), results
