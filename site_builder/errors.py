"""The one error type every stage raises for bad input: file, line and message."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class SiteError(Exception):
    """Bad input that stops a command; printed as `file:line: message`, always on one line."""

    message: str
    file: str | Path | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        message = " ".join(str(self.message).splitlines()).strip()  # one line, whatever a library said
        return f"{where}{message}"


class ExecutionFailed(SiteError):
    """Posts' code failed: one `file:line: Type: message` line per failure, with indented detail."""

    def __init__(self, lines: list[str], file: str | None = None, line: int | None = None, count: int = 1):
        super().__init__(lines[0].strip() if lines else "code in posts failed", file, line)
        self.lines = lines
        self.count = count  # failed blocks (a post-level failure counts as one)
        self.warnings: list[SiteWarning] = []  # found before the build stopped, printed after the failures


@dataclass(frozen=True)
class SiteWarning:
    """A problem inside one post (or one setting) that does not stop the build: `file:line: message`."""

    message: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file and self.line else f"{self.file}: " if self.file else ""
        return f"{where}{self.message}"


def _where(problem: SiteError | SiteWarning) -> tuple[str, int, str]:
    return (str(problem.file or ""), problem.line or 0, problem.message)


class SiteErrors(SiteError):
    """Every problem found that stops the build, with the warnings found beside them: printed all at once."""

    def __init__(self, errors: list[SiteError], warnings: list[SiteWarning] | None = None):
        self.errors = sorted(errors, key=_where)
        self.warnings = sorted_warnings(warnings or [])
        first = self.errors[0]
        super().__init__(first.message, first.file, first.line)

    def lines(self, show: Callable[[SiteError], str] = str) -> list[str]:
        """`error: ...` and `warning: ...` lines, sorted by file and line; then the summary line
        (`error: stopped with 3 errors, 2 warnings`), one error alone included."""
        found = [(_where(e), f"error: {show(e)}") for e in self.errors]
        found += [(_where(w), f"warning: {w}") for w in self.warnings]
        return [line for _, line in sorted(found)] + [stopped(len(self.errors), len(self.warnings))]


def stopped(errors: int, warnings: int = 0) -> str:
    """The summary line that ends the output of every command that stopped."""
    return f"error: stopped with {problem_count(errors, warnings)}"


def problem_count(errors: int, warnings: int) -> str:
    """`3 errors, 12 warnings` (either left out when 0): the end of every summary line."""
    parts = [f"{errors} error{'s' if errors != 1 else ''}"] if errors else []
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)


def sorted_warnings(warnings: list[SiteWarning]) -> list[SiteWarning]:
    """By file, line and message, each once: the order every command prints them in."""
    return sorted(set(warnings), key=_where)


class StrictFailure(SiteError):
    """`--strict`: the build had warnings, which count as errors; nothing was written."""

    def __init__(self, warnings: list[SiteWarning]):
        self.warnings = sorted_warnings(warnings)
        n = len(self.warnings)
        super().__init__(f"{n} warning{'s' if n != 1 else ''} with --strict: the output was left as it was")
