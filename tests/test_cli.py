"""The command line as a user meets it: help, version, `new`, and refusals (exit 1, one line, no traceback)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from helpers import assert_one_line_error, make_site, run_cli

from site_builder import __version__


def front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), text
    head, sep, _ = text[4:].partition("\n---\n")
    assert sep, f"front matter not closed in:\n{text}"
    return yaml.safe_load(head)


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    return make_site(tmp_path / "site")


# --- help and version ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["build"], ["import"], ["new"]], ids=["top", "build", "import", "new"])
def test_help_works_for_every_command(command):
    proc = run_cli(*command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: site-builder"), proc.stdout
    assert proc.stderr == ""


def test_top_level_help_lists_the_commands():
    out = run_cli("--help").stdout
    for command in ("build", "import", "new"):
        assert re.search(rf"^\s+{command}\s", out, re.M), f"{command} missing from:\n{out}"


def test_subcommand_help_shows_its_options():
    assert "--output" in run_cli("build", "--help").stdout
    assert "--into" in run_cli("import", "--help").stdout
    assert "--lang" in run_cli("new", "--help").stdout


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"site-builder {__version__}"


def test_no_command_is_a_usage_error_without_traceback():
    proc = run_cli()
    assert proc.returncode == 2
    assert "usage:" in proc.stderr and "Traceback" not in proc.stderr


# --- new -----------------------------------------------------------------------------------------


def test_new_creates_a_post_that_builds(site):
    proc = run_cli("new", "Hello World", cwd=site)
    assert proc.returncode == 0, proc.stderr
    path = site / "content/posts/hello-world.md"
    assert path.exists()
    assert "content/posts/hello-world.md" in proc.stdout
    meta = front_matter(path)
    assert meta["title"] == "Hello World"
    assert meta["tags"] == []
    assert meta["lang"] == "en"
    assert re.match(r"^\d{4}-\d{2}-\d{2}", str(meta["date"])), meta["date"]
    build = run_cli("build", cwd=site, check=True)
    assert "built 1 post " in build.stdout
    year = str(meta["date"])[:4]
    page = site / "output/blog" / year / "hello-world/index.html"
    assert "Hello World" in page.read_text(encoding="utf-8")


def test_new_uses_the_site_language(tmp_path):
    site = make_site(tmp_path / "site", "title: T\nlanguage: de\n")
    run_cli("new", "Guten Tag", cwd=site, check=True)
    assert front_matter(site / "content/posts/guten-tag.md")["lang"] == "de"


def test_new_refuses_to_overwrite_an_existing_post(site):
    run_cli("new", "Hello World", cwd=site, check=True)
    path = site / "content/posts/hello-world.md"
    path.write_text(path.read_text(encoding="utf-8") + "My precious draft.\n", encoding="utf-8")
    before = path.read_bytes()
    proc = run_cli("new", "Hello World", cwd=site)
    assert_one_line_error(proc, r"^error: content/posts/hello-world\.md: .*already exists")
    assert path.read_bytes() == before
    assert sorted(p.name for p in (site / "content/posts").iterdir()) == ["hello-world.md"]


def test_new_with_a_cjk_title_makes_a_readable_slug(site):
    proc = run_cli("new", "你好世界", "--lang", "zh", cwd=site)
    assert proc.returncode == 0, proc.stderr
    path = site / "content/posts/你好世界.md"
    assert path.exists(), list((site / "content/posts").iterdir())
    meta = front_matter(path)
    assert meta["title"] == "你好世界" and meta["lang"] == "zh"
    assert "你好世界" in path.read_text(encoding="utf-8"), "the title must be stored readably, not escaped"
    run_cli("build", cwd=site, check=True)
    year = str(meta["date"])[:4]
    assert (site / "output/blog" / year / "你好世界/index.html").exists()


def test_new_with_punctuation_and_mixed_scripts(site):
    run_cli("new", "Rust & 中文: a 1st look!", cwd=site, check=True)
    assert (site / "content/posts/rust-中文-a-1st-look.md").exists()


def test_new_with_an_explicit_slug(site):
    run_cli("new", "Anything", "--slug", "my-post", cwd=site, check=True)
    assert front_matter(site / "content/posts/my-post.md")["title"] == "Anything"


def test_new_with_source_option(site, tmp_path):
    run_cli("new", "From Afar", "--source", str(site), cwd=tmp_path, check=True)
    assert (site / "content/posts/from-afar.md").exists()


@pytest.mark.parametrize("slug", ["../../evil", "a/b", ".hidden", ""])
def test_new_refuses_a_slug_that_is_not_a_file_name(site, tmp_path, slug):
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    proc = run_cli("new", "Title", "--slug", slug, cwd=site)
    assert_one_line_error(proc, r"^error: --slug .*must be a plain file name")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == before


def test_new_refuses_an_empty_title(site):
    assert_one_line_error(run_cli("new", "  ", cwd=site), r"^error: the title is empty")
    assert list((site / "content/posts").iterdir()) == []


def test_new_refuses_a_missing_source_and_creates_nothing(tmp_path):
    proc = run_cli("new", "Hello", "--source", str(tmp_path / "typo"))
    assert_one_line_error(proc, r"^error: source directory .*typo does not exist")
    assert not (tmp_path / "typo").exists()


def test_new_reports_a_broken_site_yml(site):
    (site / "site.yml").write_text("title: [x\n", encoding="utf-8")
    assert_one_line_error(run_cli("new", "Hello", cwd=site), r"^error: site\.yml:1: invalid YAML")
    assert list((site / "content/posts").iterdir()) == []


# --- build ---------------------------------------------------------------------------------------


def test_build_defaults_to_output_in_the_source(site, tmp_path):
    run_cli("new", "One", cwd=site, check=True)
    proc = run_cli("build", "--source", "site", cwd=tmp_path, check=True)
    assert re.match(r"^built 1 post into .*site/output", proc.stdout), proc.stdout
    assert (site / "output/index.html").exists()
    assert not (tmp_path / "output").exists()


def test_build_verbose_prints_stage_timings(site):
    proc = run_cli("build", "-v", cwd=site, check=True)
    assert re.search(r"setup \d+\.\d+s", proc.stdout), proc.stdout


@pytest.mark.parametrize(
    "given, made, title",
    [
        ("content/posts/my-first-post.md", "content/posts/my-first-post.md", "My first post"),
        ("notes/deep-dive.md", None, None),
        ("later.md", "content/posts/later.md", "Later"),
    ],
)
def test_new_accepts_a_path_as_hugo_does(site, given, made, title):
    proc = run_cli("new", given, cwd=site)
    if made is None:
        assert_one_line_error(proc, r"a new post goes under content/posts/")
        assert not (site / given).exists()
        return
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (site / "content/posts").iterdir()) == [Path(made).name]
    assert front_matter(site / made)["title"] == title
    assert "built 1 post " in run_cli("build", cwd=site, check=True).stdout
