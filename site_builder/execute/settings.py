"""A post's `execute:` and `exec:` front matter: whether it runs, its limits, packages, files and network (site.yml's
`exec:`, read with the rest of site.yml, is `config.site.SiteExec`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from site_builder.errors import SiteError
from site_builder.models import Post

DEFAULT_TIMEOUT = 120.0
DEFAULT_MEMORY = 4 << 30
DEFAULT_PROCESSES = 100  # processes of one post running at once (its own included)
SETTINGS = ("timeout", "memory", "requires", "files", "network", "processes", "isolation", "conventions")
ISOLATION = ("default", "strict")
_UNITS = {
    **{"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40},
    **{"kb": 1000, "mb": 10**6, "gb": 10**9, "tb": 10**12},
    **{"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40},
}


@dataclass
class ExecSettings:
    """A post's `exec:` front matter."""

    timeout: float = DEFAULT_TIMEOUT
    memory: int = DEFAULT_MEMORY
    requires: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    network: bool = True  # false: the post's process gets no network (a network namespace of its own)
    processes: int = DEFAULT_PROCESSES
    isolation: str = "default"  # "strict": namespaces of its own (jail.py); site.yml's strict holds for every post


def parse_size(value: Any, rel: str = "", line: int | None = None) -> int:
    """Bytes of a size written as a number or as `2GiB`, `512MiB`, `1.5g`."""
    if isinstance(value, int):
        return value
    m = re.fullmatch(r"\s*([\d.]+)\s*([a-zA-Z]*)\s*", str(value))
    if not m or m.group(2).lower() not in _UNITS:
        raise SiteError(f"exec: memory {value!r} is not a size like 2GiB or 512MiB", rel, line)
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def format_size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:g}{unit}"
    return f"{n}B"


def exec_settings(post: Post) -> ExecSettings:
    """The post's settings; a wrong one is an error naming the post."""
    raw = post.meta.get("exec") or {}
    if not isinstance(raw, dict):
        raise SiteError(f"'exec' must be a mapping ({', '.join(SETTINGS)})", post.rel)
    unknown = set(raw) - set(SETTINGS)
    if unknown:
        raise SiteError(f"unknown exec setting(s): {', '.join(sorted(unknown))} (use {', '.join(SETTINGS)})", post.rel)
    settings = ExecSettings()
    try:
        if "timeout" in raw:
            settings.timeout = float(raw["timeout"])
    except (TypeError, ValueError):
        raise SiteError(f"exec: timeout must be a number of seconds, got {raw['timeout']!r}", post.rel) from None
    if "memory" in raw:
        settings.memory = parse_size(raw["memory"], post.rel)
    for key in ("requires", "files"):
        value = raw.get(key) or []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            raise SiteError(f"exec: {key} must be a list", post.rel)
        setattr(settings, key, [str(v) for v in value])
    if "network" in raw:
        settings.network = _flag(raw["network"], "network", post.rel, post.lines.get("exec.network"))
    if "processes" in raw:
        value = raw["processes"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise SiteError(f"exec: processes must be a whole number of at least 1, got {value!r}", post.rel)
        settings.processes = value
    if "isolation" in raw:
        settings.isolation = isolation(raw["isolation"], post.rel, post.lines.get("exec.isolation"))
    return settings


def isolation(value: Any, rel: str, line: int | None) -> str:
    """`exec: isolation`: default or strict."""
    if value not in ISOLATION:
        raise SiteError(f"exec: isolation must be default or strict, got {value!r}", rel, line)
    return str(value)


def _flag(value: Any, key: str, rel: str, line: int | None) -> bool:
    if not isinstance(value, bool):
        raise SiteError(f"exec: {key} must be true or false, got {value!r}", rel, line)
    return value
