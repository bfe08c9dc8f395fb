"""`serve` with search on and off: a post edit's time to the open page, and the search index's catching up.

Usage: python bench/serve_search.py [N] [--edits K]   (default 4000 posts, 10 edits each)

Two servers run side by side on the same generated posts (bench/build.py's), one with `search: false`; a headless
Chromium has a post of each open. The edits go to one server then the other (paired, 4 s apart, so each index is
quiet before the next save): the time from a save until the open page's new DOM is ready (the browser's clock, as
bench/serve.py), and on the server with search, from the page's reload to the log's "search index updated".
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build as bench_build
from serve import browser, shown_at, start_server, wait


def stamped(proc: subprocess.Popen, lines: list[tuple[float, str]]) -> None:
    """Keep the server's log lines with the time each arrived."""

    def read() -> None:
        for line in proc.stdout:
            lines.append((time.time(), line))

    threading.Thread(target=read, daemon=True).start()


def fmt(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def main(n: int, edits: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="serve-search-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    servers, drivers = [], []
    try:
        roots = {"off": base / "off", "on": base / "on"}
        bench_build.make_site(roots["off"], n)
        bench_build.make_site(roots["on"], n, search=True)
        logs: dict[str, list[tuple[float, str]]] = {"off": [], "on": []}
        urls = {}
        for name, root in roots.items():
            proc, url, start = start_server(root)
            servers.append(proc)
            stamped(proc, logs[name])
            urls[name] = url
            print(f"{name}: serve started in {start:.1f} s")
        wait(lambda: any("search index updated" in line for _, line in logs["on"]), timeout=300)
        times: dict[str, list[float]] = {"off": [], "on": []}
        catch_up: list[float] = []
        for name in roots:
            driver = browser()
            drivers.append(driver)
            driver.get(urls[name] + f"blog/{2015 + 7 % 11}/post-00007/")
        time.sleep(1)
        texts = {name: (root / "content" / "posts" / "post-00007.md").read_text() for name, root in roots.items()}
        for i in range(edits):
            for name, driver in zip(roots, drivers, strict=True):
                marker = f"Edit number {i} here."
                seen = len(logs[name])
                t0 = time.time()
                (roots[name] / "content" / "posts" / "post-00007.md").write_text(texts[name] + f"\n{marker}\n")
                wait(lambda d=driver, m=marker: m in d.execute_script("return document.body.innerText"))
                shown = shown_at(driver)
                times[name].append(shown - t0)
                if name == "on":
                    found = wait(
                        lambda s=seen: [t for t, line in logs["on"][s:] if "search index updated" in line], timeout=120
                    )
                    catch_up.append(found[0] - shown)
                time.sleep(4)
        print(f"{n} posts, {edits} paired edits")
        print(f"post edit -> new text in the DOM: search off {fmt(times['off'])}, on {fmt(times['on'])}")
        ratios = [a / b for a, b in zip(times["on"], times["off"], strict=True)]
        print(f"  on / off: median of the pairs {statistics.median(ratios):.2f}")
        print(f"page shown -> search index updated (on): {fmt(catch_up)}")
    finally:
        for driver in drivers:
            driver.quit()
        for proc in servers:
            proc.terminate()
            proc.wait()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    count = int(bench_build.pop_option(args, "--edits") or 10)
    main(int(args[0]) if args else 4000, count)
