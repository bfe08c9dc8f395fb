"""Shared helpers for tests: make small sites on disk and run the real CLI."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import signal
import socket
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


def built_posts(root: Path, posts: dict[str, tuple[str, str]]) -> tuple[Path, str]:
    """A new site at `root` of these posts (file name -> (front matter, body)), built by the CLI: the site's root
    and what the build said (stderr); the build must succeed."""
    make_site(root, "title: Test Site\nurl: https://example.org\nsearch: false\n")  # no index: not what is tested
    for name, (front, body) in posts.items():
        write_post(root, name, front, body)
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    return root, proc.stderr


def post_body(root: Path, url: str):
    """The `.post-body` element of the built page at `url` of the site at `root` (BeautifulSoup)."""
    from bs4 import BeautifulSoup

    html = (root / "output" / url.strip("/") / "index.html").read_text(encoding="utf-8")
    return BeautifulSoup(html, "html.parser").select_one(".post-body")


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
    """The text of the page's `selector` (its article), or "" while the page is being replaced by a reload: the
    element gone (stale, not found) or, between chromedriver's find and its read, detached ("Node with given id
    does not belong to the document", an inspector error seen once in a fresh-clone run); a caller polls again."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException

    try:
        return browser.find_element("css selector", selector).text
    except (StaleElementReferenceException, NoSuchElementException):
        return ""
    except WebDriverException as exc:
        if "does not belong to the document" in str(exc):
            return ""
        raise


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


class Served:
    """`site-builder serve --port 0` on `root` in a process of its own, its output read all along (`lines`, `log()`);
    its address (`url`, `port`), its output folder and how long it took to serve (`serving`, seconds). Stopped by
    `stop()` or at the end of a `with` block."""

    SERVING = re.compile(r"serving (http://(\S+):(\d+)/) .* from (\S+)")

    def __init__(self, root: Path, *extra: str) -> None:
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "site_builder", "serve", "--source", str(root), "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.proc.stdout is not None
        self.lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            m = self.SERVING.search(line)
            if m:
                self.serving = time.monotonic() - started
                self.url, self.host, self.port, self.output = m.group(1), m.group(2), int(m.group(3)), Path(m.group(4))
                self._reader = threading.Thread(target=self._read, daemon=True)
                self._reader.start()
                return
        self.proc.kill()
        self.proc.wait()
        raise AssertionError("server did not start:\n" + "".join(self.lines))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def log(self) -> str:
        """Everything it printed so far; once it has exited, all of it."""
        if self.proc.poll() is not None:
            self._reader.join(5)
        return "".join(self.lines)

    def connect(self, timeout: float = 5) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=timeout)

    def raw(self, request: bytes) -> tuple[int, dict[str, str], bytes]:
        """Send `request` exactly as given; read until the server closes. Status 0: no status line came back."""
        with self.connect() as s:
            s.sendall(request)
            data = b""
            try:
                while chunk := s.recv(65536):
                    data += chunk
            except ConnectionResetError:
                pass
        head, _, body = data.partition(b"\r\n\r\n")
        m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
        if not m:
            return 0, {}, data
        headers = dict(line.split(": ", 1) for line in head.decode("latin-1").split("\r\n")[1:] if ": " in line)
        return int(m.group(1)), headers, body

    def get(
        self, target: str, host: str | None = "127.0.0.1", method: str = "GET"
    ) -> tuple[int, dict[str, str], bytes]:
        """A request with the path sent exactly as given (no client-side normalisation)."""
        host_line = "" if host is None else f"Host: {host}\r\n"
        return self.raw(f"{method} {target} HTTP/1.1\r\n{host_line}Connection: close\r\n\r\n".encode("latin-1"))

    def raw_get(self, target: str) -> tuple[int, bytes]:
        status, _, body = self.get(target)
        return status, body

    def head(self, target: str) -> tuple[int, dict[str, str]]:
        status, headers, _ = self.get(target, method="HEAD")
        return status, headers

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def threads(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))  # type: ignore[union-attr]

    def stop(self) -> float:
        """Ctrl-C (SIGINT), killed if it has not exited within 10 s: the seconds it took."""
        start = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return time.monotonic() - start

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
