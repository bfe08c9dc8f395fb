"""The search index: Pagefind over the built pages, its extended build (Chinese and Japanese words segmented).

Pagefind reads the pages as a browser would and indexes what a page marks with `data-pagefind-body` (a post's
text); each language (`<html lang>`) gets an index of its own. A build indexes its complete staged tree before it
takes the output's place (the pages and their index change in one step); where the output is updated in place,
the index is written beside the output and then put in place of the old one (`output/pagefind/`).

Pagefind is told to look only inside `data-pagefind-body` (its root selector, ROOT): what is outside it (the head,
header, related posts, footer, every list page) is indexed by no page once any page has a body, and leaving it to
Pagefind cost it a fifth of its time (4,000 posts; the index it writes is byte-identical). A site with no such
element (no post, no page) is indexed as Pagefind does by default, every page's `<body>`. A formula is indexed as
its TeX (the MathML's `<annotation>`) and not also as the MathML's symbols, which ran together (`n2` for `n^2`) in
the words and the excerpts.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from site_builder.errors import SiteWarning

if TYPE_CHECKING:
    import subprocess

SEARCH_DIR = "pagefind"
ENTRY = "pagefind-entry.json"  # written last by Pagefind: an index without it is not whole
TIMEOUT = 600.0
# what a post's page shows beside its words, kept out of the index and so out of the results' excerpts
EXCLUDED = ".post-header .meta, .post-header .tags, .post-header .translations, .header-anchor, .output-badge"
MATH_SYMBOLS = "semantics > :not(annotation)"  # a formula's MathML but its TeX source (render/mathtex.py)
ROOT = "[data-pagefind-body]"  # where Pagefind looks (its default: html)


def index_present(output: Path) -> bool:
    return (output / SEARCH_DIR / ENTRY).is_file()


def pagefind() -> str | None:
    """The Pagefind binary the `pagefind[extended]` package installs (None when it is not installed)."""
    try:
        from pagefind.service import get_executable
    except ImportError:
        return None
    found = get_executable()
    return str(found) if found is not None else None


def index_site(output: Path, started: Callable[[subprocess.Popen[str]], object] | None = None) -> SiteWarning | None:
    """Index the site in `output` (a warning, and the old index kept, when Pagefind is missing or fails).
    `started` is given Pagefind's process, for a caller that may have to stop it."""
    import subprocess  # here: a build that indexes nothing does not load it

    binary = pagefind()
    if binary is None:
        return SiteWarning("search index not built: Pagefind is not installed (pip install 'pagefind[extended]')")
    new, old = _new(output), output.parent / f".{output.name}.{SEARCH_DIR}-old"
    for leftover in (new, old):
        shutil.rmtree(leftover, ignore_errors=True)
    command = [binary, "--site", str(output), "--output-path", str(new), "--silent"]
    command += ["--exclude-selectors", EXCLUDED, "--exclude-selectors", MATH_SYMBOLS]
    try:
        proc, out, err = _run([*command, "--root-selector", ROOT], started)
        if proc.returncode > 0:  # no page has a body (Pagefind indexes nothing): every page's <body>, as by default
            shutil.rmtree(new, ignore_errors=True)
            proc, out, err = _run(command, started)
    except (OSError, subprocess.TimeoutExpired) as exc:
        shutil.rmtree(new, ignore_errors=True)
        return SiteWarning(f"search index not updated: Pagefind did not finish ({exc})")
    if proc.returncode != 0 or not (new / ENTRY).is_file():
        shutil.rmtree(new, ignore_errors=True)
        reason = " ".join((err or out).split())[:300] or f"exit {proc.returncode}"
        return SiteWarning(f"search index not updated: Pagefind failed: {reason}")
    current = output / SEARCH_DIR
    if current.exists():
        os.rename(current, old)
    os.rename(new, current)
    shutil.rmtree(old, ignore_errors=True)
    return None


# what Pagefind is told of the build's environment: no token (GITHUB_TOKEN...), since a program the build starts
# can be read by a process a post left running, where the build runs without capabilities (any user but root)
_ENV = ("PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ")


def _run(
    command: list[str], started: Callable[[subprocess.Popen[str]], object] | None
) -> tuple[subprocess.Popen[str], str, str]:
    """Run Pagefind to its end (killed after TIMEOUT): the process, its output and its errors."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k in _ENV or k.startswith("LC_")}
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as proc:
        if started is not None:
            started(proc)
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    return proc, out, err


def _new(output: Path) -> Path:
    """Where Pagefind writes: beside the output, not in it (a stopped run leaves nothing in the site)."""
    return output.parent / f".{output.name}.{SEARCH_DIR}-new"


def interrupted(output: Path) -> bool:
    """An index run was stopped before it was put in place: the index may be older than the pages."""
    return _new(output).exists()


def remove_index(output: Path) -> None:
    """`search: false`: no index left in the output."""
    shutil.rmtree(output / SEARCH_DIR, ignore_errors=True)
