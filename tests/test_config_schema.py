"""Keys are declared once (config/schema.py): unknown ones are warnings at their line with a suggestion (the docs'
tables are the declaration's: tests/test_docs.py), and --strict turns the warnings into a failed build that leaves the output alone."""

from __future__ import annotations

from pathlib import Path

from helpers import make_site, run_cli, write_post


def write_site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site")
    write_post(root, "first.md", "title: First\ndate: 2025-01-01")
    return root


def _typo_site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    if not root.exists():
        write_site(tmp_path)
    (root / "site.yml").write_text((root / "site.yml").read_text() + "titel: Oops\nposts_per_pag: 3\n")
    post = root / "content" / "posts" / "typo.md"
    post.write_text("---\ntitle: Typo\ndate: 2025-01-02\ntgas: [ray]\nlayout: post\ncategories: [x]\n---\n\nHello.\n")
    return root


def test_unknown_keys_are_warnings_at_their_line_with_a_suggestion(tmp_path):
    root = _typo_site(tmp_path)
    site_lines = (root / "site.yml").read_text().splitlines()
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    titel = site_lines.index("titel: Oops") + 1
    assert f"warning: site.yml:{titel}: unknown key 'titel', ignored (did you mean 'title'?)" in proc.stderr
    assert "warning: content/posts/typo.md:4: unknown key 'tgas', ignored (did you mean 'tags'?)" in proc.stderr
    # keys other generators write (Jekyll's layout, categories) are accepted quietly
    assert "layout" not in proc.stderr and "categories" not in proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == sorted(warnings, key=lambda w: (w.split(":")[1], int(w.split(":")[2])))
    assert proc.stdout.strip().endswith("3 warnings"), proc.stdout
    assert (root / "output" / "blog" / "2025" / "typo" / "index.html").exists()


def test_strict_fails_and_keeps_the_previous_output(tmp_path):
    root = write_site(tmp_path)
    assert run_cli("build", "--source", str(root)).returncode == 0
    index = root / "output" / "index.html"
    before = index.read_bytes()
    (root / "site.yml").write_text((root / "site.yml").read_text() + "titel: Oops\nposts_per_pag: 3\n")
    (root / "content" / "posts" / "typo.md").write_text(
        "---\ntitle: A new title\ndate: 2025-01-02\ntgas: [ray]\n---\n\nHello.\n"
    )
    proc = run_cli("build", "--strict", "--source", str(root))
    assert proc.returncode == 1
    errors = proc.stderr.strip().splitlines()
    assert errors[-1] == "error: 3 warnings are errors under --strict", proc.stderr
    assert any("content/posts/typo.md:4: unknown key 'tgas'" in line for line in errors)
    assert index.read_bytes() == before
    assert not (root / "output" / "blog" / "2025" / "typo").exists()
    assert run_cli("build", "--source", str(root)).returncode == 0  # without --strict it builds


def test_unknown_code_block_options_are_warnings_at_the_fence(tmp_path):
    root = write_site(tmp_path)
    body = "Text.\n\n```python {skpi}\nprint(1)\n```\n\n```python {linenos=table hl_lines=1}\nx = 1\n```\n"
    post = write_post(root, "opts.md", "title: Options\ndate: 2025-01-03", body)
    fence = post.read_text().splitlines().index("```python {skpi}") + 1
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    # Hugo's highlight options are accepted quietly (linenos and hl_lines are this builder's own too)
    assert warnings == [
        f"warning: content/posts/opts.md:{fence}: unknown code block option 'skpi', ignored (did you mean 'skip'?)"
    ]
    again = run_cli("build", "--source", str(root))  # from the cache: still said
    assert [line for line in again.stderr.splitlines() if line.startswith("warning:")] == warnings
