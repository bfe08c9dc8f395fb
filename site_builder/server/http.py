"""The dev server's HTTP side: files confined to the built site, the 404 page, and the reload event stream."""

from __future__ import annotations

import io
import json
import mimetypes
import posixpath
import queue
import select
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from site_builder.server.guard import HEADER_TIMEOUT, SEND_TIMEOUT, DeadlineReader, HostPolicy, origin_form, refusal

CLIENT_JS = (resources.files("site_builder.server") / "livereload.js").read_bytes()
EVENTS_PATH = "/__livereload"
SCRIPT_PATH = "/__livereload.js"
SCRIPT_TAG = '<script src="' + SCRIPT_PATH + '" data-seen="{seen}" defer></script>'  # seen: reloads sent before
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".webp": "image/webp",
    ".json": "application/json",
    ".woff2": "font/woff2",
    ".avif": "image/avif",
}


class Broadcaster:
    """Fans events out to every open page's event stream; remembers the last build state for new pages.

    Each stream says which page it belongs to (`?page=` its path), so a reload can be followed: the reloaded
    page opens a new stream once its DOM is ready.
    """

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._clients: list[tuple[queue.Queue[dict[str, Any]], str]] = []
        self._joined: dict[str, int] = {}  # page path -> streams opened by it so far
        self.sent = 0  # reload events sent so far
        self._reloaded: dict[str, int] = {}  # page path -> the number of the last reload event that named it
        self.state: dict[str, Any] = {"type": "ok"}
        self._warnings: dict[str, list[str]] = {}  # page file -> its post's warnings, as the last build printed them
        self.closed = threading.Event()

    def subscribe(self, page: str = "", seen: int | None = None) -> queue.Queue[dict[str, Any]]:
        """A new page's stream. `seen`: the reload events sent before the page was read (its script says): one that
        named the page since (its run ended as it loaded, before it opened this stream) reloads it at once."""
        q: queue.Queue[dict[str, Any]] = queue.Queue()
        page = page_file(page)
        with self._lock:
            self._clients.append((q, page))
            self._joined[page] = self._joined.get(page, 0) + 1
            q.put(self.state)
            if self._warnings.get(page):
                q.put({"type": "warnings", "lines": self._warnings[page]})
            if seen is not None and max(self._reloaded.get(page, 0), self._reloaded.get("*", 0)) > seen:
                q.put({"type": "reload", "paths": [page]})
            self._lock.notify_all()
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        with self._lock:
            self._clients = [(c, page) for c, page in self._clients if c is not q]

    def send(self, event: dict[str, Any]) -> None:
        with self._lock:
            if event.get("type") in ("ok", "error"):
                self.state = event
            if event.get("type") == "reload":
                self.sent += 1
                self._reloaded.update(dict.fromkeys(["*"] if event.get("all") else event.get("paths", []), self.sent))
            for q, _ in self._clients:
                q.put(event)

    def warn(self, by_page: dict[str, list[str]]) -> None:
        """Each page's warnings now (by the file its path shows): sent to the open pages whose warnings changed."""
        with self._lock:
            before, self._warnings = self._warnings, by_page
            for q, page in self._clients:
                if before.get(page) != by_page.get(page):
                    q.put({"type": "warnings", "lines": by_page.get(page, [])})

    def reload(self, paths: list[str]) -> Callable[..., bool]:
        """Send a reload event for `paths` (site paths of files); returns `wait(timeout, stop)`, which returns once
        a page showing one of them has loaded again (opened its new stream), at once when no open page shows
        them, after `timeout` seconds, or once `stop()` is true. (One page is enough: a stream closed by a page
        that went away is only noticed at its next ping.)"""
        targets = set(paths)
        with self._lock:
            expected = min(1, sum(1 for _, page in self._clients if page in targets))
            mark = {page: self._joined.get(page, 0) for page in targets}
        self.send({"type": "reload", "paths": paths})

        def wait(timeout: float, stop: Callable[[], bool] = lambda: False) -> bool:
            deadline = time.monotonic() + timeout
            with self._lock:
                while sum(self._joined.get(page, 0) - n for page, n in mark.items()) < expected:
                    left = deadline - time.monotonic()
                    if left <= 0 or self.closed.is_set() or stop():
                        return False
                    self._lock.wait(min(left, 0.02))
            return True

        return wait


def page_file(path: str) -> str:
    """The file a page's path shows, as reload events name it: `/blog/x/` -> `/blog/x/index.html`."""
    path = unquote(path)
    return path + "index.html" if path.endswith("/") else path


def resolve(root: Path, url_path: str) -> Path | None:
    """The file for a URL path inside `root`, or None: no `..`, no absolute paths, no symlinks leaving root."""
    path = unquote(url_path)
    if "\0" in path or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p]
    if any(p in ("..", ".") for p in parts):
        return None
    norm = posixpath.normpath("/" + "/".join(parts))
    candidate = root / norm.lstrip("/")
    try:
        real = candidate.resolve()
    except (OSError, RuntimeError):
        return None
    root_real = root.resolve()
    if real != root_real and root_real not in real.parents:
        return None
    return real


