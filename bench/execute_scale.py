"""Executing posts in bulk: N posts with `execute: true` checked cold by the local executor (the fork server) and
by Ray (a local Ray started by the builder, as `--executor ray` without an address does), for the README's
estimate of what a 64,000-post site with 2,000 executing posts needs.

Usage: python bench/execute_scale.py [N]   (default 200 posts, each 3 blocks: arithmetic, a list, a printed dict)
Prints wall seconds, posts per second and seconds of start-up (Ray's own start is measured by a 1-post run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import cpu_name

POST = """---
title: Run {i}
date: 2024-01-01
execute: true
---

```python
total = sum(range({i} * 1000))
print(total)
```

```python
rows = [[r * c for c in range(5)] for r in range(4)]
print(rows[-1])
```

```python
print({{"post": {i}, "ok": True}})
```
"""


def make(root: Path, n: int) -> None:
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    (root / "site.yml").write_text("title: Runs\nsearch: false\n")
    for i in range(n):
        (posts / f"run-{i:05d}.md").write_text(POST.format(i=i))


def check(root: Path, executor: str) -> float:
    start = time.perf_counter()
    command = [sys.executable, "-m", "site_builder", "check", "--rerun", "--executor", executor, "--source", str(root)]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"check --executor {executor} failed:\n{proc.stderr[-3000:]}")
    return time.perf_counter() - start


def main(n: int) -> None:
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; {n} posts x 3 blocks, cold (--rerun)")
    base = Path(tempfile.mkdtemp(prefix="exec-scale-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    try:
        one, many = base / "one", base / "many"
        make(one, 1)
        make(many, n)
        for executor in ("local", "ray"):
            start_up = check(one, executor)
            wall = check(many, executor)
            rate = n / max(wall - start_up, 1e-9)
            print(
                f"{executor:>5}: {wall:6.2f} s for {n} posts; a 1-post run {start_up:5.2f} s; "
                f"{rate:6.1f} posts/s after start-up ({1000 / rate:.1f} ms a post on {os.cpu_count()} cores)"
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
