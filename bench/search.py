"""Search: where the `+search` column of bench/scale.py goes. Pagefind alone over a built site, three ways.

Usage: python bench/search.py [N] [--runs K]   (default 4000 posts, 3 runs of each, the fastest shown)

One generated site (bench/build.py's posts) is built cold without search, on tmpfs; then Pagefind indexes its output
  - `default`: as Pagefind does by default (the whole of every page), with the site's excluded selectors;
  - `site`: as `site-builder build` runs it (write/search.py: only inside data-pagefind-body, MathML's symbols out);
  - `site, files kept`: the same into a folder that already holds that index: Pagefind skips a file whose hashed
    name is there, so this is the run without its writing (compressing and writing ~4,000 fragments and the index).
Wall seconds and CPU seconds (user + system) of Pagefind's process. Issue 14 asks for the cold build with search
within 1.25 times the one without, which leaves Pagefind 0.25 of `cold s`: the line says what it takes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from build import make_site

from site_builder.write.search import EXCLUDED, MATH_SYMBOLS, ROOT, pagefind


def run(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one command, which must succeed."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def best(command: list[str], runs: int, fresh: Path | None) -> tuple[float, float]:
    """The fastest of `runs` (wall, CPU); `fresh` is removed before each run."""
    times = []
    for _ in range(runs):
        if fresh is not None:
            shutil.rmtree(fresh, ignore_errors=True)
        times.append(run(command))
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description="Pagefind alone over a cold build's output, three ways.")
    parser.add_argument("n", nargs="?", type=int, default=4000, help="posts (default 4000)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each, the fastest shown (default 3)")
    options = parser.parse_args()
    n, runs = options.n, options.runs
    binary = pagefind()
    if binary is None:
        raise SystemExit("Pagefind is not installed (pip install 'pagefind[extended]')")
    base = Path(tempfile.mkdtemp(prefix=f"search-{n}-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    try:
        site, out, index = base / "site", base / "out", base / "index"
        make_site(site, n)
        build = [sys.executable, "-m", "site_builder", "build", "--source", str(site), "--output", str(out)]
        cold = run(build)  # the output Pagefind reads, and the time the bound below comes from
        pages = sum(1 for _ in out.rglob("*.html"))
        common = [binary, "--site", str(out), "--output-path", str(index), "--silent", "--exclude-selectors", EXCLUDED]
        ours = [*common, "--exclude-selectors", MATH_SYMBOLS, "--root-selector", ROOT]
        print(f"{n} posts, {pages} HTML files; cold build without search {cold[0]:.2f} s wall, {cold[1]:.2f} s CPU")
        print(f"Pagefind may take {cold[0] * 0.25:.2f} s for 1.25x")
        print(f"{'pagefind':<20} {'wall s':>7} {'cpu s':>7}")
        for name, command, fresh in (
            ("default", common, index),
            ("site", ours, index),
            ("site, files kept", ours, None),
        ):
            wall, cpu = best(command, runs, fresh)
            print(f"{name:<20} {wall:>7.2f} {cpu:>7.2f}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
