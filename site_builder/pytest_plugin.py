"""pytest plugin: `pytest content/` collects each `execute: true` post, one test per code block.

Test ids look like `content/posts/numpy-bug.md::line 42`. Posts run through the same engine as
`site-builder check` (same isolation, same cache under the site's `.cache/exec/`), in parallel, in an engine
process forked while pytest starts (pytest_batch.py), which also tells pytest what each post holds.

With pytest-xdist (`pytest -n 3`), the process handing out tests runs no post, and each worker runs a post when it
runs the post's first test, in an engine of its own: each post runs once, not once in every worker.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from site_builder.pytest_batch import Batch, describe, early_batches, in_sight, site_root

if TYPE_CHECKING:
    from site_builder.execute.results import PostRun


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    group = parser.getgroup("site-builder")
    group.addoption("--rerun-posts", action="store_true", help="run executing posts even when cached results exist")
    group.addoption(
        "--strict-posts",
        action="store_true",
        help="a post's warnings (unknown front matter keys, code block options) fail it, as `site-builder check "
        "--strict` does",
    )
    config = pluginmanager.get_plugin("pytestconfig")  # the plugin is loaded: pytest has not read its arguments
    if isinstance(config, pytest.Config):
        # an xdist worker: its environment says so, unless a worker of the same run said it to the processes it
        # starts (a pytest that a test starts inherits the worker's environment: it is no worker)
        config.stash[_WORKER] = bool(os.environ.get("PYTEST_XDIST_WORKER")) and not _started_by_worker()
        root = in_sight(list(config.invocation_params.args), config.invocation_params.dir)
        if root is not None and not config.stash[_WORKER]:  # an engine starts its template while pytest starts
            config.stash[_WARM] = Batch(root)


_MARKDOWN = (".md", ".markdown", ".mkd", ".mkdn", ".qmd")  # postfiles.POST_SUFFIXES (this plugin imports none)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> PostFile | None:
    if file_path.suffix not in (*_MARKDOWN, ".ipynb") or "content" not in file_path.parts:
        return None
    text = file_path.read_text(encoding="utf-8", errors="replace")
    if file_path.suffix in _MARKDOWN:  # a quick look; the post's description decides as `check` does (execute: yes)
        if not text.startswith(("---", "+++")):
            return None
        executes = re.search(r"^execute\s*[:=]", text[:4000], re.M) is not None
    else:  # a notebook: `execute:` in its first raw cell, or "execute" in its metadata
        executes = '"execute' in text or "execute:" in text
    root = site_root(file_path)
    if root is None:
        return None
    return PostFile.from_parent(parent, path=file_path, site_root=root, executes=executes)


class PostFailure(Exception):
    """A block (or the post around it) failed; the message is the `post.md:line: ...` report."""


class PostWarning(UserWarning):
    """A post's warning, as `site-builder build` prints it (`content/posts/x.md:4: unknown key 'execte', ignored (did
    you mean 'execute'?)`): in pytest's warnings summary; with --strict-posts, a failed test of the post instead."""


class PostFile(pytest.File):
    """A post file: a test per code block of a post that executes; its warnings (any post an engine described, one
    that does not run too: `execte: true` says why), as pytest warnings or, with --strict-posts, a failing test."""

    def __init__(self, *, site_root: Path, executes: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.site_root = site_root
        self.executes = executes  # by a quick look: a post that does not run is described by an engine, or left
        self.rel = ""
        self._run: PostRun | None = None

    def collect(self) -> Iterator[pytest.Item]:
        found = next((d for b in _batches(self.config, self.site_root) if (d := b.described(self.path))), None)
        if found is None and not self.executes:
            return  # no engine loaded it (tests selected otherwise): not loaded here only for its warnings
        if found is None:  # no engine runs it: described here, as an engine would
            from site_builder.config import load_config

            found = describe(self.path, load_config(self.site_root))[0]
        if found.error is not None:
            if not self.executes:
                return  # a file that is no post, or a broken one that does not run: the build says so
            raise self.CollectError(found.error)
        self.rel = found.rel
        if found.warnings and self.config.getoption("--strict-posts"):
            problems = [w.text(strict=True) for w in found.warnings]
            yield PostProblems.from_parent(self, name="warnings", problems=problems)
        else:
            for warning in found.warnings:  # in pytest's warnings summary, at the post's line (shown under it)
                text = warning.text() if warning.line is None else replace(warning, file=None, line=None).text()
                warnings.warn_explicit(PostWarning(text), PostWarning, str(self.path), warning.line or 0)
        for index, line, name in found.blocks:
            yield BlockItem.from_parent(self, name=name, index=index, line=line)

    def run_once(self) -> PostRun:
        """The post's run, from the engine running it (started with pytest or when collection ended)."""
        if self._run is None:
            batches = _batches(self.config, self.site_root)
            batch = next((b for b in batches if b.described(self.path)), None)
            if batch is None:  # not among the session's items (run alone)
                batch = _engine(self.config, self.site_root).start(
                    self.config.getoption("--rerun-posts"), files=[self.path]
                )
                batches.append(batch)
            self._run = batch.wait(self.rel)
        return self._run


_BATCHES = pytest.StashKey[dict[Path, list[Batch]]]()
_WARM = pytest.StashKey[Batch]()  # an engine forked before pytest read its arguments, not told its posts yet
_WORKER = pytest.StashKey[bool]()  # this process is a pytest-xdist worker (known before pytest reads its arguments)
_STARTED_BY = "SITE_BUILDER_XDIST_WORKER"  # set by an xdist worker (configured), for the processes its tests start


def _xdist_worker_id() -> str:
    """The xdist run and worker this process's environment names ("/" for none)."""
    return f"{os.environ.get('PYTEST_XDIST_TESTRUNUID', '')}/{os.environ.get('PYTEST_XDIST_WORKER', '')}"


def _started_by_worker() -> bool:
    """Whether the xdist worker that the environment names is not this process but one that started it (a worker
    of a run started by a test has a run id of its own)."""
    return os.environ.get(_STARTED_BY) == _xdist_worker_id()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker, as xdist configures it
        os.environ[_STARTED_BY] = _xdist_worker_id()


def _batches(config: pytest.Config, root: Path) -> list[Batch]:
    return config.stash.setdefault(_BATCHES, {}).setdefault(root, [])


_SELECTING = ("keyword", "markexpr", "deselect", "lf", "failedfirst", "newfirst")  # options that select tests
_NOT_RUNNING = (  # options with which no test runs
    "collectonly",
    "help",
    "version",
    "markers",
    "showfixtures",
    "show_fixtures_per_test",
    "setuponly",
    "setupplan",
)


def _distributed(config: pytest.Config, option: Any) -> bool:
    """Whether pytest-xdist hands this run's tests to workers (this is one of them, or the process handing them out).
    Then no engine runs a site's posts up front: every worker would run them all, at once."""
    if hasattr(config, "workerinput") or config.stash.get(_WORKER, False):
        return True
    return bool(getattr(option, "numprocesses", None) or getattr(option, "tx", None)) or getattr(
        option, "dist", "no"
    ) not in ("no", None)


def _selects(option: Any) -> bool:
    """Whether pytest was asked for some tests only, or for none (then posts run when collection ends, if at all)."""
    return any(getattr(option, name, None) for name in (*_SELECTING, *_NOT_RUNNING))


def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Start running the posts under the paths given as soon as pytest has read its arguments: the engine works
    while pytest is still starting (unless tests are selected otherwise: -k, -m, --lf, a test id, ...)."""
    option = early_config.known_args_namespace
    if _distributed(early_config, option):
        _none_up_front(early_config)
    elif option.file_or_dir or _selects(option):  # else the paths are known with the session (testpaths, or ".")
        args = [] if _selects(option) else list(option.file_or_dir)
        _start(early_config, args, early_config.invocation_params.dir, bool(getattr(option, "rerun_posts", False)))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Without paths given (testpaths, or the current folder), start running the posts under those now."""
    config = session.config
    if _BATCHES not in config.stash and _distributed(config, config.option):
        _none_up_front(config)
    elif _BATCHES not in config.stash:
        _start(
            config,
            [] if _selects(config.option) else list(config.args),
            config.invocation_params.dir,
            config.getoption("--rerun-posts"),
        )


def _start(config: pytest.Config, args: list[str], base: Path, rerun: bool) -> None:
    """The engines for the posts under `args`, started (the one forked early, if for one of their sites). The one
    forked early and not needed ends, unless posts may run when collection ends (tests selected: -k, a test id)."""
    warm = config.stash.get(_WARM, None)
    early = early_batches(args, base, rerun, warm) if args else {}
    config.stash[_BATCHES] = {root: [batch] for root, batch in early.items()}
    runs_none = any(getattr(config.known_args_namespace, name, None) for name in _NOT_RUNNING)
    if warm is not None and (early or runs_none):
        del config.stash[_WARM]
        if warm not in early.values():
            warm.cancel()


def _none_up_front(config: pytest.Config) -> None:
    """With xdist: no engine runs posts before a worker runs their tests; the one forked early, if any, ends."""
    config.stash[_BATCHES] = {}
    warm = config.stash.get(_WARM, None)
    if warm is not None:
        del config.stash[_WARM]
        warm.cancel()


def _engine(config: pytest.Config, root: Path) -> Batch:
    """An engine for the site at `root`: the one forked early if it is for that site and not told its posts yet."""
    warm = config.stash.get(_WARM, None)
    if warm is None or warm.root != root:
        return Batch(root)
    del config.stash[_WARM]
    return warm


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Run the posts collected (and not deselected) that no engine runs yet, one engine per site."""
    if session.config.option.collectonly or _distributed(session.config, session.config.option):
        return  # with xdist, a worker runs a post when it runs its first test (PostFile.run_once)
    by_site: dict[Path, dict[str, Path]] = {}
    for item in session.items:
        if isinstance(item, BlockItem):
            by_site.setdefault(item.post_file.site_root, {})[os.path.realpath(item.path)] = item.path
    rerun = session.config.getoption("--rerun-posts")
    for root, files in by_site.items():
        running = _batches(session.config, root)
        left = [path for path in files.values() if not any(b.described(path) for b in running)]
        if left:
            running.append(_engine(session.config, root).start(rerun, files=left))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Engines still running (pytest stopped early: -x, Ctrl-C) stop their posts."""
    if _WARM in config.stash:  # not needed after all
        config.stash[_WARM].cancel()
    for batches in config.stash.get(_BATCHES, {}).values():
        for batch in batches:
            batch.stop()


class PostProblems(pytest.Item):
    """--strict-posts: a post's warnings, which are errors, as one failed test (`content/posts/x.md::warnings`)."""

    def __init__(self, *, problems: list[str], **kw: Any) -> None:
        super().__init__(**kw)
        self.problems = problems

    def runtest(self) -> None:
        from site_builder.errors import strict_count  # light: the standard library's dataclasses

        count = strict_count(len(self.problems), "--strict-posts")
        raise PostFailure("\n".join([*(f"error: {p}" for p in self.problems), f"error: {count}"]))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.parent.rel if isinstance(self.parent, PostFile) else self.path.name}: warnings"


class BlockItem(pytest.Item):
    def __init__(self, *, index: int, line: int, **kw: Any) -> None:
        super().__init__(**kw)
        self.block_index, self.block_line = index, line

    @property
    def post_file(self) -> PostFile:
        assert isinstance(self.parent, PostFile)
        return self.parent

    def runtest(self) -> None:
        run = self.post_file.run_once()
        result = next(b for b in run.blocks if b.index == self.block_index)
        post_error = run.error if run.error and _error_block_line(run) == self.block_line else None
        if result.status == "failed" or post_error:
            raise PostFailure(_block_report(run, self.block_line))
        if result.status == "skipped":
            pytest.skip("{skip}: shown, not run")
        if result.status == "not run":
            pytest.skip("not run: an earlier block failed" if not run.error else f"not run: {run.error['message']}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, PostFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.block_line - 1, f"{self.post_file.rel}:{self.block_line}"


def _error_block_line(run: PostRun) -> int | None:
    """The block a post-level failure belongs to: the one at its line, else the first (e.g. a missing `requires`
    module, reported at the front matter, fails the post's first block instead of skipping them all)."""
    if not run.error or not run.blocks:
        return None
    lines = [b.line for b in run.blocks]
    return run.error.get("line") if run.error.get("line") in lines else lines[0]


def _block_report(run: PostRun, line: int) -> str:
    """The failure lines (with detail) that belong to the block starting at `line`."""
    from site_builder.execute.report import failure_lines
    from site_builder.execute.results import Failure

    block = next(b for b in run.blocks if b.line == line)
    failures = []
    if block.status == "failed" and block.error:
        e = block.error
        failures.append(Failure(e["line"] or line, e["type"], e["message"], e.get("traceback", "")))
    if run.error and _error_block_line(run) == line:
        e = run.error
        failures.append(Failure(e.get("line") or line, e["type"], e["message"], e.get("traceback", "")))
    return "\n".join(failure_lines(run, failures))
