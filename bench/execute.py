"""Benchmark for executable posts: per-post overhead of a run, and `check` on the bundled site.

Usage: python bench/execute.py
- overhead: 20 posts whose only block is `x = 1`, each run alone (one at a time) through the engine;
  the median wall time of a run is the overhead of start, isolation and teardown (the code itself is ~0).
- check: `site-builder check` on the bundled site, cold (--rerun) and warm (cached), in a fresh process.
"""

from __future__ import annotations

import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from site_builder.config import load_config
from site_builder.execute.job import make_job
from site_builder.execute.session import run_job
from site_builder.load import load_post
from site_builder.parse import parse_post


def overhead(n: int = 20) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "site.yml").write_text("title: Bench\n")
        posts = root / "content" / "posts"
        posts.mkdir(parents=True)
        config = load_config(root)
        times = []
        for i in range(n):
            path = posts / f"p{i}.md"
            path.write_text(f"---\ntitle: P{i}\ndate: 2025-01-01\nexecute: true\n---\n\n```python\nx = {i}\n```\n")
            job = make_job(parse_post(load_post(path, config)))
            start = time.perf_counter()
            run = run_job(job)
            times.append(time.perf_counter() - start)
            assert run.ok, run.failures
        return times


def check(*flags: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "site_builder", "check", "--source", str(ROOT), *flags], check=True, capture_output=True
    )
    return time.perf_counter() - start


def main() -> None:
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    times = overhead()
    print(
        f"per-post run overhead: median {statistics.median(times) * 1000:.0f} ms, "
        f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms (20 runs)"
    )
    cold = check("--rerun")
    warm = [check() for _ in range(3)]
    print(
        f"check on the bundled site: cold (--rerun) {cold:.2f} s, warm (cached) median {statistics.median(warm):.2f} s"
    )


if __name__ == "__main__":
    main()
