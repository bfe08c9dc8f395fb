"""Attacks on `site-builder serve` (issue 17, item 8), against the real server in a subprocess, over raw sockets.

Traversal and absolute-URL request lines, slowloris, reads during rebuilds, event-stream descriptors, DNS rebinding
(the Host header), and SIGTERM with connections open. (SIGTERM on an idle server, and during the first build:
tests/test_serve.py, test_a_signal_stops_serve_cleanly_and_removes_its_temporary_output and
test_sigterm_during_the_first_build_still_removes_the_temporary_output.)
"""

from __future__ import annotations

import http.client
import re
import select
import signal
import socket
import struct
import threading
import time
from pathlib import Path

import pytest
from helpers import Served, make_site, wait_for, write_post

from site_builder.server.http import EVENTS_PATH as EVENTS

pytestmark = pytest.mark.serial  # times what it waits for: run alone, after the tests run two at a time

HEADER_TIMEOUT = 10  # seconds the server gives a client to send a request's line and headers (server/http.py)
SECRET = "top-secret-outside-the-site"


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site", "title: Attack Site\nurl: https://example.org\n")
    write_post(root, "hello.md", "title: Hello\ndate: 2025-01-02\ntags: [a]", "The first version.\n")
    write_post(root, "other.md", "title: Other\ndate: 2024-01-02\ntags: [a]", "Another post.\n")
    return root


@pytest.fixture()
def server(site: Path):
    with Served(site) as srv:
        yield srv


def no_traceback(srv: Served) -> None:
    assert "Traceback" not in srv.log(), srv.log()[-3000:]


# --- traversal ------------------------------------------------------------------------------------------------------

# fmt: off
TRAVERSALS = [
    "/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E/%2E%2E/%2E%2E/etc/passwd",
    "/.%2e/.%2e/.%2e/etc/passwd", "/..%2f..%2f..%2f..%2fetc%2fpasswd", "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/%252e%252e/%252e%252e/%252e%252e/etc/passwd", "/%252e%252e%252f%252e%252e%252fetc%252fpasswd",
    "/..%252f..%252f..%252fetc/passwd", "/..\\..\\..\\etc\\passwd", "/..%5c..%5c..%5cetc%5cpasswd",
    "/%5c..%5c..%5cetc/passwd", "/blog/../../../etc/passwd", "/blog/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/./.././../etc/passwd", "/..;/..;/etc/passwd", "/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd", "/..%00/etc/passwd",
    "/etc/passwd%00.html", "//etc/passwd", "///etc/passwd", "/%2fetc%2fpasswd", "/../secret.txt",
    "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%252e%252e/secret.txt", "/link-out", "/link-out/",
    "/dir-out/secret.txt", "/dir-out/",
]
ABSOLUTE = [  # request lines in absolute form, or with no path at all
    "http://evil/../../etc/passwd", "http://evil/%2e%2e/%2e%2e/etc/passwd", "http://127.0.0.1/../../etc/passwd",
    "http://127.0.0.1/%2e%2e/secret.txt", "http://127.0.0.1/..%2f..%2fetc%2fpasswd", "file:///etc/passwd",
    "../../etc/passwd", "..%2fsecret.txt", "etc/passwd", "*",
]
MALFORMED = [
    b"GET /../../etc/passwd\r\n\r\n",  # HTTP/0.9
    b"GET /../../etc/passwd HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /%2e%2e/etc/passwd HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /../secret.txt HTTX/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"\x00\x01\x02 /../secret.txt HTTP/1.1\r\n\r\n",
    b"GET /" + b"../" * 30000 + b"etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
]
# fmt: on


def plant_secrets(srv: Served) -> None:
    """A file beside the output folder, a symlink to it, a symlinked folder leaving the site."""
    outside = srv.output.parent / "secret.txt"
    outside.write_text(SECRET)
    (srv.output / "link-out").symlink_to(outside)
    (srv.output / "dir-out").symlink_to(srv.output.parent, target_is_directory=True)


def leaked(body: bytes) -> bool:
    return SECRET.encode() in body or b"root:x:0:0" in body or b"root:" in body


