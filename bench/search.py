"""Search: what the search index costs a build, cold and after one edit, beside Hugo + Pagefind, in one run.

Usage: python bench/search.py [N ...] [--runs K]   (default 1000 4000 16000, 3 runs of each, paired)

Each size is one generated site (bench/build.py's posts) on tmpfs, built by `site-builder build` with search on and
with `search: false`, in turn (on, off, on, off, ...: the pairs share the machine's mood):
  - `cold`: no cache, no output;
  - `edit`: a line added to one post after a build, then a build (the index: one shard again).
Hugo (Debian's `hugo`) builds the same posts with bench/scale.py's theme, then Pagefind (the binary of the `pagefind`
package) indexes its whole output as Hugo users run it, in the same pairs. Each figure is the median of its runs
with the fastest and slowest; `x` is the median of the pairs' ratios (search on / off; ours with search / Hugo +
Pagefind).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import cpu_name, make_site, pop_option
from scale import hugo_site

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from site_builder.write.search import pagefind


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {proc.stderr.decode(errors='replace')[-2000:]}")
    return time.perf_counter() - start


def build(site: Path, out: Path) -> float:
    return seconds([sys.executable, "-m", "site_builder", "build", "--source", str(site), "--output", str(out)])


def cold(site: Path, out: Path) -> float:
    shutil.rmtree(site / ".cache", ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    return build(site, out)


def edit(site: Path, out: Path, k: int) -> float:
    """One post's text changed (a word of its last paragraph), then a build."""
    post = site / "content" / "posts" / "post-00007.md"
    post.write_text(post.read_text() + f"\nEdited {k} times.\n")
    return build(site, out)


def hugo_pagefind(hugo: Path, out: Path, binary: str) -> float:
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(hugo / "resources", ignore_errors=True)
    start = time.perf_counter()
    seconds(["hugo", "--quiet", "--source", str(hugo), "--destination", str(out)])
    seconds([binary, "--site", str(out), "--silent"])
    return time.perf_counter() - start


def fmt(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} ({min(values):.2f}-{max(values):.2f})"


def ratio(a: list[float], b: list[float]) -> str:
    return f"{statistics.median(x / y for x, y in zip(a, b, strict=True)):5.2f}"


def measure(n: int, runs: int, binary: str) -> list[str]:
    base = Path(tempfile.mkdtemp(prefix=f"search-{n}-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    try:
        on, off = base / "on", base / "off"
        make_site(off, n)
        make_site(on, n, search=True)
        hugo = hugo_site(off)
        times: dict[str, list[float]] = {k: [] for k in ("cold_on", "cold_off", "edit_on", "edit_off", "hugo")}
        for k in range(runs):
            times["cold_on"].append(cold(on, base / "out-on"))
            times["cold_off"].append(cold(off, base / "out-off"))
            times["edit_on"].append(edit(on, base / "out-on", k))
            times["edit_off"].append(edit(off, base / "out-off", k))
            times["hugo"].append(hugo_pagefind(hugo, base / "out-hugo", binary))
        shards = len((base / "out-on" / "pagefind" / "shards.json").read_text().split('"name"')) - 1
        return [
            f"{n:>6} posts, {shards} shards",
            f"cold: {fmt(times['cold_off'])} off, {fmt(times['cold_on'])} on, x {ratio(times['cold_on'], times['cold_off'])}",
            f"       edit: {fmt(times['edit_off'])} off, {fmt(times['edit_on'])} on, x {ratio(times['edit_on'], times['edit_off'])}",
            f"       hugo+pagefind: {fmt(times['hugo'])}, ours on / hugo+pagefind x {ratio(times['cold_on'], times['hugo'])}",
        ]
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    args = sys.argv[1:]
    runs = int(pop_option(args, "--runs") or 3)
    sizes = [int(a) for a in args] or [1000, 4000, 16000]
    binary = pagefind()
    if binary is None or shutil.which("hugo") is None:
        raise SystemExit("needs Pagefind (pip install 'pagefind[extended]') and Hugo (apt-get install hugo)")
    hugo = subprocess.run(["hugo", "version"], capture_output=True, text=True).stdout.split()[1:2]
    load = os.getloadavg()
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; hugo {hugo}")
    print("seconds: median (min-max) of paired runs; x: median of the pairs' ratios")
    for n in sizes:
        print("\n".join(measure(n, runs, binary)), flush=True)
    load = os.getloadavg()
    print(f"load at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
