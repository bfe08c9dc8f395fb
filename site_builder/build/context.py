"""What every step of one build reads: the settings, the theme, the state, and the keys derived from them."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder import __version__
from site_builder.build.state import CACHE_FILE, BuildState
from site_builder.config import SiteConfig, load_config
from site_builder.errors import ExecutionFailed, SiteError, SiteErrors, SiteWarning, StrictFailure, sorted_warnings
from site_builder.load import Include
from site_builder.models import RENDER_VERSION
from site_builder.util.hashing import content_key
from site_builder.write.output import check_output_dir
from site_builder.write.theme import Theme, ThemeFile, find_theme, site_static_files, theme_files

if TYPE_CHECKING:
    from site_builder.build.posts import RunsAside

Log = Callable[[str], None]


@dataclass
class Timings:
    """Seconds spent in each step of a build, in order (`build -v`)."""

    start: float = field(default_factory=time.perf_counter)
    laps: dict[str, float] = field(default_factory=dict)

    def lap(self, name: str) -> None:
        self.laps[name] = time.perf_counter() - self.start - sum(self.laps.values())

    @property
    def total(self) -> float:
        return time.perf_counter() - self.start


@dataclass
class BuildContext:
    """One build's inputs: where from and to, the settings and theme, the state the last build left."""

    root: Path
    output: Path
    config: SiteConfig
    theme: Theme
    opened: BuildState | None  # the state, once opened (`state`)
    site_key: str  # every setting and theme file all pages depend on
    keep_going: bool = False
    warm: bool = False  # the state is kept in memory by a long-running caller (serve)
    log: Log = print
    warnings: list[SiteWarning] = field(default_factory=list)
    timings: Timings = field(default_factory=Timings)
    strict: bool = False  # a warning stops the build before it commits
    include: Include = field(default_factory=Include)  # drafts and future posts, when asked for
    theme_files: list[ThemeFile] = field(default_factory=list)  # as this build found them (`theme_files`)
    loading_key: str = ""  # the settings loaded posts depend on, and the renderer's version
    aside: RunsAside | None = None  # serve: posts run beside the build, not waited for (`server.runs`)

    @property
    def state(self) -> BuildState:
        """The state the last build left: opened from disk on first use (a build that finds nothing changed from
        the summary the last one left, `build.unchanged`, never opens it)."""
        if self.opened is None:
            self.opened = _keyed(BuildState.open(self.root / CACHE_FILE, self.warnings), self.loading_key)
        return self.opened

    @contextmanager
    def warnings_on_stop(self) -> Iterator[None]:
        """An error that stops the build is shown with every warning found until then: the author sees all the
        problems at once, not only the one that stopped it."""
        try:
            yield
        except StrictFailure:  # holds the warnings already
            raise
        except ExecutionFailed as exc:
            exc.warnings = sorted_warnings(self.warnings)
            raise
        except SiteErrors as exc:
            raise SiteErrors(exc.errors, [*self.warnings, *exc.warnings]) from None
        except SiteError as exc:
            if not self.warnings:
                raise
            raise SiteErrors([exc], self.warnings) from None

    @property
    def content_dir(self) -> Path:
        return self.root / "content"

    @functools.cached_property
    def math_macros(self) -> tuple[tuple[str, str], ...]:
        """site.yml's `math_macros`, as the parse stage passes them on (asked for once per post)."""
        return tuple(sorted(self.config.math_macros.items()))

    @classmethod
    def open(
        cls,
        root: Path,
        output: Path,
        state: BuildState | None,
        keep_going: bool = False,
        log: Log = print,
        strict: bool = False,
        include: Include | None = None,
        base_url: str | None = None,
    ) -> BuildContext:
        """Read the settings and theme, check the output folder; the state is `state`, or opened from disk when
        first used."""
        timings = Timings()
        root = root.resolve()
        output = (root / output).resolve()
        config = load_config(root, base_url)
        theme = find_theme(config)
        check_output_dir(root, output)
        warnings: list[SiteWarning] = list(config.warnings)
        warm = state is not None
        loading_key = content_key(
            RENDER_VERSION, config.permalink, config.url, config.language, config.posts_dir, repr(config.languages),
            repr(sorted(config.math_macros.items())),
            *((repr(config.exec.conventions),) if config.exec.conventions else ()),  # how posts are read
        )  # fmt: skip
        files = theme_files(theme) + site_static_files(config)
        ctx = cls(
            root,
            output,
            config,
            theme,
            None if state is None else _keyed(state, loading_key),
            site_key(config, theme, files),
            keep_going,
            warm,
            log,
            warnings,
            timings,
            strict,
            _include(include or Include(), config),
            files,
            loading_key,
        )
        timings.lap("setup")
        return ctx


def _keyed(state: BuildState, loading_key: str) -> BuildState:
    if state.loading_key != loading_key:  # loaded posts depend on these settings, their fragments on the renderer
        state.posts, state.loading_key = {}, loading_key
    return state


def site_key(config: SiteConfig, theme: Theme, files: list[ThemeFile]) -> str:
    settings = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name != "root"}  # not the
    # values SiteConfig keeps once computed (posts_path): a key of the settings alone
    digest = _theme_digest(theme, files)
    return content_key(__version__, RENDER_VERSION, repr(sorted(settings.items(), key=str)), digest)


def _theme_digest(theme: Theme, files: list[ThemeFile]) -> str:
    """UI strings and other theme files every page depends on (static files are copied; templates are keyed per
    page by `write.template_digests`, so a template edit rewrites only the pages using it)."""
    stamps = [repr([str(d) for d in theme.dirs])]  # a theme folder appearing changes the loader
    stamps += [f.stamp for f in files if f.part not in ("static", "templates")]
    return content_key(*stamps)


def _include(asked: Include, config: SiteConfig) -> Include:
    """What this build publishes: as asked (--drafts, --future), with site.yml's `future: true`, as of now (serve:
    each build's own now)."""
    return dataclasses.replace(asked, future=asked.future or config.future, now=datetime.now(timezone.utc))