def test_traversal_tries_get_404_and_nothing_outside_the_site(server: Served) -> None:
    plant_secrets(server)
    for target in TRAVERSALS:
        for method in ("GET", "HEAD"):
            status, _, body = server.get(target, method=method)
            assert status == 404, (method, target, status)
            assert not leaked(body), target
    for target in ABSOLUTE:
        status, _, body = server.get(target)
        assert status in (400, 403, 404), (target, status)
        assert not leaked(body), target
    for request in MALFORMED:
        status, _, body = server.raw(request)
        assert status in (400, 414, 505), (request[:60], status)
        assert not leaked(body), request[:60]
    assert server.get("/blog/2025/hello/")[0] == 200, "the site itself is still served"
    no_traceback(server)


def test_no_redirect_leaves_the_site(server: Served) -> None:
    """A folder without its slash is redirected to it: never to another host (`//host/` is one)."""
    for target in ("/blog", "//blog", "http://127.0.0.1//blog", "http://127.0.0.1///blog", "/blog/2025/hello"):
        status, headers, _ = server.get(target)
        assert status in (301, 404), (target, status)
        if status == 301:
            location = headers["Location"]
            assert location.startswith("/") and not location.startswith(("//", "/\\")), (target, location)


# --- slowloris --------------------------------------------------------------------------------------------------------


