"""A site served under a path (`url: https://user.github.io/blog/`): its root-absolute links moved under it."""

from __future__ import annotations

import re

# href="/x", src='/x', ...: a link to a path of this site (not "//host/x", which is another host)
_LINK = re.compile(r"""(\s(?:href|src|action|poster|data-src)=["'])/(?!/)""")
_SRCSET = re.compile(r"""(\s(?:srcset|data-srcset)=)(["'])([^"']*)\2""")


def rebase(html: str, prefix: str) -> str:
    """`html` with every link to a site path (`/blog/x/`, `/css/site.css`, srcset entries) under `prefix`
    (`/blog`, no trailing slash); unchanged when `prefix` is empty, so a site at a domain's root is as it was."""
    if not prefix:
        return html
    html = _LINK.sub(lambda m: m[1] + prefix + "/", html)
    return _SRCSET.sub(lambda m: m[1] + m[2] + _rebase_srcset(m[3], prefix) + m[2], html)


def _rebase_srcset(value: str, prefix: str) -> str:
    entries = [entry.strip() for entry in value.split(",")]
    return ", ".join(prefix + e if e.startswith("/") and not e.startswith("//") else e for e in entries)


def folder_of(url: str) -> str:
    """The folder a relative reference on the page at site path `url` is read against, as a browser reads it
    (`/blog/a/` for `/blog/a/` and for `/blog/a/b.html`)."""
    return url if url.endswith("/") else url.rsplit("/", 1)[0] + "/"


def climbs_out(base: str, ref: str) -> bool:
    """Whether a reference without a scheme, read against the site path `base` (`/blog/2024/a/`) as a browser reads
    it, names more `..` (`%2e%2e` included) than there are folders above it: an address outside the site, which
    `urljoin` would quietly turn into another one."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", ref) or ref.startswith(("//", "\\\\")):
        return False
    path = re.split(r"[?#]", ref.replace("\\", "/"), maxsplit=1)[0]
    depth = 0 if path.startswith("/") else len(base.split("/")) - 2
    for segment in path.split("/"):
        segment = segment.lower().replace("%2e", ".")
        if segment == "..":
            depth -= 1
            if depth < 0:
                return True
        elif segment not in ("", "."):
            depth += 1
    return False
