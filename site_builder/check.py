"""The `check` command: run the code of every executing post without writing the site; report per block."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_builder.config import load_config
from site_builder.errors import SiteWarning, sorted_warnings
from site_builder.execute import run_posts
from site_builder.execute.options import ExecOptions
from site_builder.execute.results import PostRun
from site_builder.fences import EXEC_LANGS, block_is_doctest, fence_info
from site_builder.load import load_posts
from site_builder.models import ParsedPost
from site_builder.parse import parse_post

if TYPE_CHECKING:
    from site_builder.execute.blocks import CodeBlock
    from site_builder.execute.update import FileUpdate

EXEC_CACHE = Path(".cache") / "exec"


@dataclass
class CheckReport:
    """Runs by post, and block counts over all of them; the warnings of the settings and of every post."""

    runs: dict[str, PostRun]
    warnings: list[SiteWarning] = field(default_factory=list)
    parsed: dict[str, ParsedPost] = field(default_factory=dict)  # by post path: what each run was made from
    not_run: dict[str, bool] = field(default_factory=dict)  # posts without `execute: true` that have python blocks:
    # whether one is a doctest session (`>>>`), by post path

    def total(self, status: str) -> int:
        return sum(run.count(status) for run in self.runs.values())

    @property
    def failed(self) -> int:
        """Failed blocks, counting a post-level failure (timeout, crash) as one."""
        return sum(len(run.failures) for run in self.runs.values())

    def tally(self, run: PostRun) -> Tally | None:
        return tally(self.parsed[run.rel], run) if run.rel in self.parsed else None

    def as_json(self) -> list[dict[str, Any]]:
        return [
            {
                "path": run.rel,
                "status": "passed" if run.ok else "failed",
                "blocks": len(run.blocks),
                "run": sum(1 for b in run.blocks if b.status in ("passed", "failed")),
                "passed": run.count("passed"),
                "failed": len(run.failures),
                "skipped": run.count("skipped"),
                "not_run": run.count("not run"),
                "cached": run.cached,
                "reason": run.reason,
                "seconds": round(run.seconds, 3),
                "failures": [
                    {"line": f.line, "type": f.kind, "message": f.message, "detail": f.detail} for f in run.failures
                ],
                "as_tool": asdict(counted) if (counted := self.tally(run)) else None,  # as the convention's tool counts
            }
            for run in sorted(self.runs.values(), key=lambda r: r.rel)
        ]


def check_site(root: Path, options: ExecOptions) -> CheckReport:
    """Run every executing post's code. The warnings are those a build would give about the settings, front
    matter and code blocks (`execte: true` means a post that never runs): with `check --strict`, a failure."""
    config = load_config(root.resolve())
    posts = load_posts(config)
    # every post is parsed: one that does not run can still hold other tools' expected outputs, which nothing
    # checks, and CI should say so
    every = [parse_post(p) for p in posts]
    parsed = [pp for pp in every if pp.post.execute]
    warnings = [*config.warnings, *(w for p in posts for w in p.warnings)]
    warnings += [w for pp in every for w in pp.warnings()]
    runs = run_posts(parsed, config.root / EXEC_CACHE, options, config.exec, warn=warnings.append)
    warnings += [w for run in runs.values() for w in run.problems()]  # what a run could not do as asked
    idle = {pp.post.rel: doctest for pp in every if not pp.post.execute and (doctest := _python(pp)) is not None}
    return CheckReport(runs, sorted_warnings(warnings), {pp.post.rel: pp for pp in parsed}, dict(sorted(idle.items())))


def _python(parsed: ParsedPost) -> bool | None:
    """Whether a post's python blocks hold a doctest session (`>>> ` prompts); None: it has no python block."""
    langs = [(tok, fence_info(tok.info)[0]) for tok in parsed.tokens if tok.type == "fence"]
    found = [block_is_doctest(tok, lang) for tok, lang in langs if lang in EXEC_LANGS]
    return any(found) if found else None


@dataclass
class Tally:
    """A post's tests as the tool of its declared convention counts them."""

    tool: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    xfailed: int = 0  # pytest's: an xfail block that raised (not counted as passed)
    xpassed: int = 0  # ... that ran to its end (an unexpected pass, not a failure)

    def __str__(self) -> str:
        unit = "example" if self.tool == "Sybil" else "test"
        total = self.passed + self.failed + self.skipped + self.xfailed + self.xpassed
        counts = f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"
        counts += "".join(f", {n} {name}" for name, n in (("xfailed", self.xfailed), ("xpassed", self.xpassed)) if n)
        return f"as {self.tool} counts: {total} {unit}{'s' * (total != 1)}, {counts}"


