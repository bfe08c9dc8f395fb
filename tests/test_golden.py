"""Golden hashes: the bundled site and a synthetic bench corpus build to exactly the recorded bytes.

A refactoring must not change a single output byte. When a change is meant to alter the output, record the new
hashes with `SITE_BUILDER_UPDATE_GOLDEN=1 pytest tests/test_golden.py` and say why in the commit. The build's
marker file (`.site-builder`, a random build id) is left out, as is the search index (`pagefind/`: Pagefind's own
files, whose bytes are its version's business; tests/test_search.py holds what it must find): nothing else in the
output depends on the time of the build.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import REPO, run_cli

GOLDEN = REPO / "tests" / "data" / "golden"
UPDATE = os.environ.get("SITE_BUILDER_UPDATE_GOLDEN") == "1"


def tree_hashes(out: Path) -> dict[str, str]:
    hashes = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if path.is_file() and rel != ".site-builder" and not rel.startswith("pagefind/"):
            hashes[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def compare(name: str, out: Path) -> None:
    got = tree_hashes(out)
    golden = GOLDEN / f"{name}.json"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return
    want = json.loads(golden.read_text(encoding="utf-8"))
    assert sorted(got) == sorted(want), (
        f"files added: {sorted(set(got) - set(want))[:10]}, missing: {sorted(set(want) - set(got))[:10]}"
    )
    changed = [rel for rel in want if got[rel] != want[rel]]
    assert not changed, f"{len(changed)} output files differ from the golden build: {changed[:10]}"


def bench_module():
    spec = importlib.util.spec_from_file_location("bench_build", REPO / "bench" / "build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bundled_site_builds_to_the_golden_bytes(tmp_path: Path, bundled_build: Path) -> None:
    """A copy of content/ and site.yml, with the results of its posts' runs (the run's bundled build left them)."""
    site = tmp_path / "site"
    site.mkdir()
    shutil.copytree(REPO / "content", site / "content")
    shutil.copy(REPO / "site.yml", site / "site.yml")
    if (REPO / ".cache" / "exec").is_dir():  # the executed posts' results, when a build here left them
        shutil.copytree(REPO / ".cache" / "exec", site / ".cache" / "exec")
    run_cli("build", "--source", str(site), "--output", str(tmp_path / "out"), check=True)
    compare("bundled-site", tmp_path / "out")


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "after-edits"])
def test_a_synthetic_corpus_builds_to_the_golden_bytes(tmp_path: Path, warm: bool) -> None:
    """200 bench posts (code, math, lists); `after-edits` builds, edits a post, builds, reverts, builds again:
    the incremental path must land on the same bytes as a cold build."""
    root = tmp_path / "site"
    bench_module().make_site(root, 200)
    out = tmp_path / "out"
    if warm:
        run_cli("build", "--source", str(root), "--output", str(out), check=True)
        post = root / "content" / "posts" / "post-00007.md"
        text = post.read_text(encoding="utf-8")
        post.write_text(text.replace("## Background", "## Changed background"), encoding="utf-8")
        run_cli("build", "--source", str(root), "--output", str(out), check=True)
        post.write_text(text, encoding="utf-8")
        os.utime(post, ns=(1, 1))  # a new stamp, whatever the file system's clock resolution
    run_cli("build", "--source", str(root), "--output", str(out), check=True)
    if not warm or not UPDATE:
        compare("bench-200", out)