def slow_clients(srv: Served, n: int) -> list[socket.socket]:
    """`n` connections that started a request and never finish it: some silent, some mid request line, some in the
    headers."""
    socks = []
    for i in range(n):
        s = srv.connect()
        s.sendall([b"", b"GET /blog/2025/hel", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: "][i % 3])
        socks.append(s)
    return socks


def closed_by_server(s: socket.socket) -> bool:
    """Whether the server closed `s` (what it sent before is read and dropped); does not wait."""
    poll = select.poll()
    poll.register(s, select.POLLIN)
    if not poll.poll(0):
        return False
    try:
        return s.recv(65536) == b"" or closed_by_server(s)
    except OSError:
        return True


def test_slowloris_does_not_stop_a_normal_request_and_is_dropped(server: Served) -> None:
    socks = slow_clients(server, 50)
    stop = threading.Event()

    def trickle() -> None:  # one header byte per connection every half second: a per-read timeout never fires
        while not stop.wait(0.5):
            for s in socks:
                try:
                    s.send(b"b")
                except OSError:
                    pass

    threading.Thread(target=trickle, daemon=True).start()
    try:
        time.sleep(1)
        start = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("GET", "/blog/2025/hello/")
        response = conn.getresponse()
        body = response.read()
        took = time.monotonic() - start
        conn.close()
        print(f"a normal request under 50 slowloris connections: {took * 1000:.0f} ms")
        assert response.status == 200 and b"The first version." in body
        assert took < 2, f"a normal request took {took:.2f}s"
        deadline = time.monotonic() + HEADER_TIMEOUT + 5
        while time.monotonic() < deadline and not all(closed_by_server(s) for s in socks):
            time.sleep(0.25)
        still = sum(not closed_by_server(s) for s in socks)
        assert still == 0, f"{still} slow connections still open {HEADER_TIMEOUT + 5}s after they started"
    finally:
        stop.set()
        for s in socks:
            s.close()
    assert server.get("/")[0] == 200
    no_traceback(server)


# --- reads during rebuilds ----------------------------------------------------------------------------------------


def big_post(n: int) -> str:
    """A post whose page is large and says which version it is at both ends."""
    return (
        f"BEGIN-{n}\n\n" + f"Paragraph of version {n}, long enough to take a while to write.\n\n" * 3000 + f"END-{n}\n"
    )


def complete(path: str, body: bytes) -> bool:
    if path.endswith(".xml"):
        return body.rstrip().endswith(b"</feed>")
    if path.endswith(".css"):
        return len(body) > 100
    if not body.rstrip().endswith(b"</html>") or body.count(b"</html>") != 1:
        return False
    if path == "/blog/2025/big/":
        text = body[body.find(b"<article") :]  # the head's description quotes the text's start too
        begin, end = re.findall(rb"BEGIN-(\d+)", text), re.findall(rb"END-(\d+)", text)
        return len(begin) == 1 and begin == end
    return True


def test_concurrent_reads_during_rebuilds_get_whole_pages_and_no_5xx(site: Path) -> None:
    write_post(site, "big.md", "title: Big\ndate: 2025-03-01\ntags: [a]", big_post(0))
    for i in range(20):
        write_post(site, f"p{i}.md", f"title: P{i}\ndate: 2023-01-{i + 1:02d}\ntags: [a, b]", "Text.\n")
    srv = Served(site)
    paths = ["/", "/blog/2025/big/", "/blog/", "/blog/tag/a/", "/feed.xml", "/css/site.css", "/blog/2024/other/"]
    problems: list[str] = []
    answered: list[int] = []
    done = threading.Event()
    barrier = threading.Barrier(201)

    def client(i: int) -> None:
        barrier.wait()
        for k in range(200):
            if done.is_set() and k > 0:
                return
            path = paths[(i + k) % len(paths)]
            try:
                conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
                conn.close()
            except (OSError, http.client.HTTPException) as exc:
                problems.append(f"{path}: {type(exc).__name__}: {exc}")
                continue
            answered.append(1)
            if response.status != 200:
                problems.append(f"{path}: {response.status}")
            elif not complete(path, body):
                problems.append(f"{path}: incomplete page ({len(body)} bytes)")

    clients = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(200)]
    try:
        for t in clients:
            t.start()
        barrier.wait()
        config = site / "site.yml"
        for n in range(1, 7):  # post edits (pages replaced in place), and site.yml edits (every page rebuilt)
            if n % 3 == 0:
                config.write_text(config.read_text().replace("Attack Site", f"Attack Site {n}"))
            else:
                write_post(site, "big.md", "title: Big\ndate: 2025-03-01\ntags: [a]", big_post(n))
            time.sleep(0.6)
        done.set()
        for t in clients:
            t.join(timeout=60)
        wait_for(lambda: b"BEGIN-5" in srv.get("/blog/2025/big/")[2], timeout=20)
    finally:
        done.set()
        srv.stop()
    print(f"{len(answered)} requests during 6 rebuilds")
    assert len(answered) >= 400, "the reads did not overlap the rebuilds"
    assert not problems, f"{len(problems)} bad responses, first: {problems[:10]}"
    assert "rebuilt" in srv.log()
    no_traceback(srv)


# --- event-stream descriptors -------------------------------------------------------------------------------------


def open_stream(srv: Served, i: int) -> socket.socket:
    s = srv.connect()
    s.sendall(f"GET {EVENTS}?page=/blog/{i}/ HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n\r\n".encode())
    return s


def drop(s: socket.socket, i: int) -> None:
    """Close as a tab does, or abort (RST), or go away before reading anything."""
    if i % 3 == 1:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    if i % 3 != 2:
        data = b""
        while b"data:" not in data:
            chunk = s.recv(4096)
            assert chunk, "the stream ended before its first event"
            data += chunk
    s.close()


def test_event_streams_opened_and_dropped_leak_no_descriptor(server: Served) -> None:
    assert server.get("/")[0] == 200
    time.sleep(0.5)
    before, threads_before = server.fds(), server.threads()
    start = time.monotonic()
    for batch in range(20):  # 1,000 streams, 50 open at a time
        socks = [open_stream(server, batch * 50 + i) for i in range(50)]
        for i, s in enumerate(socks):
            drop(s, i)
        took = time.monotonic() - start
        assert took < 20, f"{(batch + 1) * 50} streams took {took:.1f}s: connections wait to be accepted"
    try:
        wait_for(lambda: server.fds() <= before + 3, timeout=15, step=0.2)
    except AssertionError:
        pass
    after, threads_after = server.fds(), server.threads()
    print(f"server descriptors: {before} before 1,000 event streams, {after} after; threads {threads_before} -> "
          f"{threads_after}")  # fmt: skip
    assert after <= before + 3, f"{after - before} descriptors leaked"
    assert threads_after <= threads_before + 3, f"{threads_after - threads_before} threads left"
    assert server.get("/")[0] == 200
    no_traceback(server)


# --- DNS rebinding: the Host header ---------------------------------------------------------------------------------

# fmt: off
ALLOWED = ["localhost", "localhost:{port}", "127.0.0.1", "127.0.0.1:{port}", "[::1]", "[::1]:{port}", "LocalHost:{port}"]
REFUSED = [
    "evil.example", "evil.example:{port}", "localhost.evil.example", "127.0.0.1.evil.example:{port}",
    "evil.example#127.0.0.1", "evil.example@127.0.0.1", "localhost:{port}@evil.example", "localhost:evil",
    "[::1].evil.example", "::1", "0.0.0.0:{port}", "",
]
# fmt: on


def test_a_foreign_host_header_is_refused(server: Served) -> None:
    for host in ALLOWED:
        host = host.format(port=server.port)
        assert server.get("/", host=host)[0] == 200, host
    targets = ["/", "/blog/2025/hello/", EVENTS, "/__livereload.js", "/feed.xml"]
    for host in REFUSED:
        host = host.format(port=server.port)
        for target in targets:
            status, _, body = server.get(target, host=host)
            assert status in (400, 403), (host, target, status)
            assert b"The first version" not in body and b"Attack Site" not in body, (host, target)
    assert server.get("/", host=None)[0] in (400, 403), "no Host header"
    two = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    assert server.raw(two)[0] in (400, 403), "two Host headers"
    for target in ("http://evil.example/", f"http://evil.example:{server.port}/blog/2025/hello/"):
        assert server.get(target)[0] in (400, 403), f"{target}: the request line names the host"
    assert server.get(f"http://localhost:{server.port}/blog/2025/hello/")[0] == 200
    no_traceback(server)


def test_the_host_serve_was_bound_to_is_allowed_too(site: Path) -> None:
    srv = Served(site, "--host", "127.1")  # another name of 127.0.0.1, not one allowed by default
    try:
        assert srv.host == "127.1"
        for host in ("127.1", f"127.1:{srv.port}", "localhost", f"127.0.0.1:{srv.port}"):
            assert srv.get("/", host=host)[0] == 200, host
        assert srv.get("/", host="evil.example")[0] in (400, 403)
        assert srv.get("/", host=f"127.2:{srv.port}")[0] in (400, 403)
    finally:
        srv.stop()


def test_bound_to_every_address_a_request_may_name_an_address_but_no_other_name() -> None:
    """(`--host 0.0.0.0` is not run here: the tests stay on 127.0.0.1.) A phone on the network asks for the
    machine's address; only a name can be re-pointed by DNS."""
    from site_builder.server.guard import HostPolicy

    for bind in ("0.0.0.0", "::"):
        policy = HostPolicy(bind)
        assert all(policy.allows(h) for h in ("192.168.1.20:8000", "10.0.0.5", "[fe80::1]:8000", "localhost:8000"))
        assert not any(policy.allows(h) for h in ("evil.example", "evil.example:8000", "192.168.1.20.evil.example"))
    assert not HostPolicy("127.0.0.1").allows("192.168.1.20:8000")
    assert HostPolicy("::1").allows("[::1]:8000") and HostPolicy("my-laptop.local").allows("My-Laptop.local:8000")


# --- SIGTERM with connections open ------------------------------------------------------------------------------------


def test_sigterm_with_open_streams_and_slow_clients_exits_cleanly(site: Path) -> None:
    srv = Served(site)
    streams = [open_stream(srv, i) for i in range(20)]
    for s in streams:
        wait_for(lambda s=s: b"data:" in s.recv(4096, socket.MSG_PEEK), timeout=5)
    slow = slow_clients(srv, 20)
    try:
        start = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        code = srv.proc.wait(timeout=15)
        took = time.monotonic() - start
        assert code == 0
        assert took < 3, f"took {took:.2f}s to stop"
        wait_for(lambda: "stopped" in srv.log(), timeout=5)
        assert not srv.output.parent.exists(), "the temporary directory was left behind"
        assert all(closed_by_server(s) for s in streams + slow)
        no_traceback(srv)
    finally:
        for s in streams + slow:
            s.close()
        srv.stop()


def test_the_first_build_is_announced_once_and_later_ones_as_rebuilds(server: Served, site: Path) -> None:
    start = server.log()
    assert re.search(r"^built 2 posts in \d+\.\d\ds$", start, re.M), start
    assert "rebuilt" not in start, start  # the first build is not a rebuild, nor said twice
    write_post(site, "hello.md", "title: Hello\ndate: 2025-01-02\ntags: [a]", "The second version.\n")
    wait_for(lambda: "rebuilt in" in server.log(), timeout=20)
