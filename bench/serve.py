"""Benchmark for `site-builder serve`: start-up, and save-to-browser latency measured in headless Chromium.

Usage: python bench/serve.py [N] [--before CHECKOUT [--rounds R]]   (default 4000 synthetic posts, the same
generator as bench/build.py; with --before, only the figures of posts that run code, for this checkout and for
CHECKOUT, e.g. a `git worktree add /tmp/before <commit>` (or `git archive <commit> | tar -x -C /tmp/before`) of the
commit before a change, in one run: R rounds of before, then now, each a fresh site and server)
- start: seconds from launching `serve` to "serving" (its first build), next to a cold `build` of the same site;
- post edit: a post's text is changed on disk; the time until the open page (reloaded by the server) has
  the new text in its DOM, from the browser's own clock (navigation timing), median and max of 20 edits;
- new post / date change: a new newest post is saved, or a post's date made the newest; the time until the open
  home page shows it first (every home page's list shifts by one), 5 of each;
- CSS edit: the stylesheet is changed; the time until the page's computed style changes (no reload), 20 edits.
- posts that run code (`exec_figures`, in a site of N posts and one post whose code takes 2 s): the first answer
  of `/` with nothing cached (from launching `serve`); a code edit to the edited code on the open page, and to its
  new outputs there; a prose edit of another post once a post with failing code was saved, to the open page; and,
  as the control of both, a prose edit of the same post in the same server just before the failing post is saved.
  Each "to the open page" is the page's DOM ready by the browser's clock, as post edits above; "(load end)" its
  load event; "(polled)" the time a poll of the page's text saw it (the figure before: a poll waits for the load to
  end, and adds the driver's round trips); "(server, to the page)" the server's log: its build up to the page.
A post edit's time is split into: until the browser starts the reload (watcher, debounce, the build up to the
edited page, the event), and the reload itself (navigation start to DOMContentLoaded); the server's own log gives
how long its build took to the edited page and in all (feeds, sitemap and lists are written after the reload).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build as bench_build

ROOT = Path(__file__).resolve().parents[1]
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
)


def start_server(root: Path, code: Path | None = None) -> tuple[subprocess.Popen, str, float]:
    """`serve` of the site at `root`, by this checkout's site_builder or by the one in `code` (another checkout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "site_builder", "serve", "--source", str(root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(code or ROOT)},
    )
    for line in proc.stdout:
        m = re.search(r"serving (http://\S+) ", line)
        if m:
            return proc, m.group(1), time.perf_counter() - start
    raise RuntimeError("server did not start")


