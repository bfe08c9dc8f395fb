"""`import --download-images` against a real local HTTP server: own-host images saved next to each post under
content-addressed names, everything else left as it was with a warning, nothing written outside the post folder."""

from __future__ import annotations

import functools
import http.server
import io
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import make_site, run_cli
from PIL import Image

from site_builder.importer.download import ImageDownloader


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/to-file":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()
            return
        if self.path == "/moved.png":
            self.send_response(301)
            self.send_header("Location", "/img/photo.png")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


def png(color: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    docroot = tmp_path / "www"
    (docroot / "img").mkdir(parents=True)
    (docroot / "img" / "photo.png").write_bytes(png((200, 10, 10)))
    (docroot / "img" / "other.png").write_bytes(png((10, 200, 10), (30, 30)))
    (docroot / "img" / "page.png").write_text("<html>not an image</html>")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(docroot)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", docroot
    finally:
        httpd.shutdown()
        httpd.server_close()


def feed(origin: str) -> str:
    body = (
        f'<p><img src="{origin}/img/photo.png" alt="Photo"></p>'
        f'<p><img src="{origin}/img/photo.png" alt="Again"></p>'
        f'<p><img src="{origin}/moved.png" alt="Moved"></p>'
        f'<p><img src="{origin}/img/missing.png" alt="Gone"></p>'
        f'<p><img src="{origin}/img/page.png" alt="Page"></p>'
        f'<p><img src="{origin}/to-file" alt="Sneaky"></p>'
        '<p><img src="https://cdn.elsewhere.example/x.png" alt="Elsewhere"></p>'
    )
    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>B</title><id>urn:b</id><updated>2024-01-01T00:00:00Z</updated>
<link href="{origin}/"/>
<entry><title>Trip</title><id>urn:trip</id><link href="{origin}/2024/trip/"/>
<published>2024-01-01T00:00:00Z</published><updated>2024-01-01T00:00:00Z</updated>
<content type="html"><![CDATA[{body}]]></content></entry></feed>
"""


def test_own_host_images_are_saved_next_to_the_post_and_the_site_builds(server, tmp_path):
    origin, _ = server
    root = make_site(tmp_path / "site", "title: B\nurl: https://b.example\n")
    (tmp_path / "feed.xml").write_text(feed(origin), encoding="utf-8")
    proc = run_cli("import", str(tmp_path / "feed.xml"), "--into", "content/posts", "--download-images", cwd=root)
    assert proc.returncode == 0, proc.stderr
    post = (root / "content/posts/trip.md").read_text()
    saved = sorted(p.name for p in (root / "content/posts/trip").iterdir())
    assert len(saved) == 1 and saved[0].endswith(".png") and len(saved[0]) == 16 + 4  # one file, by content
    assert post.count(f"](trip/{saved[0]})") == 3  # photo twice and the redirect to it: one file
    for path in ("/img/missing.png", "/img/page.png", "/to-file"):
        assert f"]({origin}{path})" in post  # left linking the old host
    assert "](https://cdn.elsewhere.example/x.png)" in post  # another host: not fetched
    assert "missing.png not downloaded: HTTP 404" in proc.stderr
    assert "page.png not downloaded: not an image Pillow can read" in proc.stderr
    assert "to-file not downloaded" in proc.stderr
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert files == {"site.yml", "content/posts/trip.md", f"content/posts/trip/{saved[0]}"}
    build = run_cli("build", "--source", str(root))
    assert build.returncode == 0, build.stderr
    html = (root / "output/2024/trip/index.html").read_text()
    assert f'src="/2024/trip/trip/{saved[0]}"' in html
    assert (root / f"output/2024/trip/trip/{saved[0]}").exists()


def test_the_size_cap_and_the_timeout_hold(server):
    origin, docroot = server
    (docroot / "img" / "big.png").write_bytes(png((1, 2, 3), (800, 800)))
    small = ImageDownloader("127.0.0.1", max_bytes=1000)
    assert small.fetch(f"{origin}/img/big.png") == "larger than 0 MiB"
    slow = ImageDownloader("127.0.0.1", timeout=0.5)
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts, never answers
    try:
        got = slow.fetch(f"http://127.0.0.1:{listener.getsockname()[1]}/x.png")
    finally:
        listener.close()
    assert isinstance(got, str) and got.startswith("cannot fetch it"), got
    assert ImageDownloader("127.0.0.1").fetch("ftp://127.0.0.1/x.png") == "not http(s)"
