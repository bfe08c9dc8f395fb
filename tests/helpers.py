"""Shared helpers for tests: make small sites on disk and run the real CLI."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEED = REPO / "tests" / "data" / "strawberry-fields.atom.xml"


def write_post(root: Path, name: str, front: str, body: str = "Hello.\n") -> Path:
    path = root / "content" / "posts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front.strip()}\n---\n\n{body}", encoding="utf-8")
    return path


def make_site(root: Path, config: str = "title: Test Site\nurl: https://example.org\n") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "site.yml").write_text(config, encoding="utf-8")
    (root / "content" / "posts").mkdir(parents=True, exist_ok=True)
    return root


def run_cli(*args: str, cwd: Path | None = None, check: bool = False) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "site_builder", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"site-builder {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def assert_one_line_error(proc: subprocess.CompletedProcess, pattern: str) -> str:
    """Exit 1, exactly one error line matching `pattern`, then the summary line, and no traceback."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 1, f"exit code {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 2 and lines[1] == "error: stopped with 1 error", (
        f"expected one error line, got:\n{proc.stderr}"
    )
    assert re.search(pattern, lines[0]), f"{lines[0]!r} does not match {pattern!r}"
    return lines[0]


def wait_for(fn, timeout: float = 8.0, step: float = 0.05):
    """Poll `fn` until it returns something true (returned), or fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(step)
    raise AssertionError(f"timed out waiting; last value {last!r}")


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def chromium(*flags: str):
    """A real headless Chromium driven through Debian's chromedriver (installed by `make test`), 1280x900."""
    assert os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER), (
        "Chromium and chromedriver are needed (make test installs Debian's chromium and chromium-driver)"
    )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        f"--user-data-dir={tempfile.mkdtemp(prefix='chromium-test-')}",
        "--window-size=1280,900",
        *flags,
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    return driver


def article_text(browser, selector: str = "article") -> str:
    """The text of the page's `selector` (its article), or "" while the page is being replaced by a reload."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    try:
        return browser.find_element("css selector", selector).text
    except (StaleElementReferenceException, NoSuchElementException):
        return ""


def open_page(browser, url: str) -> None:
    browser.get(url)
    wait_for(lambda: browser.execute_script("return document.readyState") == "complete")
    # the event stream is connected once the page has had its first message
    time.sleep(0.3)


def scripts_that_ran(outputs: list[Path], catch: str, poke: str = "") -> dict[str, object]:
    """Every post page (one with a post body) of each built site in `outputs`, opened in headless Chromium with
    `catch` run first in each page (it collects what ran into `window.__ran`) and `poke` run once it loaded
    (opening `<details>`, clicking links): the pages where anything ran, by their folder's name."""
    driver = chromium()
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": catch})
    ran: dict[str, object] = {}
    try:
        for output in outputs:
            with serve_folder(output) as base:
                pages = [p for p in sorted(output.rglob("index.html")) if "post-body" in p.read_text()]
                for path in pages:
                    driver.get(base + "/" + path.parent.relative_to(output).as_posix() + "/")
                    if poke:
                        driver.execute_script(poke)
                    time.sleep(0.05)
                    got = driver.execute_script("return window.__ran")
                    if got:
                        ran[path.parent.name] = got
    finally:
        driver.quit()
    return ran


def processes_with_arg(arg: str, first: bool = False) -> list[int]:
    """Pids of the processes whose command line holds `arg` (with `first`: as `sleep ARG`, its first argument)."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    args = fh.read().split(b"\0")
            except OSError:
                continue
            if (args[:2] == [b"sleep", arg.encode()]) if first else (arg.encode() in args):
                pids.append(int(name))
    return pids


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """A built site's folder served over HTTP on 127.0.0.1, quietly, for a browser: its address."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
