"""The line of a new site's requirements.txt that installs the site-builder that made it.

`init` writes a CI workflow that runs `pip install -r requirements.txt`. A pin such as `site-builder==0.1.0`
only installs where a package index holds that version, so the line is read from how the running site-builder
was installed, as pip recorded it in `direct_url.json` (PEP 610):

- no `direct_url.json`: it came from an index, so the pinned version;
- `vcs_info`: it came from a repository, so `site-builder @ git+URL@COMMIT`;
- `archive_info` of a remote file: `site-builder @ URL`;
- otherwise (a local wheel or sdist, a folder, an editable checkout): a wheel of it copied into the site's
  `vendor/` folder (built from a folder when that is what was installed) and named by its path.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlsplit

from site_builder.errors import SiteError

DIST = "site-builder"
VENDOR = "vendor"
# what a copy of a source folder leaves out before a wheel is built from it (setuptools builds in the tree)
_NOT_SOURCE = (".git", ".venv", "venv", "output", ".cache", "build", "dist", "node_modules", "__pycache__")


@dataclass
class Requirement:
    """The requirements line, and the files `init` wrote for it (a wheel in vendor/)."""

    line: str
    written: list[Path] = field(default_factory=list)
    origin: str = "index"  # index, vcs, url, archive, folder: how the running site-builder was installed


def direct_url() -> dict[str, object] | None:
    """What pip recorded of where the running site-builder came from; None when it came from an index."""
    try:
        text = metadata.distribution(DIST).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def requirement_for(site: Path, version: str, recorded: dict[str, object] | None) -> Requirement:
    """The requirements line for a site at `site`, given what `direct_url()` read."""
    if recorded is None or not isinstance(recorded.get("url"), str):
        return Requirement(f"{DIST}=={version}")
    url = str(recorded["url"])
    vcs = recorded.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") and vcs.get("commit_id"):
        if url.startswith("file:///"):  # a local repository: pip before 23.3 reads a URL without a host as invalid
            url = "file://localhost/" + url[len("file:///") :]
        return Requirement(f"{DIST} @ {vcs['vcs']}+{url}@{vcs['commit_id']}", origin="vcs")
    parts = urlsplit(url)
    if parts.scheme != "file":
        return Requirement(f"{DIST} @ {url}", origin="url")
    local = Path(unquote(parts.path))
    if local.is_file():
        return _vendored(site, local, "archive")
    if local.is_dir():
        with tempfile.TemporaryDirectory(prefix="site-builder-wheel-") as work:
            return _vendored(site, _wheel_of(local, Path(work)), "folder")
    raise SiteError(f"site-builder was installed from {local}, which is gone: reinstall it, or write requirements.txt")


def _vendored(site: Path, archive: Path, origin: str) -> Requirement:
    target = site / VENDOR / archive.name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(archive, target)
    return Requirement(f"./{VENDOR}/{archive.name}", [target], origin)


def _wheel_of(folder: Path, work: Path) -> Path:
    """A wheel built in `work` from a copy of the source folder (the build leaves nothing in the checkout)."""
    copy = work / "source"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(*_NOT_SOURCE), symlinks=True)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(copy)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wheels = sorted((work / "dist").glob("*.whl"))
    if proc.returncode != 0 or not wheels:
        why = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no wheel"]
        raise SiteError(f"cannot build a wheel of site-builder from {folder} for requirements.txt: {why[0]}")
    return wheels[0]
