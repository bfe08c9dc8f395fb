"""pytest plugin: `pytest content/` collects each `execute: true` post, one test per code block.

Test ids look like `content/posts/numpy-bug.md::line 42`. Posts run through the same engine as
`site-builder check` (same isolation, same cache under the site's `.cache/exec/`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from site_builder.check import EXEC_CACHE
from site_builder.config import load_config
from site_builder.errors import SiteError
from site_builder.execute import run_posts
from site_builder.execute.blocks import CodeBlock, code_blocks
from site_builder.execute.options import ExecOptions
from site_builder.execute.report import failure_lines
from site_builder.execute.results import Failure, PostRun
from site_builder.execute.settings import exec_settings
from site_builder.load import load_post
from site_builder.parse import parse_post


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("site-builder")
    group.addoption("--rerun-posts", action="store_true", help="run executing posts even when cached results exist")


def _site_root(path: Path) -> Path | None:
    for parent in path.parents:
        if (parent / "site.yml").exists():
            return parent
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> PostFile | None:
    if file_path.suffix != ".md" or "content" not in file_path.parts:
        return None
    head = file_path.read_text(encoding="utf-8", errors="replace")[:4000]
    if not head.startswith("---") or not re.search(r"^execute\s*:", head, re.M):
        return None  # a quick look; PostFile.collect decides as `check` does (execute: True, yes, ... run too)
    root = _site_root(file_path)
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
        for block in code_blocks(self.parsed):
            yield BlockItem.from_parent(self, name=f"line {block.line}", block=block)

    def run_once(self) -> PostRun:
        if self._run is None:
            options = ExecOptions(rerun=self.config.getoption("--rerun-posts"))
            runs = run_posts([self.parsed], self.site_root / EXEC_CACHE, options, self.site_config.exec)
            self._run = runs[self.post.rel]
        return self._run


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
