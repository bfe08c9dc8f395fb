"""site.yml's `comments:` (giscus, utterances, Disqus) as the real CLI builds it and a real headless Chromium loads
it: the provider's script only when the reader nears the comments, none for `comments: false`; a wrong setting
is an error at its line; `import` carries the old site's comment system, so each post keeps its thread."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from helpers import chromium, make_site, run_cli, serve_folder, write_post
from test_accessibility import axe_violations, emulate
from test_import_hugo import write

GISCUS = """comments:
  giscus:
    repo: me/blog
    repo_id: R_kgDOLnMaxQ
    category: General
    category_id: DIC_kwDOLnMaxc4CeUxG
    mapping: title
    strict: true
"""
LONG = "\n\n".join(f"Paragraph {n} of a post long enough to scroll past the first screen." for n in range(60)) + "\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[Path]:
    root = make_site(
        tmp_path_factory.mktemp("comments") / "site", f"title: C\nurl: https://example.org\nsearch: false\n{GISCUS}"
    )
    write_post(root, "long.md", "title: Long\ndate: 2024-05-01", LONG)
    write_post(root, "quiet.md", "title: Quiet\ndate: 2024-04-01\ncomments: false", "No comments here.\n")
    run_cli("build", "--source", str(root), check=True)
    yield root


def _page(root: Path, path: str) -> BeautifulSoup:
    return BeautifulSoup((root / "output" / path.strip("/") / "index.html").read_text(encoding="utf-8"), "html.parser")


def test_a_post_has_its_comments_section_and_comments_false_has_none(built):
    section = _page(built, "/blog/2024/long/").select_one("section#comments")
    assert section is not None and section.find("h2").get_text() == "Comments"
    assert {k: v for k, v in section.attrs.items() if k.startswith("data-")} == {
        "data-provider": "giscus",
        "data-url": "https://example.org/blog/2024/long/",
        "data-path": "/blog/2024/long/",
        "data-repo": "me/blog",
        "data-repo-id": "R_kgDOLnMaxQ",
        "data-category": "General",
        "data-category-id": "DIC_kwDOLnMaxc4CeUxG",
        "data-mapping": "title",
        "data-strict": "1",  # `strict: true`, as giscus reads it
        "data-reactions-enabled": "1",
        "data-emit-metadata": "0",
        "data-input-position": "bottom",
    }
    assert _page(built, "/blog/2024/quiet/").select_one("#comments") is None
    assert _page(built, "/").select_one("#comments") is None


def _scripts(driver) -> list[dict[str, str]]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#comments script')].map(s => "
        "Object.fromEntries([...s.attributes].map(a => [a.name, a.value])))"
    )


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])
def test_the_providers_script_loads_when_the_reader_nears_the_comments(built, width, mode):
    with serve_folder(built / "output") as base:
        driver = chromium()
        try:
            emulate(driver, width, mode)
            driver.get(base + "/blog/2024/long/")
            time.sleep(0.5)
            assert _scripts(driver) == [], "nothing from giscus.app until the reader nears the comments"
            driver.execute_script("document.getElementById('comments').scrollIntoView()")
            for _ in range(50):
                if _scripts(driver):
                    break
                time.sleep(0.1)
            [script] = _scripts(driver)
            assert script["src"] == "https://giscus.app/client.js" and script["data-repo-id"] == "R_kgDOLnMaxQ"
            assert script["data-mapping"] == "title" and script["data-theme"] == mode
            assert "data-url" not in script and "data-provider" not in script
        finally:
            driver.quit()


@pytest.mark.parametrize(
    "config, attrs",
    [
        ("comments:\n  utterances: {repo: me/blog-comments}\n", {"repo": "me/blog-comments", "issue-term": "pathname"}),
        ("comments:\n  disqus: {shortname: my-blog}\n", {"src": "https://my-blog.disqus.com/embed.js"}),
    ],
)
def test_utterances_and_disqus(tmp_path, config, attrs):
    root = make_site(tmp_path / "site", f"title: C\nurl: https://example.org\nsearch: false\n{config}")
    write_post(root, "a.md", "title: A\ndate: 2024-05-01", "Short.\n")
    run_cli("build", "--source", str(root), check=True)
    with serve_folder(root / "output") as base:
        driver = chromium()
        try:
            driver.get(base + "/blog/2024/a/")
            [script] = [s for s in _scripts(driver) if s.get("src", "").startswith("https")] or [{}]
            assert {k: script.get(k) for k in attrs} == attrs
            if "disqus" in config:
                assert driver.execute_script(
                    "return !!document.getElementById('disqus_thread') && !!window.disqus_config"
                )
        finally:
            driver.quit()


@pytest.mark.parametrize(
    "config, said",
    [
        ("comments:\n  giscus: {repo: me/blog, category: General}\n", "site.yml:3: comments: giscus needs repo_id"),
        ("comments:\n  disqus: {shortname: a}\n  utterances: {repo: me/b}\n", "site.yml:2: comments: name one"),
        ("comments: true\n", "site.yml:2: comments must be a mapping"),
    ],
)
def test_a_wrong_comments_setting_is_an_error_at_its_line(tmp_path, config, said):
    root = make_site(tmp_path / "site", f"title: C\n{config}")
    proc = run_cli("build", "--source", str(root))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert f"error: {said}" in proc.stderr, proc.stderr


def test_a_site_under_a_path_gives_disqus_the_pages_path(tmp_path):
    root = make_site(
        tmp_path / "site", "title: C\nurl: https://example.org/notes/\ncomments: {disqus: {shortname: a}}\n"
    )
    write_post(root, "a.md", "title: A\ndate: 2024-05-01", "Short.\n")
    run_cli("build", "--source", str(root), check=True)
    section = _page(root, "/blog/2024/a/").select_one("#comments")
    assert (section["data-url"], section["data-path"]) == (
        "https://example.org/notes/blog/2024/a/",
        "/notes/blog/2024/a/",
    )


def test_an_unknown_option_is_a_warning(tmp_path):
    root = make_site(tmp_path / "site", "title: C\ncomments:\n  disqus: {shortname: a, shortnme: b}\n")
    proc = run_cli("build", "--source", str(root), check=True)
    assert "comments: disqus: unknown option 'shortnme'" in proc.stderr


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])
def test_no_axe_violations(built, width, mode):
    with serve_folder(built / "output") as base:
        assert not axe_violations(base, ["/blog/2024/long/"], width, mode)


def _imported(tmp_path: Path, files: dict[str, str]) -> tuple[dict, Path]:
    new = tmp_path / "new"
    run_cli("import", str(write(tmp_path / "old", files)), str(new), check=True)
    return yaml.safe_load((new / "site.yml").read_text(encoding="utf-8")), new


def _front(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n", 2)[1])


def test_import_carries_al_folios_giscus_and_its_opt_in(tmp_path):
    config = "title: T\ngiscus:\n  repo: me/me.github.io\n  repo_id: R_1\n  category: General\n  category_id: DIC_1\n  mapping: title\n  dark_theme: dark\n"
    post = "---\ntitle: {t}\n{extra}---\nText.\n"
    site, new = _imported(
        tmp_path,
        {
            "_config.yml": config,
            "_posts/2020-01-01-on.md": post.format(t="On", extra="giscus_comments: true\n"),
            "_posts/2020-01-02-off.md": post.format(t="Off", extra=""),
        },
    )
    assert site["comments"] == {
        "giscus": {
            "repo": "me/me.github.io",
            "repo_id": "R_1",
            "category": "General",
            "category_id": "DIC_1",
            "mapping": "title",
        }
    }
    assert "comments" not in _front(new / "content/posts/2020-01-01-on.md")
    assert _front(new / "content/posts/2020-01-02-off.md")["comments"] is False  # al-folio showed none there


@pytest.mark.parametrize(
    "files, expected",
    [
        (  # Chirpy
            {
                "_config.yml": "title: T\ncomments:\n  provider: disqus\n  disqus:\n    shortname: my-blog\n  giscus:\n    repo:\n",
                "_posts/2020-01-01-a.md": "---\ntitle: A\ncomments: false\n---\nText.\n",
            },
            {"disqus": {"shortname": "my-blog"}},
        ),
        (  # Hugo, the even theme
            {
                "config.toml": 'title = "S"\n[params.utterances]\n  owner = "ouuan"\n  repo = "blog-comments"\n',
                "content/post/a.md": "---\ntitle: A\ndate: 2020-01-01\ncomments: false\n---\nText.\n",
            },
            {"utterances": {"repo": "ouuan/blog-comments"}},
        ),
        (  # Pelican: Disqus in publishconf.py
            {
                "pelicanconf.py": 'SITENAME = "S"\n',
                "publishconf.py": 'DISQUS_SITENAME = "pythonicperambulations"\n',
                "content/a.md": "Title: A\nDate: 2020-01-01\nComments: false\n\nText.\n",
            },
            {"disqus": {"shortname": "pythonicperambulations"}},
        ),
    ],
)
def test_import_carries_the_comment_system_of_chirpy_hugo_and_pelican(tmp_path, files, expected):
    site, new = _imported(tmp_path, files)
    assert site["comments"] == expected
    [post] = list((new / "content/posts").rglob("*.md"))
    assert _front(post)["comments"] is False  # the post that had none has none


@pytest.mark.parametrize("width, mode", [(1280, "light"), (360, "dark")])
def test_with_consent_nothing_loads_until_the_reader_asks(tmp_path, width, mode):
    """`consent: true`: the provider's script is asked for by a click on a button naming it, not when the reader
    reaches the comments (a reader in the EU has said yes to nothing yet); the button is keyboard-reachable."""
    config = GISCUS.replace("comments:\n", "comments:\n  consent: true\n")
    root = make_site(tmp_path / "site", f"title: C\nurl: https://example.org\nsearch: false\n{config}")
    write_post(root, "long.md", "title: Long\ndate: 2024-05-01", LONG)
    run_cli("build", "--source", str(root), check=True)
    with serve_folder(root / "output") as base:
        driver = chromium()
        try:
            emulate(driver, width, mode)
            driver.get(base + "/blog/2024/long/")
            driver.execute_script("document.getElementById('comments').scrollIntoView()")
            time.sleep(1)
            assert _scripts(driver) == [], "nothing from giscus.app before the reader asks"
            button = driver.find_element("css selector", "#comments button.comments-load")
            assert button.text == "Load comments from giscus"
            button.click()
            for _ in range(50):
                if _scripts(driver):
                    break
                time.sleep(0.1)
            [script] = _scripts(driver)
            assert script["src"] == "https://giscus.app/client.js" and script["data-theme"] == mode
            assert not driver.find_elements("css selector", "#comments button.comments-load")
        finally:
            driver.quit()
        assert not axe_violations(base, ["/blog/2024/long/"], width, mode)
