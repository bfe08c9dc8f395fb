"""Benchmark for executable posts: per-post overhead of a run, a cold `check` against phmdoctest and `pytest
content/`, and `check` on the bundled site.

Usage: python bench/execute.py [--no-bundled]
- overhead: 20 posts whose only block is `x = 1`, each run alone (one at a time) through the engine, forked from
  the template process (as `check` and `build` run posts) and, for comparison, each in a fresh interpreter (as
  the Ray executor's workers do); the median wall time of a run is the overhead of start, isolation and teardown
  (the code itself is ~0).
- 40 posts x 5 blocks (each block prints, an output block checks it): `site-builder check --rerun`,
  `pytest content/ --rerun-posts` (the pytest plugin, run as a user runs it: the venv's `pytest` script, its
  cache and every installed plugin on) and phmdoctest on the same posts (one `phmdoctest` over a config listing
  them, then pytest on the generated tests), each cold in a fresh process, in turn, 7 rounds: medians of wall and
  CPU seconds (CPU: the command's processes, as a busy machine slows each alike). Beside them, `import pytest` in
  a fresh interpreter, which `pytest content/` pays before any code of the plugin can start the posts (the plugin
  is loaded after it, with the other installed plugins).
  phmdoctest is not a dependency: `.venv/bin/pip install phmdoctest` to compare; without it that is skipped.
- check: `site-builder check` on the bundled site, cold (--rerun) and warm (cached), in a fresh process.
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import entry_points
from importlib.util import find_spec
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from site_builder.config import load_config
from site_builder.execute.job import Job, make_job
from site_builder.execute.session import run_job
from site_builder.execute.template import start_template
from site_builder.load import load_post
from site_builder.parse import parse_post

POSTS, BLOCKS = 40, 5


def _jobs(root: Path, n: int) -> list[Job]:
    (root / "site.yml").write_text("title: Bench\n")
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    config = load_config(root)
    jobs = []
    for i in range(n):
        path = posts / f"p{i}.md"
        path.write_text(f"---\ntitle: P{i}\ndate: 2025-01-01\nexecute: true\n---\n\n```python\nx = {i}\n```\n")
        jobs.append(make_job(parse_post(load_post(path, config))))
    return jobs


def overhead(n: int = 20, forked: bool = True) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        jobs = _jobs(Path(tmp), n)
        template, _ = start_template([], tmp) if forked else (None, [])
        times = []
        try:
            for job in jobs:
                start = time.perf_counter()
                run = run_job(job, template=template)
                times.append(time.perf_counter() - start)
                assert run.ok, run.failures
        finally:
            if template is not None:
                template.close()
        return times


def _post(i: int, fence: str) -> str:
    blocks = "".join(
        f"Block {k}.\n\n```python\nvalue_{k} = {i} * {k}\nprint('post', {i}, 'block', {k}, value_{k})\n```\n\n"
        f"```{fence}\npost {i} block {k} {i * k}\n```\n\n"
        for k in range(BLOCKS)
    )
    return f"---\ntitle: P{i}\ndate: 2025-01-01\nexecute: true\n---\n\n# Post {i}\n\n{blocks}"


def corpus(root: Path) -> tuple[Path, Path]:
    """The site (```output blocks) and the same posts for phmdoctest (bare output blocks, no front matter)."""
    site, plain = root / "site", root / "phmdoctest"
    (site / "content" / "posts").mkdir(parents=True)
    (site / "site.yml").write_text("title: Bench\n")
    (plain / "posts").mkdir(parents=True)
    for i in range(POSTS):
        (site / "content" / "posts" / f"p{i}.md").write_text(_post(i, "output"))
        text = _post(i, "")
        (plain / "posts" / f"p{i}.md").write_text(text[text.index("# Post") :])
    (plain / "phmdoctest.toml").write_text(
        '[tool.phmdoctest]\nmarkdown_globs = ["posts/*.md"]\nexclude_globs = []\n'
        'output_directory = ".gendir"\nprint = []\n'
    )
    return site, plain


CPU: list[float] = []  # CPU seconds (user + system) of each command timed, its processes included


def timed(argv: list[str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return elapsed


ROUNDS = 7


def quiet(limit: float = 10.0) -> None:
    """Wait (up to `limit` seconds) until the machine's cores are 90% idle over a quarter of a second: on a machine
    others use, a command timed while they run is slowed by whatever they run, not by what it does."""

    def idle() -> tuple[int, int]:
        with open("/proc/stat") as fh:
            ticks = [int(t) for t in fh.readline().split()[1:]]
        return ticks[3] + ticks[4], sum(ticks)

    end = time.monotonic() + limit
    while os.path.exists("/proc/stat") and time.monotonic() < end:
        idle0, total0 = idle()
        time.sleep(0.25)
        idle1, total1 = idle()
        if (idle1 - idle0) >= 0.9 * max(total1 - total0, 1):
            return


def compare() -> None:
    """check, pytest and phmdoctest in turn, ROUNDS times, each when the machine is quiet; medians."""
    py = sys.executable
    phm = shutil.which("phmdoctest", path=str(Path(py).parent)) if find_spec("phmdoctest") else None
    script = shutil.which("pytest", path=str(Path(py).parent))
    pytest = [script] if script else [py, "-m", "pytest"]
    wall: dict[str, list[float]] = {"check": [], "pytest": [], "start": [], "phmdoctest": []}
    cpu: dict[str, list[float]] = {"check": [], "pytest": [], "start": [], "phmdoctest": []}
    with tempfile.TemporaryDirectory() as tmp:
        site, plain = corpus(Path(tmp))
        commands = {
            "check": [[py, "-m", "site_builder", "check", "--source", str(site), "--rerun"]],
            "pytest": [[*pytest, "content/", "--rerun-posts"]],
            "start": [[py, "-c", "import pytest"]],
        }
        if phm:
            pytest_gen = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:site_builder", ".gendir"]
            commands["phmdoctest"] = [[phm, "phmdoctest.toml"], pytest_gen]
        for _ in range(ROUNDS):
            for name, argvs in commands.items():
                shutil.rmtree(plain / ".gendir", ignore_errors=True)
                cwd = plain if name == "phmdoctest" else site
                quiet()
                wall[name].append(sum(timed(argv, cwd) for argv in argvs))
                cpu[name].append(sum(CPU[-len(argvs) :]))
    w = {name: statistics.median(v) for name, v in wall.items() if v}
    c = {name: statistics.median(v) for name, v in cpu.items() if v}
    print(f"{POSTS} posts x {BLOCKS} blocks, cold, median of {ROUNDS} (wall / CPU seconds):")
    print(f"  check {w['check']:.2f} / {c['check']:.2f} s")
    print(
        f"  pytest content/ {w['pytest']:.2f} / {c['pytest']:.2f} s: "
        f"{w['pytest'] / w['check']:.2f}x check (CPU {c['pytest'] / c['check']:.2f}x)"
    )
    plugins = ", ".join(sorted(ep.name for ep in entry_points(group="pytest11")))
    print(f"  before the plugin can start a post: import pytest {w['start']:.2f} s, then these plugins load: {plugins}")
    if not phm:
        print("  phmdoctest: not installed, skipped (.venv/bin/pip install phmdoctest to compare)")
        return
    print(
        f"  phmdoctest (generate + pytest) {w['phmdoctest']:.2f} / {c['phmdoctest']:.2f} s: check / phmdoctest = "
        f"{w['check'] / w['phmdoctest']:.2f} (CPU {c['check'] / c['phmdoctest']:.2f})"
    )


def check(*flags: str) -> float:
    return timed([sys.executable, "-m", "site_builder", "check", "--source", str(ROOT), *flags], ROOT)


def main() -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}, load {load:.1f}")
    for forked, what in ((True, "forked from the template"), (False, "fresh interpreter (the Ray path)")):
        times = overhead(forked=forked)
        print(
            f"per-post run overhead, {what}: median {statistics.median(times) * 1000:.1f} ms, "
            f"min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms (20 runs)"
        )
    compare()
    if "--no-bundled" in sys.argv:
        return
    cold = check("--rerun")
    warm = [check() for _ in range(3)]
    print(
        f"check on the bundled site: cold (--rerun) {cold:.2f} s, warm (cached) median {statistics.median(warm):.2f} s"
    )


if __name__ == "__main__":
    main()
