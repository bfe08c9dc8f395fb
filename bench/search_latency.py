"""First search: from a word typed in the header's box to its results shown, in headless Chromium, on a big site.

Usage: python bench/search_latency.py [N] [--runs K] [--word W] [--dir D]   (default 16000 posts, 5 runs, "scheduler";
--dir: build there and keep it, or use the site already built there)

One generated site (bench/build.py's posts, search on) is built on tmpfs and served on 127.0.0.1. Each run opens a
post page in a fresh Chromium profile (nothing cached), focuses the box (which loads the search script, as a click
does), types the word at once, and times from that input to the status line saying how many posts were found: the
box's 150 ms wait for more typing, the search script, the shards' manifest, Pagefind's script and WebAssembly and
every shard's entry, and the search itself. Then a second word in the same page (everything loaded). Printed:
median (min-max) of the runs, and what the first search fetched (files, KB as sent).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from build import make_site, pop_option
from helpers import chromium

TIME_SEARCH = """
const [word, done] = [arguments[0], arguments[arguments.length - 1]];
const input = document.querySelector("form.search input[type=search]");
const before = performance.getEntriesByType("resource").length;
input.focus();
const start = performance.now();
input.value = word;
input.dispatchEvent(new Event("input", {bubbles: true}));
(function check() {
  const status = document.querySelector("#search-results [role=status]");
  const shown = document.querySelectorAll("#search-results li").length;
  if (status && shown && status.textContent.includes(word)) {
    const got = performance.getEntriesByType("resource").slice(before);
    done([performance.now() - start, got.length, got.reduce((n, e) => n + (e.transferSize || 0), 0)]);
  } else requestAnimationFrame(check);
})();
"""


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def one_run(url: str, word: str) -> tuple[list[float], list[float]]:
    driver = chromium()
    try:
        driver.set_script_timeout(60)
        driver.get(url)
        first = driver.execute_async_script(TIME_SEARCH, word)
        driver.find_element("css selector", "form.search input[type=search]").clear()
        second = driver.execute_async_script(TIME_SEARCH, "matrix")
        return first, second
    finally:
        driver.quit()


def main() -> None:
    args = sys.argv[1:]
    runs = int(pop_option(args, "--runs") or 5)
    word = pop_option(args, "--word") or "scheduler"
    kept = pop_option(args, "--dir") or ""
    n = int(args[0]) if args else 16000
    memory = "/dev/shm" if Path("/dev/shm").is_dir() else None
    base = Path(kept) if kept else Path(tempfile.mkdtemp(prefix=f"search-latency-{n}-", dir=memory))
    try:
        if not (base / "site").is_dir():
            make_site(base / "site", n, search=True)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "site_builder",
                "build",
                "--source",
                str(base / "site"),
                "--output",
                str(base / "out"),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        shards = (base / "out" / "pagefind" / "shards.json").read_text().count('"name"')
        post = next((base / "out" / "blog").glob("*/post-00007/index.html")).relative_to(base / "out")
        server, root = serve(base / "out")
        load = os.getloadavg()
        print(f"{n} posts, {shards} shards; load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
        firsts, seconds = [], []
        for _ in range(runs):
            first, second = one_run(f"{root}/{post.parent.as_posix()}/", word)
            firsts.append(first)
            seconds.append(second)
            print(f"  first {first[0]:.0f} ms ({first[1]} files, {first[2] / 1024:.0f} KB), then {second[0]:.0f} ms")
        server.shutdown()

        def fmt(xs: list[float]) -> str:
            return f"{statistics.median(xs):.0f} ms ({min(xs):.0f}-{max(xs):.0f})"

        print(f"first search: {fmt([f[0] for f in firsts])}; a second word: {fmt([s[0] for s in seconds])}")
        load = os.getloadavg()
        print(f"load at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    finally:
        if not kept:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
