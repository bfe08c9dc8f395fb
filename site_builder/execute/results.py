"""What a run produced: each block's result, and the post's (a timeout or a crash fails the post as a whole)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from site_builder.errors import SiteWarning

ErrorInfo = dict[str, Any]  # type, message, line, traceback: as the runner writes it (JSON)
Value = dict[str, str]  # the value a block ends with, by MIME type: text/plain (its repr) and its richest other form

if TYPE_CHECKING:
    from site_builder.notebook import CellMap


@dataclass
class Failure:
    """One failure of a post: its line, the exception's type, its message and the detail (traceback, diff)."""

    line: int
    kind: str
    message: str
    detail: str


@dataclass
class BlockResult:
    """What one block did."""

    index: int
    line: int
    status: str  # passed | failed | skipped | not run
    stdout: str = ""
    stderr: str = ""
    figures: list[str] = field(default_factory=list)
    error: ErrorInfo | None = None
    raised: str = ""
    seconds: float = 0.0
    value: Value | None = None  # shown under the code (a cache file from before has none)


@dataclass
class PostRun:
    """One post's run: its blocks' results, or a post-level failure (timeout, crash, ...)."""

    rel: str
    key: str
    blocks: list[BlockResult]
    error: ErrorInfo | None = None
    cached: bool = False
    reason: str = ""
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # `file:line: message`: what the run could not do as asked
    cells: CellMap | None = field(default=None, repr=False)  # a notebook post's lines by cell (not stored)

    @property
    def failures(self) -> list[Failure]:
        """Every failure, the post-level one included."""
        out = [
            Failure(b.error["line"] or b.line, b.error["type"], b.error["message"], b.error.get("traceback", ""))
            for b in self.blocks
            if b.status == "failed" and b.error
        ]
        if self.error:
            e = self.error
            out.append(Failure(e["line"], e["type"], e["message"], e.get("traceback", "")))
        return out

    @property
    def ok(self) -> bool:
        return not self.failures

    def problems(self) -> list[SiteWarning]:
        """What the run could not do as asked (`warnings`), as every other warning: in the build's problem list,
        printed once with the others, an error under --strict."""
        found = []
        for text in self.warnings:
            where, _, message = text.partition(": ")
            file, _, line = where.rpartition(":")
            if file and line.isdigit():
                found.append(SiteWarning(message, file, int(line)))
            else:
                found.append(SiteWarning(text, self.rel))
        return found

    def count(self, status: str) -> int:
        return sum(1 for b in self.blocks if b.status == status)


def error_info(kind: str, message: str, line: int, traceback: str = "") -> ErrorInfo:
    return {"type": kind, "line": line, "traceback": traceback, "message": message}


_STATUSES = ("passed", "failed", "skipped", "not run")
_TEXTS = ("stdout", "stderr", "raised", "reason")


def well_formed(r: object) -> bool:
    """Whether a block's result, as the post's process wrote it (or a run cache holds it), has the types the build
    reads: anything else came from code that wrote the file itself, and is not read (a strict post cannot stop the
    build by writing numbers where text goes)."""
    if not isinstance(r, dict) or not isinstance(r.get("index", 0), int) or r.get("status") not in _STATUSES:
        return False
    if any(not isinstance(r.get(name, ""), str) for name in _TEXTS):
        return False
    if not isinstance(r.get("seconds", 0.0), (int, float)) or isinstance(r.get("seconds"), bool):
        return False
    figures, value, error = r.get("figures", []), r.get("value"), r.get("error")
    if not isinstance(figures, list) or not all(isinstance(f, str) for f in figures):
        return False
    if value is not None and not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
        return False
    return error is None or (
        isinstance(error, dict)
        and isinstance(error.get("type"), str)
        and isinstance(error.get("message"), str)
        and isinstance(error.get("line"), (int, type(None)))
        and isinstance(error.get("traceback", ""), str)
    )
