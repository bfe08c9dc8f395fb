"""Attacks on the build cache: `.cache/build.pickle` travels with a site, and unpickling runs code.

The cache is loaded only when its HMAC, under a key kept in the user's own cache folder (never in the site tree),
matches; anything else is discarded with one warning before a byte of it is unpickled, and the build goes on.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from helpers import make_site, run_cli, write_post

CACHE = Path(".cache") / "build.pickle"


class _Exploit:
    """Unpickling this runs `touch MARKER`: what a hostile cache file would do."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site")
    write_post(root, "a.md", "title: A\ndate: 2024-01-01", "Hello.\n")
    return root


def build(site: Path):
    return run_cli("build", "--source", str(site), "--output", str(site / "output"))


def test_a_crafted_cache_file_runs_no_code(site: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    (site / ".cache").mkdir()
    (site / CACHE).write_bytes(pickle.dumps({"format": 8, "fragments": _Exploit(marker)}))
    proc = build(site)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "the cache file's code ran"
    warnings = [line for line in proc.stderr.splitlines() if "build cache unusable" in line]
    assert len(warnings) == 1, proc.stderr
    assert ".cache/build.pickle" in warnings[0] and "Traceback" not in proc.stderr
    assert (site / "output" / "blog" / "2024" / "a" / "index.html").exists()


def test_a_cache_file_signed_with_another_key_is_not_trusted(site: Path, tmp_path: Path, monkeypatch) -> None:
    """A cache made by another user (another key) with a valid layout: its signature does not match here."""
    assert build(site).returncode == 0
    blob = (site / CACHE).read_bytes()
    other = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "other-user"))
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "--source", str(site), "--output", str(site / "output")],
        capture_output=True, text=True, env=other, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0 and "signature does not match" in proc.stderr, proc.stderr
    assert (site / CACHE).read_bytes() != blob, "the build saved a cache signed with its own key"


@pytest.mark.parametrize("damage", ["truncated", "flipped", "flipped-html", "empty", "text"])
def test_a_damaged_cache_file_is_discarded_with_one_warning(site: Path, damage: str) -> None:
    """Damage "flipped-html" is in the file's second part (the fragments' HTML), which is only read when a page is to be
    rendered: the damage is found in the middle of the build, which then starts again from nothing."""
    assert build(site).returncode == 0
    path = site / CACHE
    blob = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "flipped":
        path.write_bytes(blob[:-10] + bytes([blob[-10] ^ 0xFF]) + blob[-9:])
    elif damage == "flipped-html":
        from site_builder.util.signed import MAGIC

        head = len(MAGIC) + 72  # MAGIC, two MACs, the second part's length; then the second part
        length = int.from_bytes(blob[head - 8 : head], "big")
        assert length > 0
        at = head + length // 2
        path.write_bytes(blob[:at] + bytes([blob[at] ^ 0xFF]) + blob[at + 1 :])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        path.write_text("not a cache\n")
    write_post(site, "a.md", "title: A\ndate: 2024-01-01", "Hello again.\n")
    proc = build(site)
    assert proc.returncode == 0, proc.stderr
    assert sum("build cache unusable" in line for line in proc.stderr.splitlines()) == 1, proc.stderr
    assert ("second part" in proc.stderr) == (damage == "flipped-html"), proc.stderr
    assert "Hello again." in (site / "output" / "blog" / "2024" / "a" / "index.html").read_text()
    again = build(site)  # the next build trusts the cache this one saved
    assert again.returncode == 0 and "build cache unusable" not in again.stderr


def test_the_key_lives_outside_the_site_tree(site: Path, tmp_path: Path) -> None:
    assert build(site).returncode == 0
    names = {p.name for p in site.rglob("*")}
    assert "cache.key" not in names
    from site_builder.util.signed import key_path

    assert site not in key_path().parents
    assert key_path().stat().st_mode & 0o077 == 0, "the key is readable by other users"


