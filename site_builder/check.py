"""The `check` command: run the code of every executing post without writing the site; report per block."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_builder.config import load_config
from site_builder.errors import SiteWarning, sorted_warnings
from site_builder.execute import run_posts
from site_builder.execute.options import ExecOptions
from site_builder.execute.results import PostRun
from site_builder.load import load_posts
from site_builder.models import ParsedPost
from site_builder.parse import parse_post

if TYPE_CHECKING:
    from site_builder.execute.update import FileUpdate

EXEC_CACHE = Path(".cache") / "exec"


@dataclass
class CheckReport:
    """Runs by post, and block counts over all of them; the warnings of the settings and of every post."""

    runs: dict[str, PostRun]
    warnings: list[SiteWarning] = field(default_factory=list)
    parsed: dict[str, ParsedPost] = field(default_factory=dict)  # by post path: what each run was made from

    def total(self, status: str) -> int:
        return sum(run.count(status) for run in self.runs.values())

    @property
    def failed(self) -> int:
        """Failed blocks, counting a post-level failure (timeout, crash) as one."""
        return sum(len(run.failures) for run in self.runs.values())

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
    runs = run_posts(parsed, config.root / EXEC_CACHE, options, config.exec)
    return CheckReport(runs, sorted_warnings(warnings), {pp.post.rel: pp for pp in parsed})


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