def tally(parsed: ParsedPost, run: PostRun) -> Tally | None:
    """The post's run counted as its convention's tool counts: phmdoctest and pytest-codeblocks count blocks (not
    phmdoctest's setup and teardown: fixtures), Sybil each doctest example, block and skip directive (a skip with
    no reason or condition leaves its examples passing). None without a declared convention."""
    from site_builder.execute.blocks import code_blocks

    tools = {"sybil": "Sybil", "phmdoctest": "phmdoctest", "pytest-codeblocks": "pytest-codeblocks"}
    named = [tools[name] for name in parsed.post.conventions]
    if not named or len(run.blocks) != len(blocks := code_blocks(parsed)):
        return None
    out = Tally(named[0] if len(named) == 1 else " and ".join(named))
    sybil = named == ["Sybil"]
    out.passed += len(parsed.env.get("sybil_skips", [])) if sybil else 0
    for block, result in zip(blocks, run.blocks, strict=True):
        if (block.scope in ("setup", "teardown") and not block.refused) or block.uncounted:
            continue  # a fixture (unless the tool refuses it), or what the tool does not see
        n = _examples(block) if sybil else 1
        failing = len((result.error or {}).get("examples") or [1]) if result.status == "failed" and sybil else n
        if result.status == "skipped" and sybil and not (block.options.get("skip") or block.skipif):
            out.passed += n  # skipped without a reason: Sybil evaluates nothing, and counts it passing
        elif result.status == "skipped":
            out.skipped += n
        elif result.status == "passed" and block.xfail:
            out.xfailed, out.xpassed = out.xfailed + bool(result.raised), out.xpassed + (not result.raised)
        elif result.status == "passed":
            out.passed += n
        else:
            out.failed += min(failing, n)
            out.passed += n - min(failing, n)
    return out


def _examples(block: CodeBlock) -> int:
    if block.kind != "doctest":
        return 1
    import doctest

    return max(1, len(doctest.DocTestParser().get_examples(block.code)))


def nothing_ran(report: CheckReport) -> str | None:
    """What `check` says when no post executes (a blog just imported): what `execute: true` would run. None when
    some post ran."""
    if report.runs:
        return None
    line = "note: no post has `execute: true` in its front matter, so no code ran"
    if not report.not_run:
        return line
    doctests = [rel for rel, doctest in report.not_run.items() if doctest]
    line += f"; with it, the python blocks of {len(report.not_run)} post{'s' * (len(report.not_run) != 1)} would run"
    if doctests:
        shown = ", ".join(doctests[:3]) + (f" and {len(doctests) - 3} more" if len(doctests) > 3 else "")
        line += f", and the doctest sessions (>>>) in {shown} would be checked"
    return line


@dataclass
class UpdateReport:
    """What `check --update` did: the files rewritten, the files refused (changed meanwhile), the stale blocks left."""

    files: dict[str, FileUpdate] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def blocks(self) -> int:
        return sum(len(f.updated) for f in self.files.values())


def update_site(report: CheckReport) -> UpdateReport:
    """`check --update`: rewrite the stale output blocks and doctest outputs of every post with what its code
    printed; in `report`, the blocks rewritten then pass. A file changed since it was loaded is left as it is."""
    from site_builder.execute.blocks import code_blocks
    from site_builder.execute.update import Changed, mark_updated, plan_update, stale, write_update

    out = UpdateReport()
    for rel, run in sorted(report.runs.items()):
        if rel not in report.parsed or not any(stale(b) for b in run.blocks):
            continue
        parsed = report.parsed[rel]
        try:
            update = plan_update(parsed.post, code_blocks(parsed), run)
            out.notes += update.notes
            if update.updated:
                write_update(update)
                out.files[rel] = update
                report.runs[rel] = mark_updated(run, update.updated)
        except Changed as exc:
            out.refused.append(str(exc))
    return out


def write_json(report: CheckReport, path: Path) -> None:
    path.write_text(json.dumps(report.as_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
