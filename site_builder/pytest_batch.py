"""The pytest plugin's runs: one site's posts run at once (in parallel, through the engine `check` uses) by a
thread, while pytest collects and goes through the items; a post's blocks are reported as soon as its run is
known. A batch is started as soon as its posts are known: when the session starts, from the paths pytest was
given (then collection overlaps the runs), else when collection ends, with the posts collected."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from site_builder.check import EXEC_CACHE
from site_builder.config import load_config
from site_builder.config.siteexec import SiteExec
from site_builder.errors import SiteError
from site_builder.execute import run_posts
from site_builder.execute.options import ExecOptions
from site_builder.execute.results import PostRun
from site_builder.execute.settings import exec_settings
from site_builder.load import find_post_files, load_post
from site_builder.models import ParsedPost
from site_builder.parse import parse_post

Found = tuple[list[ParsedPost], SiteExec]


class Batch:
    """Posts of one site running in a thread; `find` says which (called in the thread)."""

    def __init__(self, root: Path, rerun: bool, find: Callable[[], Found]) -> None:
        self.rels: set[str] = set()
        self.discovered = threading.Event()
        self.error: BaseException | None = None
        self._runs: dict[str, PostRun] = {}
        self._ready: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._finished = False
        threading.Thread(target=self._run, args=(root, rerun, find), daemon=True).start()

    def _run(self, root: Path, rerun: bool, find: Callable[[], Found]) -> None:
        parsed: list[ParsedPost] = []
        try:
            parsed, site = find()
            self.rels = {p.post.rel for p in parsed}
            self.discovered.set()
            if parsed:
                run_posts(parsed, root / EXEC_CACHE, ExecOptions(rerun=rerun), site, on_run=self._done)
        except BaseException as exc:  # reported by every post still waiting
            self.error = exc
        finally:
            self.discovered.set()
            with self._lock:
                self._finished = True
                events = list(self._ready.values())
            for event in events:
                event.set()

    def _event(self, rel: str) -> threading.Event:
        with self._lock:
            event = self._ready.setdefault(rel, threading.Event())
            if self._finished:
                event.set()
        return event

    def _done(self, rel: str, run: PostRun) -> None:
        self._runs[rel] = run
        self._event(rel).set()

    def covers(self, rel: str) -> bool:
        self.discovered.wait()
        return rel in self.rels

    def wait(self, rel: str) -> PostRun:
        self._event(rel).wait()
        if rel not in self._runs:
            raise RuntimeError(f"the posts could not be run: {self.error!r}")
        return self._runs[rel]


def site_root(path: Path) -> Path | None:
    """The folder holding site.yml above `path`."""
    for parent in path.parents:
        if (parent / "site.yml").exists():
            return parent
    return None


def posts_under(root: Path, paths: list[Path]) -> Callable[[], Found]:
    """What a batch started with the session runs: the site's executing posts under `paths`."""

    def find() -> Found:
        config = load_config(root)
        parsed = []
        for path in find_post_files(config):
            if not any(path.resolve().is_relative_to(p) for p in paths):
                continue
            try:
                post = load_post(path, config)
                if post.execute:
                    exec_settings(post)  # a wrong one is the post's collection error, not run here
                    parsed.append(parse_post(post))
            except SiteError:
                continue
        return parsed, config.exec

    return find


def early_batches(args: list[str], base: Path, rerun: bool) -> dict[Path, Batch]:
    """A batch per site for the paths pytest was given, started now (none when an argument is not a plain path:
    `file::test` selects blocks, and posts then run when collection ends)."""
    paths = []
    for arg in args:
        path = (base / arg).resolve()
        if "::" in arg or not path.exists():
            return {}
        paths.append(path)
    roots = {site_root(p / "_" if p.is_dir() else p) for p in paths}
    return {root: Batch(root, rerun, posts_under(root, paths)) for root in roots if root is not None}
