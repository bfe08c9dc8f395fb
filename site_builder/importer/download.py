"""`import --download-images`: the images a post shows from the blog's own host, saved next to the post, so that
a migrated blog stops hotlinking its old host.

Only http(s), only the blog's own host (and its subdomains), at most `max_bytes` each, `timeout` seconds each;
each file is named by its content (`3f2a9c0d5e1b7a44.jpg`), checked by Pillow, and written only inside the
post's own folder (`content/posts/<post>/`). Whatever cannot be fetched stays a link to the old host, with a
warning.
"""

from __future__ import annotations

import io
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from site_builder.util.files import atomic_write
from site_builder.util.hashing import bytes_digest

MAX_BYTES = 20 * 1024 * 1024
TIMEOUT = 20.0
_EXT = {"JPEG": ".jpg", "PNG": ".png", "GIF": ".gif", "WEBP": ".webp", "BMP": ".bmp", "TIFF": ".tif", "ICO": ".ico"}
# ![alt](url "title") and ![alt](<url>) as the importer writes them; <img src="url"> in raw HTML
_MD_IMAGE = re.compile(r"(!\[(?:[^\]\\]|\\.)*\]\(\s*<?)(https?://[^\s)>]+)")
_HTML_IMAGE = re.compile(r"""(<img\s[^>]*?\bsrc=["'])(https?://[^"']+)""", re.I)


@dataclass(frozen=True)
class Fetched:
    """An image as downloaded, with the extension Pillow's reading of it gives."""

    data: bytes
    suffix: str


@dataclass
class ImageDownloader:
    """Fetches one blog's images; a URL seen before (in any post) is fetched once."""

    host: str  # the blog's own host, e.g. "julianygao.me"
    max_bytes: int = MAX_BYTES
    timeout: float = TIMEOUT
    fetched: dict[str, Fetched | str] = field(default_factory=dict)  # url -> the image, or why not

    def localize(self, body: str, folder: Path, prefix: str) -> tuple[str, list[str]]:
        """`body` with each own-host image replaced by `prefix/NAME`, saved as `folder/NAME`; and warnings."""
        warnings: list[str] = []

        def swap(m: re.Match[str]) -> str:
            url = m[2]
            if not self.own(url):
                return m[0]
            got = self.fetch(url)
            if isinstance(got, str):
                warnings.append(f"image {url} not downloaded: {got}; still linked from the old host")
                return m[0]
            name = bytes_digest(got.data)[:16] + got.suffix
            target = folder / name
            if not target.exists():
                folder.mkdir(parents=True, exist_ok=True)
                atomic_write(target, got.data)
            return m[1] + f"{prefix}/{name}"

        body = _MD_IMAGE.sub(swap, body)
        return _HTML_IMAGE.sub(swap, body), warnings

    def own(self, url: str) -> bool:
        host = (urlsplit(url).hostname or "").lower()
        return host == self.host or host.endswith("." + self.host)

    def fetch(self, url: str) -> Fetched | str:
        if url not in self.fetched:
            self.fetched[url] = self._download(url)
        return self.fetched[url]

    def _download(self, url: str) -> Fetched | str:
        if urlsplit(url).scheme not in ("http", "https"):
            return "not http(s)"
        opener = urllib.request.build_opener(_SameSchemesRedirect)
        request = urllib.request.Request(url, headers={"User-Agent": "site-builder import"})
        try:
            with opener.open(request, timeout=self.timeout) as resp:
                length = resp.headers.get("Content-Length")
                if length and length.isdigit() and int(length) > self.max_bytes:
                    return f"larger than {self.max_bytes // (1024 * 1024)} MiB"
                data: bytes = resp.read(self.max_bytes + 1)
        except urllib.error.HTTPError as exc:
            return f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            return f"cannot fetch it ({reason})"
        if len(data) > self.max_bytes:
            return f"larger than {self.max_bytes // (1024 * 1024)} MiB"
        suffix = _suffix(data)
        return Fetched(data, suffix) if suffix else "not an image Pillow can read"


class _SameSchemesRedirect(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http(s) only (never ftp: or file:)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        if urlsplit(newurl).scheme not in ("http", "https"):
            return None
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _suffix(data: bytes) -> str:
    """The file extension for image bytes Pillow can identify, "" for anything else."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as im:
            return _EXT.get(im.format or "", "")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return ""
