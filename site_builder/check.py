"""The `check` command: run the code of every executing post without writing the site; report per block."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder.config import load_config
from site_builder.errors import SiteWarning, sorted_warnings
from site_builder.execute import run_posts
from site_builder.execute.options import ExecOptions
from site_builder.execute.results import PostRun
from site_builder.load import load_posts
from site_builder.parse import parse_post

EXEC_CACHE = Path(".cache") / "exec"


@dataclass
class CheckReport:
    """Runs by post, and block counts over all of them; the warnings of the settings and of every post."""

    runs: dict[str, PostRun]
    warnings: list[SiteWarning] = field(default_factory=list)

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
    parsed = [parse_post(p) for p in posts if p.execute]
    warnings = [*config.warnings, *(w for p in posts for w in p.warnings)]
    warnings += [w for pp in parsed for w in pp.env.get("warnings", [])]
    return CheckReport(run_posts(parsed, config.root / EXEC_CACHE, options, config.exec), sorted_warnings(warnings))


def write_json(report: CheckReport, path: Path) -> None:
    path.write_text(json.dumps(report.as_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