def drain(proc: subprocess.Popen, lines: list[str]) -> threading.Thread:
    """Keep reading the server's log (a full pipe would block it); the lines are kept for the summary."""
    thread = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    thread.start()
    return thread


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in (*FLAGS, f"--user-data-dir={tempfile.mkdtemp()}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)


def wait(fn, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.005)
    raise TimeoutError


def server_builds(lines: list[str]) -> None:
    """What the server's log says of its rebuilds: how long each took in all, and to the edited page."""
    builds = [re.search(r"rebuilt in (\d+) ms(?:, (\d+) ms to the edited page)?", line) for line in lines]
    found = [m for m in builds if m]
    if found:
        total = [int(m.group(1)) / 1000 for m in found]
        first = [int(m.group(2)) / 1000 for m in found if m.group(2)]
        print(
            f"  server: {len(found)} rebuilds, in all {ms(total)}"
            + (f"; to the edited page in the output {ms(first)}" if first else "")
        )


def rebuilds(log: list[str]) -> int:
    return sum(1 for line in list(log) if "rebuilt in" in line)


def settled(log: list[str], before: int) -> None:
    """Wait until the server's log has a rebuild more than `before` (its feeds are written after that line)."""
    wait(lambda: rebuilds(log) > before, timeout=60)
    time.sleep(0.5)


def shown_at(driver) -> float:
    """When the open page's new DOM was ready, by the browser's own clock (as for post edits above): polling the
    page from here waits for the page's load to end, which a busy server makes later than what a reader sees."""
    origin, loaded = driver.execute_script(
        "const e = performance.getEntriesByType('navigation')[0]; return [performance.timeOrigin, e.domContentLoadedEventEnd];"
    )
    return (origin + loaded) / 1000


def first_card(driver) -> str:
    return driver.execute_script("const h = document.querySelector('.card h2, .card h3'); return h ? h.innerText : ''")


def new_posts_and_dates(root: Path, url: str, driver, log: list[str]) -> tuple[list[float], list[float]]:
    """Seconds from saving to the open home page showing it: 5 new posts (each the newest, so every home page's
    list shifts by one), then 5 posts whose date is changed to the newest. Each save waits for the server to have
    finished the last one's rebuild (as a writer's next save would), so that no build waits on another."""
    posts = root / "content" / "posts"
    driver.get(url)
    time.sleep(0.5)
    news, moved = [], []
    for i in range(5):
        title = f"Brand new post {i}"
        before = rebuilds(log)
        t0 = time.time()
        (posts / f"new-{i}.md").write_text(f"---\ntitle: {title}\ndate: 2026-01-0{i + 1}T10:00:00+00:00\n---\n\nNew.\n")
        wait(lambda title=title: first_card(driver) == title, timeout=60)
        news.append(shown_at(driver) - t0)
        settled(log, before)
    for i in range(5):
        post = posts / f"post-{100 + i:05d}.md"
        text = post.read_text()
        title = re.search(r'^title: "(.*)"$', text, re.M).group(1)  # type: ignore[union-attr]
        before = rebuilds(log)
        t0 = time.time()
        post.write_text(re.sub(r"^date: .*$", f"date: 2026-02-0{i + 1}T10:00:00+00:00", text, count=1, flags=re.M))
        wait(lambda title=title: first_card(driver) == title, timeout=60)
        moved.append(shown_at(driver) - t0)
        settled(log, before)
    return news, moved


def main(n: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    try:
        bench_build.make_site(root, n)
        css_dir = root / "themes" / "default" / "static" / "css"
        css_dir.mkdir(parents=True)
        shutil.copy(ROOT / "site_builder" / "themes" / "default" / "static" / "css" / "site.css", css_dir / "site.css")
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "site_builder", "build", "--source", str(root), "--output", str(root / "cold-out")],
            check=True,
            capture_output=True,
        )
        build_s = time.perf_counter() - t
        shutil.rmtree(root / ".cache")
        proc, url, start_s = start_server(root)
        log: list[str] = []
        drain(proc, log)
        print(f"{n} posts: cold build {build_s:.2f} s, serve start (first build) {start_s:.2f} s")
        driver = browser()
        try:
            post = root / "content" / "posts" / "post-00007.md"
            text = post.read_text()
            slug_url = url + f"blog/{2015 + 7 % 11}/post-00007/"
            driver.get(slug_url)
            time.sleep(0.5)
            edits, starts, reloads = [], [], []
            seen = len(log)
            for i in range(20):
                marker = f"Edit number {i} here."
                t0 = time.time()
                post.write_text(text + f"\n{marker}\n")
                wait(lambda marker=marker: marker in driver.execute_script("return document.body.innerText"))
                origin, loaded = driver.execute_script(
                    "const e = performance.getEntriesByType('navigation')[0];"
                    "return [performance.timeOrigin, e.domContentLoadedEventEnd];"
                )
                edits.append((origin + loaded) / 1000 - t0)
                starts.append(origin / 1000 - t0)
                reloads.append(loaded / 1000)
                time.sleep(0.3)
            print(f"post edit -> new text in the DOM: {ms(edits)} (20 edits)")
            print(f"  save -> reload starts: {ms(starts)}; reload -> DOMContentLoaded: {ms(reloads)}")
            server_builds(log[seen:])
            seen = len(log)
            news, moved = new_posts_and_dates(root, url, driver, log)
            print(f"new post -> its card on the open home page: {ms(news)} ({len(news)} posts)")
            print(f"date changed to the newest -> the post first on the open home page: {ms(moved)} ({len(moved)})")
            server_builds(log[seen:])
            css = css_dir / "site.css"
            base = css.read_text()
            swaps = []
            for i in range(20):
                colour = f"rgb({i + 1}, 2, 3)"
                driver.execute_script(
                    "window.__seen = 0; const want = arguments[0];"
                    "(function tick(){ if (getComputedStyle(document.body).backgroundColor === want) {"
                    " window.__seen = Date.now(); } else { requestAnimationFrame(tick); } })();",
                    colour,
                )
                t0 = time.time()
                css.write_text(base + f"\nbody {{ background: {colour} !important; }}\n")
                seen = wait(lambda: driver.execute_script("return window.__seen"))
                swaps.append(seen / 1000 - t0)
                time.sleep(0.3)
            print(
                f"CSS edit -> new style applied (no reload): median {statistics.median(swaps) * 1000:.0f} ms, "
                f"max {max(swaps) * 1000:.0f} ms (20 edits)"
            )
        finally:
            driver.quit()
            proc.terminate()
            proc.wait()
    finally:
        shutil.rmtree(root, ignore_errors=True)