def test_a_cache_from_another_version_is_rebuilt_without_a_warning(site: Path) -> None:
    """An upgrade that changes the cache's layout is nothing the user did wrong: no warning (which --strict would
    turn into a failed build), the site is built from scratch, and nothing of the old file is unpickled."""
    assert build(site).returncode == 0
    from site_builder.util.signed import MAGIC

    old = MAGIC.replace(b"cache ", b"cache 0.")  # another version's header, then its signed pickle
    blob = (site / CACHE).read_bytes()
    (site / CACHE).write_bytes(old + blob[len(MAGIC) :])
    (site / "content" / "posts" / "a.md").write_text("---\ntitle: A\ndate: 2024-01-01\n---\n\nHello again.\n")
    proc = run_cli("build", "--strict", "--source", str(site), "--output", str(site / "output"))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "Hello again." in (site / "output" / "blog" / "2024" / "a" / "index.html").read_text()


@pytest.mark.parametrize("damage", ["truncated", "flipped", "text"])
def test_a_damaged_summary_beside_the_cache_is_discarded_with_one_warning(site: Path, damage: str) -> None:
    """`.cache/unchanged.pickle` (what lets an unchanged site be found without opening the cache) is signed like the
    cache: damaged or crafted, it is dropped with one warning, and the next build writes a good one."""
    assert build(site).returncode == 0
    path = site / ".cache" / "unchanged.pickle"
    blob = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "flipped":
        path.write_bytes(blob[:-10] + bytes([blob[-10] ^ 0xFF]) + blob[-9:])
    else:
        path.write_text("not a summary\n")
    proc = build(site)
    assert proc.returncode == 0, proc.stderr
    assert sum("build cache summary unusable" in line for line in proc.stderr.splitlines()) == 1, proc.stderr
    again = build(site)
    assert again.returncode == 0 and "ignored" not in again.stderr, again.stderr
    assert path.is_file() and path.read_bytes() != b"not a summary\n"


def _build_as(site: Path, home: Path):
    import subprocess
    import sys

    env = dict(os.environ, XDG_CACHE_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "--source", str(site), "--output", str(site / "output")],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def _pages(site: Path) -> dict[str, bytes]:
    out = site / "output"
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.html"))}


def test_compiled_templates_are_kept_signed_and_a_crafted_one_runs_no_code(site: Path, tmp_path: Path) -> None:
    """The theme's compiled templates are kept in the user's cache folder (Jinja reads them with pickle and
    marshal): a file there that this user's key did not sign is not read, and the pages come out the same."""
    home = tmp_path / "home-cache"
    assert _build_as(site, home).returncode == 0
    kept = home / "site-builder" / "templates"
    files = sorted(p for p in kept.iterdir() if not p.name.startswith("refs-"))
    assert files and (kept.stat().st_mode & 0o777) == 0o700, "compiled templates kept, in a private folder"
    assert any(p.name.startswith("refs-") for p in kept.iterdir()), "what each template names is kept too"
    first = _pages(site)
    marker = tmp_path / "pwned"
    for path in kept.iterdir():  # every kept file replaced by a pickle that would run code, unsigned
        path.write_bytes(bytes(32) + pickle.dumps(_Exploit(marker)))
    (site / ".cache").rename(tmp_path / "old-cache")  # a cold build: every page rendered again
    proc = _build_as(site, home)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert not marker.exists(), "a crafted compiled template ran"
    assert _pages(site) == first


def test_an_edited_template_is_compiled_again_and_its_kept_files_replaced(site: Path, tmp_path: Path) -> None:
    home = tmp_path / "home-cache"
    own = site / "themes" / "default" / "templates"
    own.mkdir(parents=True)
    (own / "tags.html").write_text('{% extends "base.html" %}{% block main %}<p>first</p>{% endblock %}\n')
    assert _build_as(site, home).returncode == 0
    kept = home / "site-builder" / "templates"
    count = len(list(kept.iterdir()))
    for word in ("second", "third"):
        (own / "tags.html").write_text('{% extends "base.html" %}{% block main %}<p>' + word + "</p>{% endblock %}\n")
        assert _build_as(site, home).returncode == 0
        assert f"<p>{word}</p>" in (site / "output" / "blog" / "tag" / "index.html").read_text()
        assert len(list(kept.iterdir())) == count, "one kept file per template file, replaced when it changes"
