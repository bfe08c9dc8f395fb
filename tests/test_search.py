"""The search index: built by every build that changed the site, not by one that changed nothing, gone with
`search: false`; in shards (a year of posts each), of which a build indexes again only those whose posts changed;
a Chinese word and an English word each find their post in the index Pagefind wrote; a formula is in it as its TeX;
a site with no post is indexed all the same."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import make_site, run_cli, write_post

from site_builder.write.searchshards import SHARD_MAX, SHARD_MIN, PageEntry, plan

pytest.importorskip("pagefind")

ENTRY = Path("pagefind") / "shards.json"  # the shards and their languages, written last


def build(root: Path):
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nlanguages: [en, zh]\n")
    write_post(root, "ray.md", "title: Ray\ndate: 2024-01-01", "Workers spill objects to disk under memory pressure.\n")
    write_post(root, "xue.md", "title: 学习\ndate: 2024-01-02\nlang: zh", "大模型时代的学习方法。\n")
    return root


def test_a_build_indexes_the_site_and_a_rebuild_with_nothing_changed_does_not(site: Path):
    build(site)
    entry = site / "output" / ENTRY
    assert entry.is_file()
    languages = [code for shard in json.loads(entry.read_text())["shards"] for code in shard["languages"]]
    assert any(code.startswith("en") for code in languages) and any(code.startswith("zh") for code in languages)
    stamp = entry.stat().st_mtime_ns
    build(site)
    assert entry.stat().st_mtime_ns == stamp, "a build that changed nothing indexed the site again"
    write_post(site, "ray.md", "title: Ray\ndate: 2024-01-01", "Workers spill objects to disk, then retry.\n")
    build(site)
    assert entry.stat().st_mtime_ns != stamp, "an edited post was not indexed again"
    left = [*(site / "output").glob(".*pagefind*"), *site.glob(".output.pagefind*")]
    assert not left, f"a staging folder was left: {left}"


def test_an_edited_post_indexes_its_own_shard_again_and_no_other(tmp_path: Path):
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\n")
    for year in (2023, 2024):  # SHARD_MIN posts a year: a shard each
        for i in range(SHARD_MIN):
            write_post(root, f"p{year}-{i}.md", f"title: P{i}\ndate: {year}-01-01", f"Note {i} of {year}.\n")
    build(root)
    index = root / "output" / "pagefind"
    shards = {s["name"] for s in json.loads((index / "shards.json").read_text())["shards"]}
    assert shards == {"2023", "2024"}, shards
    stamps = {name: (index / name / "pagefind-entry.json").stat().st_mtime_ns for name in shards}
    write_post(root, "p2024-7.md", "title: P7\ndate: 2024-01-01", "Workers spill objects to disk, then retry.\n")
    build(root)
    after = {name: (index / name / "pagefind-entry.json").stat().st_mtime_ns for name in shards}
    assert after["2023"] == stamps["2023"], "a shard whose posts did not change was indexed again"
    assert after["2024"] != stamps["2024"], "the edited post's shard was not indexed again"
    text = indexed_text(root / "output")
    assert "then retry" in text and "Note 3 of 2023." in text and "Note 7 of 2024" not in text


def test_shards_are_years_few_posts_share_one_and_a_large_year_is_split_by_months():
    def entries(counts: dict[str, int]) -> dict[str, PageEntry]:
        return {
            f"{year}/{i}.html": PageEntry(1, 1, f"d{year}{i}", year, 1 + i % 12)
            for year, n in counts.items()
            for i in range(n)
        }

    small = plan(entries({"2024": 1, "2025": 8, "2026": 1, "": 1}))
    assert list(small.pages) == ["2024-2026"], "a small site is one shard, ranked as one index"
    big = plan(entries({"2019": SHARD_MIN, "2020": 2 * SHARD_MAX, "2021": 3, "": 2}))
    assert sorted(big.pages) == ["2019", "2020-1", "2020-2", "2021"], big.pages.keys()
    assert len(big.pages["2020-1"]) + len(big.pages["2020-2"]) == 2 * SHARD_MAX  # January-June, July-December
    assert len(big.pages["2021"]) == 5, "the pages that are not posts join the newest shard"
    edited = entries({"2019": SHARD_MIN, "2020": 2 * SHARD_MAX, "2021": 3, "": 2})
    edited["2021/0.html"] = PageEntry(1, 2, "changed", "2021", 1)
    keys = plan(edited).keys
    assert [name for name in keys if keys[name] != big.keys[name]] == ["2021"]


def test_a_missing_index_is_made_again_even_when_nothing_changed(site: Path):
    build(site)
    import shutil

    shutil.rmtree(site / "output" / "pagefind")
    build(site)
    assert (site / "output" / ENTRY).is_file()


def test_search_false_builds_no_index_and_removes_an_old_one(site: Path):
    build(site)
    (site / "site.yml").write_text("title: T\nurl: https://example.org\nlanguages: [en, zh]\nsearch: false\n")
    build(site)
    assert not (site / "output" / "pagefind").exists()


def test_search_must_be_true_or_false(site: Path):
    (site / "site.yml").write_text("title: T\nsearch: nope\n")
    proc = run_cli("build", "--source", str(site))
    assert proc.returncode == 1 and "site.yml:2: setting 'search' must be true or false" in proc.stderr, proc.stderr


def indexed_text(output: Path) -> str:
    """The text of every page in the index (Pagefind's fragments: gzip, a marker, then JSON)."""
    fragments = (output / "pagefind").glob("*/fragment/*.pf_fragment")
    return " ".join(json.loads(gzip.decompress(f.read_bytes())[12:])["content"] for f in fragments)


def test_a_formula_is_indexed_as_its_tex_not_as_its_mathml_symbols(site: Path):
    """Pagefind reads each post's search document, not its page: the text, code and title it keeps are the page's."""
    body = "Mass is energy: $E = mc^2$, said Einstein.\n\n```python\nresult = chunk_items(xs, k=5)  # split\n```\n"
    write_post(site, "energy.md", "title: Energy <i>data-pagefind-body</i>\ndate: 2024-01-03", body)
    proc = build(site)
    assert "search index" not in proc.stderr, proc.stderr
    text = indexed_text(site / "output")
    assert "Mass is energy: E = mc^2, said Einstein." in text and "mc2" not in text
    assert "result = chunk_items(xs, k=5) # split" in text
    assert "Workers spill objects to disk" in text and "学习" in text
    fragments = [
        json.loads(gzip.decompress(f.read_bytes())[12:]) for f in (site / "output").glob("pagefind/*/fragment/*")
    ]
    energy = next(f for f in fragments if "Einstein" in f["content"])
    assert energy["url"] == "/blog/2024/energy/" and "data-pagefind-body" in energy["meta"]["title"]
    assert "Jan 3, 2024" not in energy["content"]  # the date under the title is not the post's text


def test_a_site_with_no_post_is_indexed_all_the_same(tmp_path: Path):
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\n")
    proc = build(root)
    assert "search index" not in proc.stderr, proc.stderr
    assert (root / "output" / ENTRY).is_file()


def test_a_lang_that_is_not_a_language_tag_is_a_warning_and_the_site_is_still_indexed(tmp_path: Path):
    root = make_site(tmp_path / "site", "title: T\nurl: https://example.org\nlanguages: [en, zh-TW]\n")
    write_post(root, "ok.md", "title: Ray\ndate: 2024-01-01", "Workers spill objects to disk.\n")
    write_post(root, "bad.md", "title: Bad\ndate: 2024-01-02\nlang: " + "../" * 10 + "tmp/x", "Escaping words.\n")
    write_post(root, "typo.md", "title: Typo\ndate: 2024-01-03\nlang: zh_TW", "繁體中文的文章。\n")
    proc = build(root)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert lines == [
        "warning: content/posts/bad.md:4: lang '" + "../" * 10 + "tmp/x' is not a language tag, "
        "built in the site's language, en (the site's languages: en, zh-TW)",
        "warning: content/posts/typo.md:4: lang 'zh_TW' is not a language tag, "
        "built in the site's language, en (did you mean 'zh-TW'?)",
    ], proc.stderr
    for name in ("bad", "typo"):
        assert '<html lang="en">' in (root / f"output/blog/2024/{name}/index.html").read_text()
    shards = json.loads((root / "output" / ENTRY).read_text())["shards"]
    assert sorted({code for shard in shards for code in shard["languages"]}) == ["en"]
    assert not [
        p for p in (root / "output/pagefind").iterdir() if p.is_file() and p.name not in (ENTRY.name, "pages.json")
    ]


def test_search_documents_a_killed_build_left_in_ram_are_removed_by_the_next(site: Path):
    """A build killed while Pagefind read a shard's documents leaves them in /dev/shm (RAM) for ever: the next
    build removes each such folder whose build no longer runs, and keeps those of builds that still do."""
    from site_builder.write.search import SCRATCH_PREFIX, _scratch

    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid no process has now
    folder = Path(_scratch() or os.environ.get("TMPDIR", "/tmp"))
    stale = folder / f"{SCRATCH_PREFIX}{gone.pid}-2024-test"
    alive = folder / f"{SCRATCH_PREFIX}{os.getpid()}-2024-test"
    try:
        for made in (stale, alive):
            (made / "blog").mkdir(parents=True)
            (made / "blog" / "index.html").write_text("<p>words</p>", encoding="utf-8")
        build(site)
        assert not stale.exists(), "a killed build's search documents are still in RAM"
        assert (alive / "blog" / "index.html").is_file(), "a running build's documents were removed"
    finally:
        for made in (stale, alive):
            subprocess.run(["rm", "-rf", str(made)], check=False)
