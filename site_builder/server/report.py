"""What `serve` says of its builds beyond the pages: each warning and each code failure printed once, when a save
causes it (not again on every rebuild); a post's warnings in a note on its open page, until it has none; failing
code as an overlay in the open pages (the site is built, as `build --keep-going` builds it: the failure is in its
post's page too); and where the site is previewed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from site_builder.build.context import Log
from site_builder.config import load_config
from site_builder.errors import SiteError, SiteWarning, sorted_warnings
from site_builder.server.http import page_file

if TYPE_CHECKING:
    from site_builder.build import BuildResult
    from site_builder.execute.results import PostRun
    from site_builder.server.http import Broadcaster


@dataclass
class Printed:
    """The problems printed so far: the last build's warnings, and the code failures still there."""

    warnings: set[SiteWarning] = field(default_factory=set)
    failures: set[tuple[str, str]] = field(default_factory=set)  # (post, its run's key)
    failing: bool = False  # the open pages show failing code (an overlay)

    def report(self, result: BuildResult, log: Log) -> None:
        """Print the build's warnings and code failures the last build did not have (sorted): a save shows what it
        caused, once."""
        now = set(result.warnings)
        for warning in sorted_warnings(list(now - self.warnings)):
            log(f"warning: {warning}")
        self.warnings = now
        failed = _failed(result)
        if failed:
            from site_builder.execute.report import failure_lines

            for run in failed:
                if (run.rel, run.key) not in self.failures:
                    for line in failure_lines(run):
                        log(line)
        self.failures = {(run.rel, run.key) for run in failed}

    def show(self, result: BuildResult, events: Broadcaster) -> None:
        """Show the build's code failures in the open pages, over the reloads it sent (or clear them: none left)."""
        failed = _failed(result)
        if failed:
            from site_builder.execute.report import failure_lines

            first = failed[0].failures[0]
            lines = [line for run in failed for line in failure_lines(run)]
            events.send({"type": "error", "kind": "code", "file": failed[0].rel, "line": first.line,
                         "message": "\n".join(lines)})  # fmt: skip
        elif self.failing:
            events.send({"type": "ok"})
        self.failing = bool(failed)
        events.warn(_page_warnings(result))


def _page_warnings(result: BuildResult) -> dict[str, list[str]]:
    """Each post's warnings, as the terminal printed them, by the file of its page (`/blog/x/index.html`)."""
    pages = {record.post.rel: page_file(record.post.permalink) for record in result.state.posts.values()}
    shown: dict[str, list[str]] = {}
    for warning in sorted_warnings(list(result.warnings)):
        page = pages.get(warning.file or "")
        if page is not None:
            shown.setdefault(page, []).append(warning.text())
    return shown


def _failed(result: BuildResult) -> list[PostRun]:
    return sorted((run for run in result.runs.values() if not run.ok), key=lambda run: run.rel)


@dataclass
class Preview:
    """Where the site is previewed: a site under a path (`url: https://user.github.io/blog/`) is served at the
    server's root, its links moved there (`base_url`, its url without the path); a request under the path
    (`/blog/...`) is sent to the same page at the root (`prefix`)."""

    base_url: str | None = None
    prefix: str = ""

    @classmethod
    def of(cls, root: Path) -> Preview:
        """As site.yml says now (as a site at the root when it cannot be read: the build says why)."""
        try:
            url = load_config(root).url
        except SiteError:
            return cls()
        parts = urlsplit(url)
        path = parts.path.strip("/")
        return cls(f"{parts.scheme}://{parts.netloc}/", f"/{path}/") if path else cls()

    def at_root(self, path: str) -> str | None:
        """`path` under the site's path moved to the root (`/blog/css/site.css` -> `/css/site.css`), or None."""
        if self.prefix and (path + "/").startswith(self.prefix):
            return "/" + path[len(self.prefix) :]
        return None
