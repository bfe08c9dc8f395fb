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
    """A problem inside one post (or one setting) that does not stop the build: `file:line: message`, then what the
    build did about it (`consequence`: `ignored`, `shown as its alt text`) and how to fix it (`hint`, in brackets).
    Under `--strict` it is an error: the build does not go on, so `text(strict=True)` leaves the consequence out."""

    message: str  # the problem alone, as an error says it: "unknown key 'x'"
    file: str | None = None
    line: int | None = None
    consequence: str = ""  # what the build did instead: "ignored", "shown as its alt text"
    hint: str = ""  # how to fix it: "did you mean 'title'?"

    def text(self, strict: bool = False) -> str:
        """`file:line: message, consequence (hint)`; under --strict without the consequence."""
        where = f"{self.file}:{self.line}: " if self.file and self.line else f"{self.file}: " if self.file else ""
        then = f", {self.consequence}" if self.consequence and not strict else ""
        return f"{where}{self.message}{then}" + (f" ({self.hint})" if self.hint else "")

    def __str__(self) -> str:
        return self.text()


def warning_line(warning: SiteWarning, strict: bool = False) -> str:
    """How every command prints a warning: `warning: file:line: ...`, or under --strict `error: file:line: ...`."""
    return f"error: {warning.text(strict=True)}" if strict else f"warning: {warning}"


def _where(problem: SiteError | SiteWarning) -> tuple[str, int, str]:
    return (str(problem.file or ""), problem.line or 0, problem.message)


class SiteErrors(SiteError):
    """Every problem found that stops the build, with the warnings found beside them: printed all at once."""

    def __init__(self, errors: list[SiteError], warnings: list[SiteWarning] | None = None):
        self.errors = sorted(errors, key=_where)
        self.warnings = sorted_warnings(warnings or [])
        first = self.errors[0]
        super().__init__(first.message, first.file, first.line)

    def lines(self, show: Callable[[SiteError], str] = str, strict: bool = False) -> list[str]:
        """`error: ...` and `warning: ...` lines (under --strict, warnings are `error: ...` too), sorted by file and
        line; then the summary line (`error: stopped with 3 errors, 2 warnings`), one error alone included."""
        found = [(_where(e), f"error: {show(e)}") for e in self.errors]
        found += [(_where(w), warning_line(w, strict)) for w in self.warnings]
        return [line for _, line in sorted(found)] + [stopped(len(self.errors), len(self.warnings), strict)]


def stopped(errors: int, warnings: int = 0, strict: bool = False) -> str:
    """The summary line that ends the output of every command that stopped."""
    return f"error: stopped with {problem_count(errors, warnings, strict)}"


def problem_count(errors: int, warnings: int, strict: bool = False) -> str:
    """`3 errors, 12 warnings` (either left out when 0): the end of every summary line. Under --strict the warnings
    are errors: `3 errors; 12 warnings are errors under --strict`."""
    parts = [f"{errors} error{'s' if errors != 1 else ''}"] if errors else []
    if warnings and strict:
        return "; ".join([*parts, strict_count(warnings)])
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts)


def strict_count(warnings: int, option: str = "--strict") -> str:
    """`3 warnings are errors under --strict`: why a run with warnings alone failed."""
    return f"{warnings} warning{'s are errors' if warnings != 1 else ' is an error'} under {option}"


def sorted_warnings(warnings: list[SiteWarning]) -> list[SiteWarning]:
    """By file, line and message, each once: the order every command prints them in."""
    return sorted(set(warnings), key=_where)


class StrictFailure(SiteError):
    """`--strict`: the build had warnings, which count as errors; nothing was written. `failures`: the lines of code
    that failed beside them (`--keep-going` had shown it in the pages), printed first."""

    def __init__(self, warnings: list[SiteWarning]):
        self.warnings = sorted_warnings(warnings)
        self.failures: list[str] = []
        self.failed = 0  # failed blocks among `failures`
        super().__init__(strict_count(len(self.warnings)))