RUNS = """---
title: Runs code
date: 2025-12-01
execute: true
---

The code below takes two seconds.

```python
import time
time.sleep(2)
print("value-" + "{n}")
```
"""
FAILS = "---\ntitle: Fails\ndate: 2025-12-02\nexecute: true\n---\n\n```python\nprint(2)\n```\n\n```output\n3\n```\n"
LOADED = "return performance.getEntriesByType('navigation')[0].loadEventEnd > 0"
SHOWN = "return [...document.querySelectorAll('.output')].some(e => !e.closest('.exec-stale') && e.innerText.includes(arguments[0]))"


def text_shown(driver, text: str, timeout: float, saved: float) -> Shown:
    """When the open page showed `text` after a save at `saved` (this clock): polled (the old figure: a poll waits
    for the page's load to end), and by the browser's own clock (as post edits above) its DOM ready and its load
    ended. None each, if not within `timeout`."""
    try:
        wait(lambda: text in driver.execute_script("return document.body ? document.body.innerText : ''"), timeout)
    except TimeoutError:
        return Shown(None, None, None)
    polled = time.time() - saved
    wait(lambda: driver.execute_script(LOADED), timeout)
    origin, dom, load = driver.execute_script(
        "const e = performance.getEntriesByType('navigation')[0];"
        "return [performance.timeOrigin, e.domContentLoadedEventEnd, e.loadEventEnd];"
    )
    return Shown((origin + dom) / 1000 - saved, (origin + load) / 1000 - saved, polled)


@dataclass
class Shown:
    """Seconds from a save to the page showing it: DOM ready and load ended (browser's clock), and polled."""

    dom: float | None
    load: float | None
    polled: float | None

    def into(self, figures: dict[str, list[float | None]], name: str) -> None:
        figures[name].append(self.dom)
        figures.setdefault(name + " (load end)", []).append(self.load)
        figures.setdefault(name + " (polled)", []).append(self.polled)


EXEC_FIGURES = (
    "first answer",
    "prose edit (control)",
    "code edit -> edited code",
    "code edit -> new outputs",
    "prose edit beside failing code",
)


