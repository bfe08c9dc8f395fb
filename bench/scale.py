"""Scale: site_builder beside Hugo from 1,000 to 64,000 posts, cold and with nothing changed, in one run.

Usage: python bench/scale.py [N ...] [--runs K] [--no-hugo]   (or: python bench/build.py --scale ...)
(default 1000 4000 16000 64000, 2 cold builds of each tool per size, the fastest shown)

Each size is one generated site (bench/build.py's posts: ~2.5 KB of prose, a Python block, inline and display
math), written to tmpfs (/dev/shm) with its output there too, so the disk's mood stays out of the figures. Hugo
(Debian package `hugo`), when installed, builds the same posts with a minimal theme of its own making the same
kinds of pages (one per post, home pages of 10, tag pages, an RSS feed; Hugo does not render the math); its
rebuild with nothing changed is a whole build, as Hugo has no incremental build from the command line. Peak RSS
is the largest process of a build (os.wait4). The ratios come from this one run on this one machine.
The main columns build without the search index (`search: false`: Hugo makes none); `+search` is one more cold
build with Pagefind indexing the site (up to 16,000 posts), and `x` its ratio to the cold build without;
bench/search.py times Pagefind alone on the same output, as the site runs it and as Pagefind does by default.
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build import cpu_name, make_site, pop_option

ROOT = Path(__file__).resolve().parents[1]
SEARCH_UP_TO = 16000  # sizes whose cold build is also timed with the search index (Pagefind) on
HUGO_CONFIG = 'baseURL = "https://bench.example/"\ntitle = "Bench"\npaginate = 10\n[taxonomies]\ntag = "tags"\n'
HUGO_LAYOUTS = {
    "_default/baseof.html": "<!doctype html><html><head><title>{{ .Title }}</title></head>"
    '<body><main>{{ block "main" . }}{{ end }}</main></body></html>',
    "_default/single.html": '{{ define "main" }}<article><h1>{{ .Title }}</h1>'
    '<time>{{ .Date.Format "Jan 2, 2006" }}</time>{{ .Content }}'
    '{{ range .Params.tags }}<a href="/tags/{{ . | urlize }}/">{{ . }}</a>{{ end }}</article>{{ end }}',
    "_default/list.html": '{{ define "main" }}<h1>{{ .Title }}</h1>{{ range .Paginator.Pages }}'
    '<article><h2><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2>{{ .Summary }}</article>{{ end }}{{ end }}',
    # `.Paginate .Site.RegularPages`, not PaperMod's `where .Site.RegularPages "Type" "in" ...`: Hugo evaluates the
    # `where` again for each of the home's pages (1,600 x 16,000 posts), which made Hugo 10x slower at 16,000
    "index.html": '{{ define "main" }}{{ range (.Paginate .Site.RegularPages).Pages }}'
    '<article><h2><a href="{{ .RelPermalink }}">{{ .Title }}</a></h2>{{ .Summary }}</article>{{ end }}{{ end }}',
}


@dataclass
class Timed:
    seconds: float
    peak_mib: float


def timed(command: list[str], cwd: Path | None = None) -> Timed:
    """Wall seconds and peak RSS (MiB, the largest process) of one command, which must succeed."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        message = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise SystemExit(f"{' '.join(command)} failed ({proc.returncode}): {message[-2000:]}")
    return Timed(seconds, usage.ru_maxrss / 1024)


def hugo_site(site: Path) -> Path:
    """The same posts as a Hugo site beside `site` (content/posts shared by a symlink)."""
    hugo = site.parent / "hugo"
    (hugo / "content").mkdir(parents=True)
    (hugo / "content" / "posts").symlink_to(site / "content" / "posts")
    (hugo / "config.toml").write_text(HUGO_CONFIG)
    for name, text in HUGO_LAYOUTS.items():
        path = hugo / "layouts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return hugo


def ours(site: Path, output: Path) -> Timed:
    return timed([sys.executable, "-m", "site_builder", "build", "--source", str(site), "--output", str(output)])


def hugos(hugo: Path, output: Path) -> Timed:
    return timed(["hugo", "--quiet", "--source", str(hugo), "--destination", str(output)])


def measure(n: int, runs: int, with_hugo: bool) -> list[str]:
    base = Path(tempfile.mkdtemp(prefix=f"scale-{n}-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    try:
        site = base / "site"
        make_site(site, n)
        cold: list[Timed] = []
        for _ in range(runs):
            shutil.rmtree(site / ".cache", ignore_errors=True)
            shutil.rmtree(base / "out", ignore_errors=True)
            cold.append(ours(site, base / "out"))
        warm = ours(site, base / "out")
        best = min(cold, key=lambda t: t.seconds)
        row = [f"{n:>6}", f"{best.seconds:>8.2f}", f"{best.seconds / n * 1000:>7.3f}", f"{warm.seconds:>7.2f}"]
        row.append(f"{max(t.peak_mib for t in [*cold, warm]):>8.0f}")
        if n <= SEARCH_UP_TO:  # the same cold build with the Pagefind index (issue 14: at most 1.25x)
            settings = site / "site.yml"
            settings.write_text(settings.read_text().replace("search: false\n", ""))
            shutil.rmtree(site / ".cache", ignore_errors=True)
            shutil.rmtree(base / "out", ignore_errors=True)
            searched = ours(site, base / "out")
            row += [f"{searched.seconds:>8.2f}", f"{searched.seconds / best.seconds:>6.2f}"]
        else:
            row += [f"{'-':>8}", f"{'-':>6}"]
        if with_hugo:
            hugo = hugo_site(site)
            hugo_runs = []
            for _ in range(runs):
                shutil.rmtree(base / "hugo-out", ignore_errors=True)
                shutil.rmtree(hugo / "resources", ignore_errors=True)
                hugo_runs.append(hugos(hugo, base / "hugo-out"))
            h = min(hugo_runs, key=lambda t: t.seconds)
            row += [f"{h.seconds:>8.2f}", f"{best.seconds / h.seconds:>6.2f}", f"{warm.seconds / h.seconds:>6.3f}"]
            row.append(f"{max(t.peak_mib for t in hugo_runs):>8.0f}")
        return row
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    args = sys.argv[1:]
    runs = int(pop_option(args, "--runs") or 2)
    with_hugo = shutil.which("hugo") is not None and "--no-hugo" not in args
    args = [a for a in args if a != "--no-hugo"]
    sizes = [int(a) for a in args] or [1000, 4000, 16000, 64000]
    compileall.compile_dir(ROOT / "site_builder", quiet=1)  # bytecode, as an installed wheel has it
    hugo_version = subprocess.run(["hugo", "version"], capture_output=True, text=True).stdout.split()[1:2]
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, output on tmpfs")
    print(f"hugo: {hugo_version[0] if with_hugo and hugo_version else 'not installed (apt-get install hugo)'}")
    head = f"{'posts':>6} {'cold s':>8} {'ms/post':>7} {'noop s':>7} {'peak MiB':>8} {'+search':>8} {'x':>6}"
    if with_hugo:
        head += f" {'hugo s':>8} {'ratio':>6} {'noop/h':>6} {'hugo MiB':>8}"
    print(head)
    for n in sizes:
        print(" ".join(measure(n, runs, with_hugo)), flush=True)


if __name__ == "__main__":
    main()
