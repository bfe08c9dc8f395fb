"""The run cache, `.cache/exec/`: one JSON file per run key, and an index by post that says why a post runs again.

JSON only: a cache file is data, never code (a crafted one can at worst show wrong results, which the next
`--rerun` replaces)."""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from site_builder.execute.fingerprint import RUNNER_VERSION, code_key, files_key
from site_builder.execute.job import Job
from site_builder.execute.results import BlockResult, ErrorInfo, PostRun, well_formed
from site_builder.util.files import atomic_write

_INDEX_LOCK = threading.Lock()
Lines = list[list[int | None]]  # [code line, expected output line] of each block


class RunStore:
    """The cache in one folder. Its index is read once and written again at most once a second while posts run,
    and at the end (`flush`): written after every post, it cost a run of N posts N reads and writes of an index of
    N entries (16 s of the main process's CPU for 2,000 posts). A run stopped midway leaves the last second's
    posts out of the index: they run again next time."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._entries: dict[str, Any] | None = None
        self._written = 0.0  # when the index was last written (time.monotonic)
        self._dirty = False

    def _index(self) -> dict[str, Any]:
        if self._entries is None:
            try:
                data = json.loads((self.folder / "index.json").read_text())
            except (OSError, ValueError):
                data = {}
            self._entries = data if isinstance(data, dict) else {}
        return self._entries

    def flush(self) -> None:
        """Write the index if a post was saved since it was last written."""
        with _INDEX_LOCK:
            if self._dirty:
                atomic_write(self.folder / "index.json", json.dumps(self._index(), indent=1))
                self._dirty, self._written = False, time.monotonic()

    def load(self, job: Job) -> PostRun | None:
        """The run stored under the job's key, its lines moved to where the blocks are now; None if absent."""
        try:
            data = json.loads((self.folder / f"{job.key}.json").read_text(encoding="utf-8"))
            old_lines = data.pop("lines")
            if not all(well_formed(b) for b in data["blocks"]):
                return None
            data["blocks"] = [BlockResult(**b) for b in data["blocks"]]
            run = PostRun(**data)
        except (OSError, ValueError, TypeError, KeyError):
            return None
        if len(old_lines) != len(job.blocks):
            return None
        return move_lines(run, job, old_lines) if old_lines != _block_lines(job) else run

    def save(self, job: Job, run: PostRun) -> None:
        """Cache a passing run and index it by post. A run with a failure is not kept (a flaky failure, a timeout
        on a busy machine, a service down, must not stay): the index only notes it, so the post runs again and says
        why; a passing run left under the same key (before `--rerun`) goes."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{job.key}.json"
        if run.ok:
            data = asdict(run)
            data.pop("cells", None)  # the post's, not the run's: given again by run_posts
            data["cached"], data["reason"] = False, ""
            data["lines"] = _block_lines(job)
            atomic_write(path, json.dumps(data))
        else:
            path.unlink(missing_ok=True)
        entry = {
            "key": job.key,
            "code": code_key(job.blocks),
            "files": files_key(Path(job.source_dir), job.settings.files),
            "packages": job.packages,
            "runner": RUNNER_VERSION,
            "failed": not run.ok,
        }
        with _INDEX_LOCK:
            self._index()[job.rel] = entry
            self._dirty = True
            due = time.monotonic() - self._written >= 1.0
        if due:
            self.flush()

    def reasons(self, jobs: list[Job], rerun: bool) -> dict[str, str]:
        """Why each job runs instead of being read from the cache."""
        index = self._index()
        return {job.rel: "forced (--rerun)" if rerun else _reason(index.get(job.rel), job) for job in jobs}


def _reason(prev: dict[str, Any] | None, job: Job) -> str:
    if prev is None:
        return "new"
    if prev.get("failed") and prev.get("key") == job.key:
        return "failed last time"
    if prev.get("runner") != RUNNER_VERSION:
        return "site-builder changed"
    if prev.get("code") != code_key(job.blocks):
        return "code changed"
    if prev.get("files") != files_key(Path(job.source_dir), job.settings.files):
        return "file changed"
    if prev.get("packages", job.packages) != job.packages:
        old = prev.get("packages") or {}
        names = sorted(n for n in set(old) | set(job.packages) if old.get(n) != job.packages.get(n))
        return f"packages changed ({', '.join(names)})"
    return "settings or Python changed"


def _block_lines(job: Job) -> Lines:
    return [[b.line, b.expected_line] for b in job.blocks]


def move_lines(run: PostRun, job: Job, old_lines: Lines) -> PostRun:
    """A cached run of blocks that moved (prose edited above them), its line numbers moved along."""
    spans = []  # (first old line, after last old line, shift) of each block's code and expected output
    for b, (line, expected_line) in zip(job.blocks, old_lines, strict=False):
        if line is not None:
            spans.append((line, line + b.code.count("\n") + 1, b.line - line))
        if expected_line is not None and b.expected_line is not None:
            end = expected_line + (b.expected or "").count("\n") + 1
            spans.append((expected_line, end, b.expected_line - expected_line))

    def move(n: Any) -> Any:
        if not isinstance(n, int):
            return n
        return next((n + shift for first, end, shift in spans if first <= n < end), n)

    pattern = re.compile(rf'(File "{re.escape(job.rel)}", line |{re.escape(job.rel)}:|expected \(line )(\d+)')

    def text(s: str | None) -> str:
        return pattern.sub(lambda m: m.group(1) + str(move(int(m.group(2)))), s or "")

    def error(e: ErrorInfo | None) -> ErrorInfo | None:
        return None if e is None else dict(e, line=move(e.get("line")), traceback=text(e.get("traceback")))

    for result in run.blocks:
        result.line, result.error, result.stderr = move(result.line), error(result.error), text(result.stderr)
    run.error = error(run.error)
    return run
