"""Benchmark: build a synthetic site of N posts cold and warm; print seconds, ms/post, peak memory.

Usage: python bench/build.py [N ...] [--cold-runs K] [--feed-limit M]
(default: 1000 4000, 3 cold runs: fastest, median, slowest; the feed as site.yml's default, the newest 10 posts;
--feed-limit 0 puts every post in the feed)
Each post is about 2.5 KB: front matter, headings, prose, a Python code block, inline and display math.
Builds run `site-builder build` in a subprocess so peak memory (max RSS of the build and its workers) is its own.
"""

from __future__ import annotations

import compileall
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = [
    "the",
    "data",
    "worker",
    "task",
    "memory",
    "node",
    "cluster",
    "array",
    "index",
    "batch",
    "shard",
    "queue",
    "frame",
    "rotation",
    "vector",
    "matrix",
    "scheduler",
    "object",
    "store",
    "actor",
    "process",
    "result",
    "chunk",
    "budget",
    "limit",
    "retry",
    "signal",
]


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def post_text(i: int, rng: random.Random) -> str:
    year = 2015 + i % 11
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    para = lambda: " ".join(sentence(rng, rng.randint(8, 16)) for _ in range(4))
    return f"""---
title: "Synthetic post {i}: {rng.choice(WORDS)} {rng.choice(WORDS)}"
date: {year}-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00+00:00
tags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]
summary: {sentence(rng, 10)}
---

## Background {i}

{para()} The cost is $O(n^{a} \\log n)$ for $n = {i}$ items.

### Details

{para()}

```python
def chunk_{i}(items, k={a}):
    \"\"\"Split items into k nearly equal ranges.\"\"\"
    n = len(items)
    return [items[j * n // k:(j + 1) * n // k] for j in range(k)]

print(chunk_{i}(list(range({b * 3}))))
```

$$
K_{{{i}}} = \\left\\lfloor \\frac{{M_{{\\min}}}}{{C_{b}}} \\right\\rfloor + \\sum_{{j=1}}^{{{a}}} x_j^2
$$

{para()}

- {sentence(rng, 6)}
- {sentence(rng, 7)}

{para()}
"""


def make_site(root: Path, n: int, feed_limit: int | None = None, search: bool = False) -> None:
    """`n` posts; search off unless asked for (Pagefind's indexing is measured on its own: bench/scale.py)."""
    rng = random.Random(n)
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    extra = f"feed_limit: {feed_limit}\n" if feed_limit is not None else ""
    extra += "" if search else "search: false\n"
    (root / "site.yml").write_text("title: Bench\nurl: https://bench.example\nposts_per_page: 10\n" + extra)
    for i in range(n):
        (posts / f"post-{i:05d}.md").write_text(post_text(i, rng))


def run_build(root: Path, output: str = "output") -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB, largest process) and stage timings of one `site-builder build -v`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "-v", "--source", str(root), "--output", output],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024, proc.stdout.strip().splitlines()[-1].strip()


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def pop_option(args: list[str], flag: str) -> str | None:
    """The value after `flag` in a script's arguments (both taken out of `args`), or None when it is absent."""
    if flag not in args:
        return None
    i = args.index(flag)
    value = args[i + 1]
    del args[i : i + 2]
    return value


def main(sizes: list[int], colds: int, feed_limit: int | None = None) -> None:
    # The package's bytecode, as an installed wheel has it (where PYTHONDONTWRITEBYTECODE is set, as on this
    # project's machine, Python would otherwise compile site_builder's modules again in every build: ~70 ms).
    compileall.compile_dir(Path(__file__).resolve().parents[1] / "site_builder", quiet=1)
    print(
        f"machine: {cpu_name()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"temp dir {tempfile.gettempdir()}"
    )
    print(
        f"{'posts':>6} {'cold s':>8} {'(median)':>8} {'(slowest)':>9} {'ms/post':>8} {'warm s':>8} {'touch-1 s':>9} "
        f"{'peak MiB':>9}"
    )
    stages = []
    roots = []
    try:
        for n in sizes:
            root = Path(tempfile.mkdtemp(prefix=f"bench-{n}-"))
            roots.append(root)
            make_site(root, n, feed_limit)
            os.sync()  # the generated posts are on disk: the build is not charged for writing them back
            # Each cold build writes a new output folder: deleting the last one first would slow the file system
            # down for the build that follows (seen here: 2-10x slower file creation right after a big delete).
            runs = []
            for k in range(colds):
                shutil.rmtree(root / ".cache", ignore_errors=True)
                runs.append(run_build(root, f"output-{k}"))
            cold = min(r[0] for r in runs)
            median = sorted(r[0] for r in runs)[len(runs) // 2]
            slowest = max(r[0] for r in runs)
            peak = max(r[1] for r in runs)
            cold_stages = min(runs)[2]
            warm, _, warm_stages = run_build(root, f"output-{colds - 1}")
            post = root / "content" / "posts" / "post-00007.md"
            post.write_text(post.read_text() + "\nOne more line.\n")
            touch, _, _ = run_build(root, f"output-{colds - 1}")
            print(
                f"{n:>6} {cold:>8.2f} {median:>8.2f} {slowest:>9.2f} {cold / n * 1000:>8.2f} {warm:>8.2f} {touch:>9.2f} "
                f"{peak:>9.0f}"
            )
            stages.append(f"{n} posts, fastest cold: {cold_stages}\n{n} posts, warm: {warm_stages}")
    finally:
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)
    print("stages (inside the build process):")
    print("\n".join(stages))


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--scale" in args:  # the scale table beside Hugo: bench/scale.py, which takes the same posts from here
        scale = Path(__file__).with_name("scale.py")
        os.execv(sys.executable, [sys.executable, str(scale), *(a for a in args if a != "--scale")])
    colds = int(pop_option(args, "--cold-runs") or 3)
    limit = pop_option(args, "--feed-limit")
    feed_limit = int(limit) if limit is not None else None
    main([int(a) for a in args] or [1000, 4000], colds, feed_limit)
