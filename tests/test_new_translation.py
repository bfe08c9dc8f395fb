"""`site-builder new --translation-of`: starting the other language's version of a post."""

from __future__ import annotations

from bs4 import BeautifulSoup
from helpers import assert_one_line_error, make_site, run_cli, write_post

SITE = "title: T\nurl: https://example.org\nlanguages:\n  en: {name: English}\n  zh: {name: 中文}\n"


def test_translation_gets_the_suffix_date_and_tags_and_is_linked(tmp_path):
    root = make_site(tmp_path / "site", SITE)
    write_post(root, "hello.md", "title: Hello\ndate: 2024-03-05\ntags: [ray, life]")
    proc = run_cli(
        "new",
        "你好",
        "--lang",
        "zh",
        "--translation-of",
        str(root / "content/posts/hello.md"),
        "--source",
        str(root),
        check=True,
    )
    made = root / "content/posts/hello.zh.md"
    assert "hello.zh.md" in proc.stdout and made.exists()
    text = made.read_text(encoding="utf-8")
    assert "title: 你好" in text and "lang: zh" in text and "2024-03-05" in text and "- ray" in text
    run_cli("build", "--source", str(root), check=True)
    page = BeautifulSoup((root / "output/zh/blog/2024/hello/index.html").read_text(encoding="utf-8"), "html.parser")
    assert page.html["lang"] == "zh-Hans"
    assert [a["href"] for a in page.select(".translations a")] == ["/blog/2024/hello/"]


def test_translation_never_overwrites_and_needs_another_language(tmp_path):
    root = make_site(tmp_path / "site", SITE)
    original = write_post(root, "hello.md", "title: Hello\ndate: 2024-03-05")
    run_cli("new", "你好", "--lang", "zh", "--translation-of", str(original), "--source", str(root), check=True)
    before = (root / "content/posts/hello.zh.md").read_bytes()
    again = run_cli("new", "再见", "--lang", "zh", "--translation-of", str(original), "--source", str(root))
    assert_one_line_error(again, r"hello\.zh\.md: this post already has a 'zh' version")
    assert (root / "content/posts/hello.zh.md").read_bytes() == before
    same = run_cli("new", "Hi", "--lang", "en", "--translation-of", str(original), "--source", str(root))
    assert_one_line_error(same, r"needs --lang with another language")
    unknown = run_cli("new", "Salut", "--lang", "fr", "--translation-of", str(original), "--source", str(root))
    assert_one_line_error(unknown, r"site\.yml: language 'fr' is not in site\.yml 'languages'")