def exec_figures(n: int, code: Path | None, rounds: int = 5) -> dict[str, list[float | None]]:
    """The figures of posts that run code, with this checkout's site_builder or `code`'s (see the module's doc).
    Each text figure is save -> the page's DOM ready with it (the browser's clock); "... (server)" is what the
    server's log says of the same saves: its rebuild up to the edited page in the output. "prose edit (control)"
    is a plain post's edit in the same site while no code runs and none fails: what the other edits cost at
    most."""
    root = Path(tempfile.mkdtemp(prefix="bench-serve-exec-"))
    figures: dict[str, list[float | None]] = {name: [] for name in EXEC_FIGURES}
    try:
        bench_build.make_site(root, n)
        run = root / "content" / "posts" / "runs.md"
        run.write_text(RUNS.format(n=0))
        t0 = time.perf_counter()
        proc, url, _ = start_server(root, code)
        urllib.request.urlopen(url, timeout=120).read()
        figures["first answer"].append(time.perf_counter() - t0)
        log: list[str] = []
        drain(proc, log)
        driver = browser()
        plain = root / "content" / "posts" / "post-00007.md"
        text = plain.read_text()
        plain_url = url + f"blog/{2015 + 7 % 11}/post-00007/"

        def prose_edits(name: str, words: str) -> None:
            driver.get(plain_url)
            time.sleep(0.5)
            for i in range(rounds):
                t0 = time.time()
                plain.write_text(text + f"\n{words} {i} here.\n")
                text_shown(driver, f"{words} {i} here.", 10, t0).into(figures, name)
                time.sleep(0.3)

        try:
            driver.get(url + "blog/2025/runs/")
            try:
                wait(lambda: driver.execute_script(SHOWN, "value-0"), timeout=60)
            except TimeoutError:  # read as its run ended, it missed its reload (before bda4fd7): read it again
                print("  the page missed its reload when its run ended: opened again", flush=True)
                driver.get(url + "blog/2025/runs/")
                wait(lambda: driver.execute_script(SHOWN, "value-0"), timeout=60)
            phases = [len(log)]
            for i in range(1, rounds + 1):
                time.sleep(0.5)
                t0 = time.time()
                run.write_text(RUNS.format(n=i))
                text_shown(driver, f'+ "{i}")', 60, t0).into(figures, "code edit -> edited code")
                wait(lambda i=i: driver.execute_script(SHOWN, f"value-{i}"), timeout=60)
                figures["code edit -> new outputs"].append(time.time() - t0)
            time.sleep(1)
            phases.append(len(log))
            prose_edits("prose edit (control)", "Control edit")  # the same warm server, just before the failure
            time.sleep(1)
            (root / "content" / "posts" / "fails.md").write_text(FAILS)
            time.sleep(3)
            phases.append(len(log))
            prose_edits("prose edit beside failing code", "Prose edit")
            time.sleep(1)
            phases.append(len(log))
            names = ("code edit -> edited code", "prose edit (control)", "prose edit beside failing code")
            for name, start, end in zip(names, phases, phases[1:], strict=False):
                figures[name + " (server, to the page)"] = to_page(log[start:end])
        finally:
            driver.quit()
            proc.terminate()
            proc.wait()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return figures


def to_page(lines: list[str]) -> list[float | None]:
    """The server's rebuilds up to the edited page in the output, from its log lines (rebuilds after a run ended
    included: their page is the post's)."""
    found = [re.search(r"rebuilt in \d+ ms, (\d+) ms to the edited page", line) for line in lines]
    return [int(m.group(1)) / 1000 for m in found if m]


def figure(values: list[float | None]) -> str:
    shown = [v for v in values if v is not None]
    if not shown:
        return "never (within the wait)"
    text = f"{statistics.median(shown) * 1000:.0f} ms" + (f" (max {max(shown) * 1000:.0f})" if len(shown) > 1 else "")
    return text + (f", {len(values) - len(shown)} of {len(values)} never" if len(shown) < len(values) else "")


def compare(n: int, before: Path, rounds: int) -> None:
    """Both checkouts in turn, `rounds` times (before, now, before, now, ...): paired runs on a shared machine."""
    now: dict[str, list[float | None]] = {}
    then: dict[str, list[float | None]] = {}
    for r in range(rounds):
        for code, into in ((before, then), (None, now)):
            print(f"round {r + 1}: {'before' if code else 'now'}; load {os.getloadavg()[0]:.1f}", flush=True)
            for name, values in exec_figures(n, code).items():
                into.setdefault(name, []).extend(values)
    print(f"{n} posts and a post whose code takes 2 s; medians of {5 * rounds} (the first answer: {rounds})")
    print(f"{'':42} {'before (' + before.name + ')':>26} {'now':>26}")
    for name in now:
        print(f"{name:42} {figure(then.get(name, [])):>26} {figure(now[name]):>26}")


if __name__ == "__main__":
    args = sys.argv[1:]
    rounds = int(bench_build.pop_option(args, "--rounds") or 1)
    before = bench_build.pop_option(args, "--before")
    if before is not None:
        compare(int(args[0]) if args else 4000, Path(before).resolve(), rounds)
    else:
        main(int(args[0]) if args else 4000)
        print("\n".join(f"{k}: {figure(v)}" for k, v in exec_figures(int(args[0]) if args else 4000, None).items()))
