"""What the dev server checks before it answers: which hosts a request may name (DNS rebinding), the request target's
form, and how long a client may take to send its request (slowloris)."""

from __future__ import annotations

import io
import ipaddress
import re
import socket
import time
from typing import Any
from urllib.parse import urlsplit

HEADER_TIMEOUT = 10.0  # seconds a connection has to send a request's line and headers (idle keep-alive included)
SEND_TIMEOUT = 10.0  # seconds one write to a client may block (a page that stopped reading its event stream)
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
_HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::(\d{1,5}))?")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def host_name(host: str) -> str:
    """A bind address as a Host header names it: lower case, an IPv6 address in brackets."""
    host = host.lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


class HostPolicy:
    """The hosts a request may name: this machine's names, and the one serve was bound to with --host.

    A page on another site can make a browser send requests here (its own name, re-pointed by its DNS to 127.0.0.1)
    and read the answers, unless a request naming another host is refused. Bound to every address (0.0.0.0, ::),
    a request naming an address is also accepted: only a name can be re-pointed.
    """

    def __init__(self, bind_host: str) -> None:
        self.names = LOCAL_NAMES | {host_name(bind_host)}
        self.any_address = bind_host in WILDCARDS

    def allows(self, value: str) -> bool:
        """Whether a Host header value (`name` or `name:port`) is one this server answers for."""
        m = _HOST.fullmatch(value)
        if m is None:
            return False
        name = m.group(1).lower()
        if name in self.names:
            return True
        if not self.any_address:
            return False
        try:
            ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            return False
        return True


def refusal(command: str, target: str, hosts: list[str], policy: HostPolicy) -> tuple[int, str] | None:
    """Why a parsed request is refused (status, message), or None. `hosts`: its Host headers."""
    if not _TOKEN.fullmatch(command):
        return 400, "bad method"
    if len(hosts) != 1:
        return 400, "a request names its host in one Host header"
    if not policy.allows(hosts[0].strip()):
        return 403, "this server answers only for localhost (or the host given to --host)"
    if target.startswith("/"):
        return None
    parts = urlsplit(target)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return 400, "bad request target"
    if not policy.allows(parts.netloc):  # the host in an absolute target is the one asked for (RFC 9112, 3.2.2)
        return 403, "this server answers only for localhost (or the host given to --host)"
    return None


def origin_form(target: str) -> str:
    """The path and query of a request target (absolute ones too), with one leading slash: a folder's redirect built
    from it stays on this site (`//host/` would be another)."""
    if not target.startswith("/"):
        parts = urlsplit(target)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
    return "/" + target.lstrip("/")


class DeadlineReader(io.RawIOBase):
    """A socket's reading side that fails (TimeoutError) once `deadline` (a time.monotonic() value) has passed, however
    slowly the bytes trickle in; no deadline: reads wait up to SEND_TIMEOUT, as writes do."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.deadline is None:
            self.sock.settimeout(SEND_TIMEOUT)
        else:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request took too long to arrive")
            self.sock.settimeout(left)
        return self.sock.recv_into(buffer)
