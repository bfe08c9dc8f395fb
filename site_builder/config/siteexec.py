"""site.yml's `exec:`: what every executing post gets (variables passed by name, network, preloaded modules)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from site_builder.errors import SiteError


@dataclass
class SiteExec:
    """site.yml's `exec:`: environment variables passed to posts by name, whether posts may use the network, and
    the modules the template process imports before it forks them."""

    env: list[str] = field(default_factory=list)
    network: bool = True
    preload: list[str] = field(default_factory=list)  # modules imported once, before the posts are forked
    conventions: tuple[str, ...] = ()  # other tools' conventions read in every executing post (a post may say its own)
    isolation: str = "default"  # "strict": every post in namespaces of its own (execute/jail.py)


CONFIG_NAME = "site.yml"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_SITE_EXEC = ("env", "network", "preload", "isolation", "conventions")
CONVENTIONS = ("phmdoctest", "sybil", "pytest-codeblocks")


def site_exec(raw: Any, lines: dict[str, int]) -> SiteExec:
    """site.yml's `exec:` (the defaults without one); a wrong value is an error at its line."""
    if raw is None:
        return SiteExec()
    if not isinstance(raw, dict) or set(raw) - set(_SITE_EXEC):
        message = f"site.yml's exec must be a mapping of {', '.join(_SITE_EXEC)}, got {raw!r}"
        raise SiteError(message, CONFIG_NAME, lines.get("exec"))
    site = SiteExec()
    if "network" in raw:
        if not isinstance(raw["network"], bool):
            message = f"exec: network must be true or false, got {raw['network']!r}"
            raise SiteError(message, CONFIG_NAME, lines.get("exec.network"))
        site.network = raw["network"]
    env = raw.get("env") or []
    env = [env] if isinstance(env, str) else env
    if not isinstance(env, list) or not all(isinstance(n, str) and _ENV_NAME.fullmatch(n) for n in env):
        message = f"exec: env must be a list of environment variable names, got {raw.get('env')!r}"
        raise SiteError(message, CONFIG_NAME, lines.get("exec.env") or lines.get("exec"))
    site.env = list(env)
    site.preload = _preload(raw.get("preload"), lines)
    site.conventions = conventions(
        raw.get("conventions"), CONFIG_NAME, lines.get("exec.conventions") or lines.get("exec")
    )
    if "isolation" in raw:
        if raw["isolation"] not in ("default", "strict"):
            message = f"exec: isolation must be default or strict, got {raw['isolation']!r}"
            raise SiteError(message, CONFIG_NAME, lines.get("exec.isolation"))
        site.isolation = raw["isolation"]
    return site


def conventions(raw: Any, where: str, line: int | None) -> tuple[str, ...]:
    """`exec: conventions`: the other tools whose conventions a post is read with (`[phmdoctest, sybil]`)."""
    names = [raw] if isinstance(raw, str) else (raw or [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n in CONVENTIONS for n in names):
        message = f"exec: conventions must be a list of {', '.join(CONVENTIONS)}, got {raw!r}"
        raise SiteError(message, where, line)
    return tuple(names)


def _preload(raw: Any, lines: dict[str, int]) -> list[str]:
    """site.yml's `exec: preload`: module names (`numpy`, `matplotlib.pyplot`)."""
    names = [raw] if isinstance(raw, str) else (raw or [])
    if not isinstance(names, list) or not all(isinstance(n, str) and _MODULE_NAME.fullmatch(n) for n in names):
        message = f"exec: preload must be a list of module names (numpy, matplotlib.pyplot), got {raw!r}"
        raise SiteError(message, CONFIG_NAME, lines.get("exec.preload") or lines.get("exec"))
    return list(names)
