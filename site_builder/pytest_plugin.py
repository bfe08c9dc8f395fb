"""pytest plugin: `pytest content/` collects each `execute: true` post, one test per code block.

Test ids look like `content/posts/numpy-bug.md::line 42`. Posts run through the same engine as
`site-builder check` (same isolation, same cache under the site's `.cache/exec/`), in parallel, in batches that
start as soon as their posts are known (pytest_batch.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from site_builder.config import load_config
from site_builder.errors import SiteError
from site_builder.execute.blocks import CodeBlock, code_blocks
from site_builder.execute.report import failure_lines
from site_builder.execute.results import Failure, PostRun
from site_builder.execute.settings import exec_settings
from site_builder.load import load_post
from site_builder.parse import parse_post
from site_builder.pytest_batch import Batch, Found, early_batches, site_root


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("site-builder")
    group.addoption("--rerun-posts", action="store_true", help="run executing posts even when cached results exist")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> PostFile | None:
    if file_path.suffix not in (".md", ".ipynb") or "content" not in file_path.parts:
        return None
    if file_path.suffix == ".md":
        head = file_path.read_text(encoding="utf-8", errors="replace")[:4000]
        if not head.startswith("---") or not re.search(r"^execute\s*:", head, re.M):
            return None  # a quick look; PostFile.collect decides as `check` does (execute: True, yes, ... run too)
    elif '"execute' not in (text := file_path.read_text(encoding="utf-8", errors="replace")) and "execute:" not in text:
        return None  # a notebook: `execute:` in its first raw cell, or "execute" in its metadata
    root = site_root(file_path)
    if root is None:
        return None
    return PostFile.from_parent(parent, path=file_path, site_root=root)


class PostFailure(Exception):
    """A block (or the post around it) failed; the message is the `post.md:line: ...` report."""


class PostFile(pytest.File):
    def __init__(self, *, site_root: Path, **kw: Any) -> None:
        super().__init__(**kw)
        self.site_root = site_root
        self._run: PostRun | None = None

    def collect(self) -> Iterator[BlockItem]:
        config = self.site_config = load_config(self.site_root)
        try:
            self.post = load_post(self.path, config)
            if self.post.execute:
                exec_settings(self.post)  # bad `exec:` settings: a collection error, not a traceback per block
        except SiteError as exc:
            raise self.CollectError(str(exc)) from None
        if not self.post.execute:
            return
        self.parsed = parse_post(self.post)
        cells = self.post.cells  # a notebook's blocks are named by cell: `nb.ipynb::cell 3:line 1`
        for block in code_blocks(self.parsed):
            name = cells.where(block.line) if cells is not None else f"line {block.line}"
            yield BlockItem.from_parent(self, name=name, block=block)

    def run_once(self) -> PostRun:
        """The post's run, from the batch running it (started with the session or when collection ended)."""
        if self._run is None:
            batches = self.config.stash.setdefault(_BATCHES, {}).setdefault(self.site_root, [])
            batch = next((b for b in batches if b.covers(self.post.rel)), None)
            if batch is None:  # not among the session's items (run alone)
                batch = Batch(self.site_root, self.config.getoption("--rerun-posts"), _collected([self]))
                batches.append(batch)
            self._run = batch.wait(self.post.rel)
        return self._run


def _collected(files: list[PostFile]) -> Callable[[], Found]:
    return lambda: ([f.parsed for f in files], files[0].site_config.exec)


_BATCHES = pytest.StashKey[dict[Path, list[Batch]]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start running the posts under the paths given, unless tests are selected otherwise (-k, -m, --lf, ...)."""
    option = session.config.option
    if option.collectonly or option.keyword or option.markexpr or getattr(option, "deselect", None):
        return
    if getattr(option, "lf", False) or getattr(option, "failedfirst", False) or getattr(option, "newfirst", False):
        return
    base = session.config.invocation_params.dir
    early = early_batches(list(session.config.args), base, session.config.getoption("--rerun-posts"))
    session.config.stash[_BATCHES] = {root: [batch] for root, batch in early.items()}


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Run the posts collected (and not deselected) that no batch runs yet, one batch per site."""
    if session.config.option.collectonly:
        return
    by_site: dict[Path, dict[str, PostFile]] = {}
    for item in session.items:
        if isinstance(item, BlockItem):
            by_site.setdefault(item.post_file.site_root, {})[item.post_file.post.rel] = item.post_file
    rerun = session.config.getoption("--rerun-posts")
    batches = session.config.stash.setdefault(_BATCHES, {})
    for root, files in by_site.items():
        running = batches.setdefault(root, [])
        left = [f for rel, f in files.items() if not any(b.covers(rel) for b in running)]
        if left:
            running.append(Batch(root, rerun, _collected(left)))


class BlockItem(pytest.Item):
    def __init__(self, *, block: CodeBlock, **kw: Any) -> None:
        super().__init__(**kw)
        self.block = block

    @property
    def post_file(self) -> PostFile:
        assert isinstance(self.parent, PostFile)
        return self.parent

    def runtest(self) -> None:
        run = self.post_file.run_once()
        result = next(b for b in run.blocks if b.index == self.block.index)
        post_error = run.error if run.error and _error_block_line(run) == self.block.line else None
        if result.status == "failed" or post_error:
            raise PostFailure(_block_report(run, self.block.line))
        if result.status == "skipped":
            pytest.skip("{skip}: shown, not run")
        if result.status == "not run":
            pytest.skip("not run: an earlier block failed" if not run.error else f"not run: {run.error['message']}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, PostFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.block.line - 1, f"{self.post_file.post.rel}:{self.block.line}"


def _error_block_line(run: PostRun) -> int | None:
    """The block a post-level failure belongs to: the one at its line, else the first (e.g. a missing `requires`
    module, reported at the front matter, fails the post's first block instead of skipping them all)."""
    if not run.error or not run.blocks:
        return None
    lines = [b.line for b in run.blocks]
    return run.error.get("line") if run.error.get("line") in lines else lines[0]


def _block_report(run: PostRun, line: int) -> str:
    """The failure lines (with detail) that belong to the block starting at `line`."""
    block = next(b for b in run.blocks if b.line == line)
    failures = []
    if block.status == "failed" and block.error:
        e = block.error
        failures.append(Failure(e["line"] or line, e["type"], e["message"], e.get("traceback", "")))
    if run.error and _error_block_line(run) == line:
        e = run.error
        failures.append(Failure(e.get("line") or line, e["type"], e["message"], e.get("traceback", "")))
    return "\n".join(failure_lines(run, failures))