def read_file(root: Path, url_path: str) -> tuple[Path, bytes] | None:
    """The file a URL path shows inside `root` (a folder's index.html) and its bytes, or None."""
    target = resolve(root, url_path)
    if target is not None and target.is_dir():
        target = resolve(root, url_path.rstrip("/") + "/index.html")  # the index must not leave root either
    if target is None or not target.is_file():
        return None
    try:
        return target, target.read_bytes()
    except OSError:  # replaced or removed by a rebuild since
        return None


class Handler(BaseHTTPRequestHandler):
    """GET/HEAD of the built site; HTML gets the reload script; `/__livereload` streams events.

    A request must arrive whole within HEADER_TIMEOUT seconds and name this machine (or the --host) as its host.
    """

    server_version = "site-builder"
    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"  # a malformed request line is answered with a status line too
    disable_nagle_algorithm = True  # headers and body go out as two writes: without this each response waits ~40 ms
    reader: DeadlineReader

    def log_message(self, fmt: str, *args: Any) -> None:  # the terminal shows builds, not every request
        pass

    @property
    def site(self) -> Any:
        return self.server.site  # type: ignore[attr-defined]

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # reads go through the deadline instead
        self.reader = DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self.reader)

    def handle_one_request(self) -> None:
        self.reader.deadline = time.monotonic() + HEADER_TIMEOUT
        super().handle_one_request()

    def parse_request(self) -> bool:
        """The request line and headers, read in time; refused (400, 403) unless well formed and for this host."""
        if not super().parse_request():
            return False
        self.reader.deadline = None
        self.connection.settimeout(SEND_TIMEOUT)
        if len(self.requestline.split()) != 3:
            self.send_error(HTTPStatus.BAD_REQUEST, explain="HTTP/0.9 is not supported")
            return False
        hosts = self.headers.get_all("Host") or []
        refused = refusal(self.command, self.path, hosts, self.server.hosts)  # type: ignore[attr-defined]
        if refused is not None:
            self.send_error(refused[0], explain=refused[1])
            return False
        self.path = origin_form(self.path)
        return True

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == EVENTS_PATH:
            return self._events()
        if path == SCRIPT_PATH:
            return self._send(200, CLIENT_JS, TYPES[".js"])
        self._serve(head=False)

    def _serve(self, head: bool) -> None:
        url_path = urlsplit(self.path).path
        root = self.site.output
        target = resolve(root, url_path)
        if target is not None and target.is_dir() and not url_path.endswith("/"):
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", url_path + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        seen = self.site.events.sent  # before the file is read: a reload sent after it reaches the page
        found = read_file(root, url_path)
        moved = self.site.preview.at_root(url_path) if found is None else None
        if moved is not None:  # the site's path (`url: .../blog/`) typed in: the preview is at the root
            self.send_response(HTTPStatus.FOUND)
            self.send_header("Location", moved)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if found is None:
            page = read_file(root, "/404.html")
            body = page[1] if page is not None else b"<h1>404 Not Found</h1>"
            return self._send(404, self._inject(body, seen), TYPES[".html"], head)
        target, body = found
        ext = target.suffix.lower()
        ctype = TYPES.get(ext) or mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ext == ".html":
            body = self._inject(body, seen)
        self._send(200, body, ctype, head)

    @staticmethod
    def _inject(body: bytes, seen: int) -> bytes:
        tag = SCRIPT_TAG.format(seen=seen).encode()
        at = body.rfind(b"</body>")
        return body[:at] + tag + body[at:] if at >= 0 else body + tag

    def _send(self, status: int, body: bytes, ctype: str, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _peer_closed(self) -> bool:
        """The page closed its stream (reloaded, or went away): the socket reads end-of-file."""
        poll = select.poll()
        poll.register(self.connection, select.POLLIN | select.POLLERR | select.POLLHUP)
        if not poll.poll(0):  # (the socket has a timeout: a peek would wait for data for that long)
            return False
        try:
            return bool(self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"")
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True

    def _events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "keep-alive")
        self.end_headers()
        events = self.site.events
        query = parse_qs(urlsplit(self.path).query)
        seen = query.get("seen", [""])[0]
        q = events.subscribe(query.get("page", [""])[0], int(seen) if seen.isdigit() else None)
        try:
            while not events.closed.is_set():
                try:
                    event = q.get(timeout=0.25)
                except queue.Empty:
                    if self._peer_closed():
                        break
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
                    continue
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            events.unsubscribe(q)
            self.close_connection = True


class SiteServer(ThreadingHTTPServer):
    """A threading HTTP server whose handler threads end with it."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # a page opening its streams and files at once must not wait for a refused connect

    def __init__(self, address: tuple[str, int], site: Any) -> None:
        self.site = site
        self.hosts = HostPolicy(address[0])
        super().__init__(address, Handler)
