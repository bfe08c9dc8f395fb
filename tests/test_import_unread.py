"""`import` names the front matter keys it left out, in one closing note (never a silent drop of a key another
generator gave meaning to), and carries a post's author."""

from __future__ import annotations

from pathlib import Path

import yaml
from helpers import run_cli
from test_import_hugo import write


def _front(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1])


def test_jekyll_keys_left_out_are_named_with_their_counts_and_a_guess(tmp_path):
    post = "---\ntitle: {n}\ndate: 2020-01-0{n}\nauthor: Ada Lovelace\ngiscus_comments: true\nmath: true\n{extra}---\nText.\n"
    old = write(
        tmp_path / "old",
        {
            "_config.yml": "title: T\ndefaults:\n  - scope: {path: ''}\n    values: {layout: post, comments: true}\n",
            "_posts/2020-01-01-a.md": post.format(n=1, extra="discription: A typo.\nfeatured: true\n"),
            "_posts/2020-01-02-b.md": post.format(n=2, extra="featured: true\ntoc: false\n"),
            "_posts/2020-01-03-c.md": post.format(n=3, extra=""),
        },
    )
    proc = run_cli("import", str(old), str(tmp_path / "new"), check=True)
    said = (proc.stdout + proc.stderr).splitlines()
    note = next(line for line in said if line.startswith("front matter keys left out"))
    assert note == (
        "front matter keys left out; no equivalent here: giscus_comments (3 files), featured (2), "
        "discription (1: did you mean description?); not needed here (every post has it, or it chose the old "
        "theme's template): math (3 files)"
    )  # `layout` and `comments` came from _config.yml's defaults, not the files: not named
    assert _front(tmp_path / "new/content/posts/2020-01-01-a.md")["author"] == "Ada Lovelace"
    assert _front(tmp_path / "new/content/posts/2020-01-02-b.md")["toc"] is False  # read: not in the note


def test_hugo_authors_are_carried_and_nothing_read_is_named(tmp_path):
    old = write(
        tmp_path / "old",
        {
            "hugo.toml": 'title = "S"\n',
            "content/posts/a.md": '+++\ntitle = "A"\ndate = 2020-02-02\nauthors = ["Ada", "Grace"]\ntags = ["x"]\n+++\nA.\n',
        },
    )
    proc = run_cli("import", str(old), str(tmp_path / "new"), check=True)
    assert "front matter keys left out" not in proc.stdout + proc.stderr
    assert _front(tmp_path / "new/content/posts/a.md")["author"] == "Ada, Grace"
