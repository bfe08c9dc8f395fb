"""Hugo's `:git` dates: with `enableGitInfo = true`, a page's `lastmod` is the author date of the last commit that
changed its file (Hugo's `GitInfo.AuthorDate`). Read with one `git log` over the source's content folder; a source
that is not in a git work tree (a copy, an archive) has none, and the import says so."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

GIT_WAIT = 120.0  # seconds `git log` may take (a blog of thousands of commits takes about one)


def last_commit_dates(folder: Path) -> dict[Path, datetime] | None:
    """Each file under `folder` that git has a commit of (its resolved path): the author date of the newest commit
    that changed it. None when `folder` is in no git work tree, or git cannot be run."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    git = ["git", "-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-C", str(folder)]
    try:
        top = subprocess.run([*git, "rev-parse", "--show-toplevel"], capture_output=True, text=True, env=env, timeout=9)
        if top.returncode != 0:
            return None
        log = subprocess.run(
            [*git, "log", "--no-renames", "--name-only", "--format=%x00%aI", "--", "."],
            capture_output=True,
            env=env,
            timeout=GIT_WAIT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if log.returncode != 0:
        return None
    base = Path(top.stdout.strip())
    dates: dict[Path, datetime] = {}
    for commit in log.stdout.decode("utf-8", "replace").split("\0")[1:]:
        stamp, _, names = commit.partition("\n")
        try:
            when = datetime.fromisoformat(stamp.strip())
        except ValueError:
            continue
        for name in names.splitlines():
            if name.strip():
                dates.setdefault((base / name).resolve(), when)  # newest first: the first one seen
    return dates
